#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""help_test: the options each parser accepts, its -h and its reference
page agree, both ways; a misused long option is named for what it is.

For every fxtrace command, for fxtrace-drain and for fxtrace-probe: the
long options of the parser's getopt table (in the source), the options
its -h prints and the options the command's section of the .rst names
are one set; the short option of each table entry is in -h and in the
.rst.  For fxtrace-drain the keys of the config file (config_line) are
also the ones -h and drain.rst list.  For every fxtrace command, a value
given to each long option that takes none, and an abbreviation two of its
options share, are usage errors that say so (getopt_long() reports both
as an unknown option); fxtrace-probe refuses a ring size probes.rst does
not allow as a usage error, before it creates its output.  The commands
`fxtrace` lists are the ones tested here, fxtrace.rst's sections and the
ones index.rst names.  Prints TAP; run from the top of the tree after
`make`.
"""
import os
import re
import subprocess
import sys
import tempfile

B = os.environ.get("B", "build")
n = 0
failed = 0


def result(ok, what):
    global n, failed
    n += 1
    if not ok:
        failed = 1
    print(("ok" if ok else "not ok") + " %d - %s" % (n, what))


def same(what, expected, got, expected_name, got_name):
    missing = sorted(expected - got)
    extra = sorted(got - expected)
    detail = ""
    if missing:
        detail += "; not in %s: %s" % (got_name, " ".join(missing))
    if extra:
        detail += "; in %s only: %s" % (got_name, " ".join(extra))
    result(not missing and not extra,
           "%s: %s and %s name the same%s" % (what, expected_name, got_name,
                                              detail))


def parser_table(path, table):
    """(long name, has_arg, code) of each entry of the struct option table
    in path, FXTRACE_SELECT_OPTIONS included."""
    src = open(path).read()
    m = re.search(r"struct option %s\[\] = \{(.*?)\n\s*\};" % table, src,
                  re.S)
    body = m.group(1)
    if "FXTRACE_SELECT_OPTIONS" in body:
        body += open("tools/fxtrace/fxtrace.h").read().split(
            "#define FXTRACE_SELECT_OPTIONS")[1].split("\n\n")[0]
    return re.findall(r'\{ "([a-z-]+)", (\w+), NULL, (\'.\'|\w+) \}', body)


def parser_options(path, table, optstring=None):
    """(long names, short letters) of the struct option table in path;
    with optstring, only its letters are short options (a table entry's
    letter may be a code of a long option alone)."""
    longs, shorts = set(), set()
    for name, _, val in parser_table(path, table):
        longs.add("--" + name)
        if val.startswith("'") and (optstring is None or val[1] in optstring):
            shorts.add("-" + val[1])
    return longs, shorts


def usage_error(argv):
    """Exit status and first line of stderr."""
    p = subprocess.run(argv, capture_output=True, text=True)
    return p.returncode, (p.stderr.split("\n") + [""])[0]


def misused_options(cmd, table):
    """--NAME=1 for each option taking no value; one shared abbreviation."""
    fxtrace = B + "/bin/fxtrace"
    for name, has_arg, _ in table:
        if has_arg != "no_argument":
            continue
        got = usage_error([fxtrace, cmd, "--%s=1" % name])
        want = (2, "fxtrace %s: option '--%s' takes no value" % (cmd, name))
        result(got == want, "fxtrace %s --%s=1: %r (want %r)"
               % (cmd, name, got, want))
    names = [name for name, _, _ in table]
    for a, b in ((a, b) for a in table for b in table):
        if a[2] == b[2]:
            continue
        prefix = os.path.commonprefix([a[0], b[0]])
        if not prefix or prefix in names:
            continue
        sharing = sorted(n for n in names if n.startswith(prefix))
        rc, line = usage_error([fxtrace, cmd, "--" + prefix])
        head = "fxtrace %s: option '--%s' is ambiguous: " % (cmd, prefix)
        listed = sorted(n[2:] for n in line[len(head):].split(", "))
        result(rc == 2 and line.startswith(head) and listed == sharing,
               "fxtrace %s --%s: ambiguous among %s (got %d: %s)"
               % (cmd, prefix, ", ".join(sharing), rc, line))
        return


def help_options(argv):
    out = subprocess.run(argv, capture_output=True, text=True).stdout
    longs = set(re.findall(r"(?<![\w-])--[a-z][a-z-]*", out))
    shorts = set(re.findall(r"^\s+(-[A-Za-z]),", out, re.M))
    return out, longs, shorts


def rst_section(path, title):
    """The text under the === heading title, up to the next === heading."""
    lines = open(path).read().split("\n")
    out, inside = [], False
    for i, line in enumerate(lines[:-1]):
        if re.fullmatch(r"=+", lines[i + 1]) and line.strip():
            inside = line.strip() == title
            continue
        if inside and not re.fullmatch(r"=+", line):
            out.append(line)
    return "\n".join(out)


def rst_options(text):
    """Options in the Synopsis and Options subsections when it has them:
    prose elsewhere names other commands' options."""
    parts = re.split(r"\n(\S[^\n]*)\n-+\n", "\n" + text)
    if len(parts) > 1:
        text = parts[0] + "".join(
            parts[i + 1] for i in range(1, len(parts), 2)
            if parts[i] in ("Synopsis", "Options"))
    longs = set(re.findall(r"``(--[a-z][a-z-]*)", text))
    shorts = set(re.findall(r"``(-[A-Za-z])[` ]", text))
    return longs, shorts


COMMANDS = {
    "check": "check.c", "dump": "dump.c", "stats": "stats.c",
    "report": "report_print.c", "export": "export.c", "info": "info.c",
    "list": "list.c", "record": "record.c", "recover": "recover.c",
    "stop": "stop.c",
}

# The commands `fxtrace` lists: each is tested here, has its section in
# fxtrace.rst and is named in index.rst's entry for that page.
out = subprocess.run([B + "/bin/fxtrace"], capture_output=True,
                     text=True).stdout
listed = set(re.findall(r"^  ([a-z]+) ", out, re.M))
same("fxtrace", listed, set(COMMANDS), "fxtrace's command list",
     "help_test")
sections = set(re.findall(r"^fxtrace ([a-z]+)\n=+$",
                          open("Documentation/fxtrace.rst").read(), re.M))
same("fxtrace", listed, sections, "fxtrace's command list",
     "fxtrace.rst's sections")
index = open("Documentation/index.rst").read()
entry = re.search(r"\nfxtrace\n(  .*?)\n\n", index, re.S).group(1)
same("fxtrace", listed, set(re.findall(r"``([a-z]+)``", entry)) - {"fxtrace"},
     "fxtrace's command list", "index.rst's fxtrace entry")

for cmd, src in COMMANDS.items():
    plong, pshort = parser_options("tools/fxtrace/" + src, "options")
    misused_options(cmd, parser_table("tools/fxtrace/" + src, "options"))
    _, hlong, hshort = help_options([B + "/bin/fxtrace", cmd, "-h"])
    rlong, rshort = rst_options(rst_section("Documentation/fxtrace.rst",
                                            "fxtrace " + cmd))
    same("fxtrace " + cmd, plong, hlong, "the parser", "-h")
    same("fxtrace " + cmd, plong, rlong, "the parser", "fxtrace.rst")
    result(pshort <= hshort and pshort <= rshort,
           "fxtrace %s: every short option in -h and fxtrace.rst (missing: %s)"
           % (cmd, " ".join(sorted((pshort - hshort) | (pshort - rshort)))))

got = usage_error([B + "/bin/fxtrace", "check", "--list-rules", "x.fxt"])
want = (2, "fxtrace check: --list-rules takes no FILE")
result(got == want, "fxtrace check --list-rules FILE: %r (want %r)"
       % (got, want))

plong, pshort = parser_options("user/drain/options.c", "long_options")
text, hlong, hshort = help_options([B + "/bin/fxtrace-drain", "-h"])
rlong, rshort = rst_options(rst_section("Documentation/drain.rst", "Synopsis"))
same("fxtrace-drain", plong, hlong, "the parser", "-h")
same("fxtrace-drain", plong, rlong, "the parser", "drain.rst")
result(pshort <= hshort and pshort <= rshort,
       "fxtrace-drain: every short option in -h and drain.rst (missing: %s)"
       % " ".join(sorted((pshort - hshort) | (pshort - rshort))))

# fxtrace-probe: its parser, its -h and probes.rst's section on it (a
# build without libbpf has no fxtrace-probe).
if os.path.exists(B + "/bin/fxtrace-probe"):
    src = open("user/probe/fxtrace_probe.c").read()
    optstring = re.search(r'getopt_long\(argc, argv, "([^"]*)"', src).group(1)
    plong, pshort = parser_options("user/probe/fxtrace_probe.c", "options",
                                   optstring)
    _, hlong, hshort = help_options([B + "/bin/fxtrace-probe", "-h"])
    rlong, rshort = rst_options(rst_section("Documentation/probes.rst",
                                            "fxtrace-probe"))
    same("fxtrace-probe", plong, hlong, "the parser", "-h")
    same("fxtrace-probe", plong, rlong, "the parser", "probes.rst")
    result(pshort <= hshort and pshort <= rshort,
           "fxtrace-probe: every short option in -h and probes.rst (missing: %s)"
           % " ".join(sorted((pshort - hshort) | (pshort - rshort))))
    # A ring size probes.rst refuses is a usage error before the output
    # is created or COMMAND run.
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.fxt")
        for size in ("1K", "12K", "0", "4x"):
            got = usage_error([B + "/bin/fxtrace-probe", "-o", out, "-r",
                               size, "--", "true"])
            want = (2, "fxtrace-probe: -r '%s': a ring size is a power of 2 "
                    "of at least a page (K and M suffixes)" % size)
            created = os.path.exists(out)
            result(got == want and not created,
                   "fxtrace-probe -r %s: %r, %s created (want %r, none)"
                   % (size, got, out if created else "nothing", want))
            if created:
                os.unlink(out)
else:
    print("ok %d - fxtrace-probe # SKIP not built (PROBES=0)" % (n + 1))
    n += 1

# The config file's keys: config_line's, -h's list, drain.rst's.
src = open("user/drain/options.c").read()
body = src[src.index("static int config_line"):src.index("static int read_config")]
pkeys = set(re.findall(r'!strcmp\(key, "([a-z-]+)"\)', body))
m = re.search(r"key = value lines: (.*?)\);", text, re.S)
hkeys = set(re.findall(r"[a-z][a-z-]+", m.group(1))) if m else set()
rkeys = set(re.findall(r"``([a-z-]+)``\s+\(``-",
                       rst_section("Documentation/drain.rst", "The config file")))
same("fxtrace-drain config", pkeys, hkeys, "config_line", "-h")
same("fxtrace-drain config", pkeys, rkeys, "config_line", "drain.rst")

print("1..%d" % n)
sys.exit(failed)
