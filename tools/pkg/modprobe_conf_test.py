#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""modprobe_conf_test: the module parameters dist/modprobe.d/fxtrace.conf
shows, commented, with their defaults (what make install and the fxtrace
package install as modprobe.d/fxtrace.conf) are the parameters a user sets
at load in kmod/ (module_param() of mode 0444), with the defaults kmod/
gives them and Documentation/uapi.rst states.  A name the module does not
have is only logged by the kernel ("unknown parameter ... ignored"): the
limit a user uncomments would silently not apply.  Prints TAP; run from
the top of the tree.
"""
import glob
import re
import sys

n = 0
failed = 0


def result(ok, what):
    global n, failed
    n += 1
    if not ok:
        failed = 1
    print(("ok" if ok else "not ok") + " %d - %s" % (n, what))


# kmod/: static TYPE NAME = DEFAULT; module_param(NAME, TYPE, 0444);
kmod = {}
for path in sorted(glob.glob("kmod/*.c")):
    src = open(path).read()
    for name, mode in re.findall(r"module_param\((\w+), \w+, (0\d+)\)", src):
        if mode != "0444":
            continue
        m = re.search(r"static [\w ]*?\**%s = \"?([^\";]*)\"?;" % name, src)
        kmod[name] = m.group(1) if m else None

conf = {}
for line in open("dist/modprobe.d/fxtrace.conf"):
    m = re.match(r"#\s*options fxtrace (.*)", line)
    if m:
        conf.update(w.split("=", 1) for w in m.group(1).split())

uapi = open("Documentation/uapi.rst").read()
section = uapi[uapi.index("\nModule parameters\n"):
               uapi.index("\nLimits and the security model\n")]
doc = dict(re.findall(r"^``(\w+)`` \(default (?:``)?([^`),]*)", section, re.M))

result(set(conf) == set(kmod),
       "fxtrace.conf names the module's load-time parameters: %s "
       "(kmod/: %s)" % (" ".join(sorted(conf)), " ".join(sorted(kmod))))
for name in sorted(kmod):
    result(conf.get(name) == kmod[name] == doc.get(name),
           "%s: fxtrace.conf %s, kmod/ %s, uapi.rst %s"
           % (name, conf.get(name), kmod[name], doc.get(name)))

print("1..%d" % n)
sys.exit(failed)
