#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Description: `fxtrace list` names the categories running libfxtrace
# programs registered (FXTRACE_IOC_CATEGORY_NAME): name, slot, whether the
# session records it now, for root and for an unprivileged user; the user
# section follows the kernel categories.  Runs as root in the guest with
# fxtrace.ko loaded.  Prints TAP.

here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../../user/drain/tests/tap.sh" || exit 1
prog=$root/build/test/fxtrace/list_prog

# slot NAME FILE: the slot `fxtrace list` shows for NAME in FILE.
slot() { awk -v n="$1" '$1 == n && $2 == "slot" { print $3 }' "$2"; }
# state NAME FILE: enabled or disabled.
state() { awk -v n="$1" '$1 == n && $2 == "slot" { print $4 }' "$2"; }

# show FILE: its lines but other tests' registered names, as TAP comments.
show() { awk '$2 != "slot" || $1 ~ /^(kernel:|list_test\.)/' "$1" | sed 's/^/# /'; }

# table FILE: the registered categories are slots 0..N-1, each once, and
# the count line says N.
table() {
	awk '$2 == "slot" { if ($3 != n) bad = 1; n++ }
	     /^  \([0-9]+ registered categor(y|ies)\)$/ { sub(/^  \(/, ""); c = $1 }
	     END { exit (bad || n == 0 || c != n) }' "$1"
}

# ---- no session: a running program's names, none enabled ---------------------
"$prog" "$bin/fxtrace" list user >"$out/none.txt" 2>&1
rc=$?
show "$out/none.txt"
result $rc "no session: list user exits 0"
grep -qx '  session: none' "$out/none.txt" &&
	grep -qx '  registered categories (name, slot, whether the session records it now):' "$out/none.txt"
result $? "no session: the session line, then the registered categories"
on=$(slot list_test.on "$out/none.txt")
off=$(slot list_test.off "$out/none.txt")
echo "# list_test.on slot ${on:-none}, list_test.off slot ${off:-none}"
[[ -n $on && -n $off && $on != "$off" ]]
result $? "no session: both names the program registered, in slots of their own"
[[ $(state list_test.on "$out/none.txt") == disabled && $(state list_test.off "$out/none.txt") == disabled ]]
result $? "no session: both disabled"
[[ $(slot kernel:sched "$out/none.txt") == 0 && $(slot kernel:syscall "$out/none.txt") == 3 ]]
result $? "no session: the module's own categories in slots 0..3"
table "$out/none.txt"
result $? "no session: slots 0..N-1 each once, N counted"

# ---- a started session recording list_test.on only ----------------------------
"$bin/fxtrace" record -q -c list_test.on -e none -o "$out/on.fxt" -- \
	"$prog" /bin/sh -c "'$bin/fxtrace' list user >'$out/on.txt' 2>&1"
rc=$?
show "$out/on.txt"
result $rc "session: record and list exit 0"
grep -qx '  session: started' "$out/on.txt"
result $? "session: started"
[[ -n $on && $(slot list_test.on "$out/on.txt") == "$on" && $(slot list_test.off "$out/on.txt") == "$off" ]]
result $? "session: the same slots as before"
[[ $(state list_test.on "$out/on.txt") == enabled ]]
result $? "session: list_test.on enabled"
[[ $(state list_test.off "$out/on.txt") == disabled && $(state kernel:sched "$out/on.txt") == disabled ]]
result $? "session: list_test.off and kernel:sched disabled"
grep -Eqx "    list_test\.on +slot $on +enabled" "$out/on.txt"
result $? "session: the exact line of list_test.on"

# ---- an unprivileged user sees the same table ---------------------------------
"$prog" setpriv --reuid=65534 --regid=65534 --clear-groups \
	"$bin/fxtrace" list user >"$out/nobody.txt" 2>&1
rc=$?
result $rc "nobody: list user exits 0"
grep ' slot ' "$out/none.txt" >"$out/none.slots"
grep ' slot ' "$out/nobody.txt" >"$out/nobody.slots"
diff "$out/none.slots" "$out/nobody.slots" | sed 's/^/# /'
[[ ${PIPESTATUS[0]} == 0 && -s $out/nobody.slots ]]
result $? "nobody: the same names, slots and states as root ($(wc -l <"$out/nobody.slots") slots)"

# ---- the whole listing: user categories after the kernel's --------------------
"$bin/fxtrace" list --tracefs="$out/nonexistent" >"$out/all.txt" 2>&1
result $? "list: exit 0"
k=$(grep -n '^Kernel categories' "$out/all.txt" | cut -d: -f1)
u=$(grep -n '^User categories' "$out/all.txt" | cut -d: -f1)
r=$(grep -n "^    list_test\.on  *slot $on  *disabled$" "$out/all.txt" | cut -d: -f1)
[[ -n $k && -n $u && -n $r ]] && ((k < u && u < r))
result $? "list: kernel categories, then user categories with list_test.on"

echo "1..$n"
exit $failed
