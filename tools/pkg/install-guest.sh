#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The guest side of tools/pkg/install-test.sh: the DEBs are installed
# (dpkg-deb -x) into an empty root in the guest's /tmp.  With fxtrace.ko
# (DKMS-built, $FXTRACE_KO) loaded: a C and a C++ program built through
# pkg-config against the root's libfxtrace run from the root's library;
# the installed fxtrace records the C program; the trace must check and
# hold its events.  Then every package's files are removed and the root
# must be empty.  Prints TAP.
#
# Usage: install-guest.sh DEB...

set -uo pipefail
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root=$work/root lists=$work/lists
lib=$root/usr/lib/x86_64-linux-gnu
n=0 failed=0

result() {
	n=$((n + 1))
	if [[ $1 == 0 ]]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi
}

mkdir -p "$root" "$lists"
rc=0
for deb in "$@"; do
	name=$(dpkg-deb -f "$deb" Package) &&
		dpkg-deb -x "$deb" "$root" &&
		# The package's files and links, as paths in the root.
		dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { sub(/^\.\//, "/", $6); print $6 }' \
			>"$lists/$name" || rc=1
done
result $rc "$# packages installed in an empty root: $(cd "$lists" && echo *)"

export PKG_CONFIG_SYSROOT_DIR=$root PKG_CONFIG_LIBDIR=$lib/pkgconfig
flags=$(pkg-config --cflags --libs libfxtrace)
result $? "pkg-config --cflags --libs libfxtrace: $flags"

cat >"$work/prog.c" <<'C'
#include <fxtrace/trace.h>
#include <stdio.h>

int main(void)
{
	for (int i = 0; i < 10; i++) {
		TRACE_DURATION("install", "work", FXT_ARG("i", i));
		TRACE_INSTANT("install", "tick", FXT_SCOPE_THREAD);
	}
	puts("c: done");
	return 0;
}
C
# The C++ program: the same macros (TRACE_DURATION as an RAII scope,
# FXT_ARG of a std::string) and the library's functions.
cat >"$work/prog.cc" <<'CC'
#include <fxtrace/trace.h>
#include <cstdio>
#include <string>

int main()
{
	const std::string lang = "c++";

	fxt_set_thread_name("installed-c++");
	for (int i = 0; i < 10; i++) {
		TRACE_DURATION("install", "cxx_work", FXT_ARG("i", i));
		TRACE_INSTANT("install", "cxx_tick", FXT_SCOPE_THREAD,
			      FXT_ARG("lang", lang));
	}
	std::printf("c++: done\n");
	return 0;
}
CC
# shellcheck disable=SC2086 # flags are words
gcc -std=gnu11 -Wall -Wextra -Werror -o "$work/prog" "$work/prog.c" $flags
result $? "gcc builds a C program with pkg-config's flags"
# shellcheck disable=SC2086
g++ -std=c++17 -Wall -Wextra -Werror -o "$work/prog_cc" "$work/prog.cc" $flags
result $? "g++ builds a C++ program with pkg-config's flags"

export LD_LIBRARY_PATH=$lib
resolved=$(ldd "$work/prog" | awk '/libfxtrace/ { print $3 }')
result "$([[ $resolved == "$lib/libfxtrace.so.0" ]] && echo 0 || echo 1)" \
	"the C program loads the installed libfxtrace.so.0 ($resolved)"
out=$("$work/prog_cc" 2>&1)
result $? "the C++ program runs: $out"

# run.sh loaded $FXTRACE_KO, the module install-test.sh had DKMS build.
magic=$(modinfo -F vermagic "${FXTRACE_KO:-}" 2>/dev/null)
result "$(grep -q '^fxtrace ' /proc/modules && [[ ${FXTRACE_KO:-} == */dkms/* &&
	${magic%% *} == "$(uname -r)" ]] && echo 0 || echo 1)" \
	"fxtrace.ko of the DKMS build is loaded (${FXTRACE_KO:-no FXTRACE_KO}, vermagic ${magic%% *})"

"$root/usr/bin/fxtrace" record -q -c install -o "$work/t.fxt" -- "$work/prog" >"$work/record.log" 2>&1
result $? "the installed fxtrace record runs the program $(tr '\n' ' ' <"$work/record.log")"
"$root/usr/bin/fxtrace" check --strict "$work/t.fxt" >"$work/check.log" 2>&1
result $? "fxtrace check --strict passes on the trace"
"$root/usr/bin/fxtrace" dump "$work/t.fxt" >"$work/dump.txt" 2>&1
begins=$(grep -c 'install.*work' "$work/dump.txt")
ticks=$(grep -c 'install.*tick' "$work/dump.txt")
result "$([[ $begins -ge 20 && $ticks == 10 ]] && echo 0 || echo 1)" \
	"the trace has the program's 10 work slices ($begins begin/end records) and 10 ticks ($ticks)"

"$root/usr/bin/fxtrace" record -q -c install -o "$work/cxx.fxt" -- "$work/prog_cc" >"$work/record-cxx.log" 2>&1
result $? "the installed fxtrace record runs the C++ program $(tr '\n' ' ' <"$work/record-cxx.log")"
"$root/usr/bin/fxtrace" check --strict "$work/cxx.fxt" >"$work/check-cxx.log" 2>&1
result $? "fxtrace check --strict passes on the C++ program's trace"
"$root/usr/bin/fxtrace" dump "$work/cxx.fxt" >"$work/dump-cxx.txt" 2>&1
begins=$(grep -c 'install:cxx_work' "$work/dump-cxx.txt")
ticks=$(grep 'install:cxx_tick' "$work/dump-cxx.txt" | grep -c 'lang="c++"')
result "$([[ $begins == 20 && $ticks == 10 ]] && echo 0 || echo 1)" \
	"the C++ trace has 10 cxx_work slices ($begins begin/end records) and 10 cxx_tick with lang=\"c++\" ($ticks)"

# The flight recorder as fxtrace-recorder.service runs it: its ExecStart,
# with the root's paths (the binary, /etc/fxtrace/recorder.conf) and the
# output moved here; a circular session until SIGTERM, then the trace.
start=$(sed -n 's/^ExecStart=//p' "$root/lib/systemd/system/fxtrace-recorder.service")
cmd=()
for word in $start; do
	[[ $word == /* && -e $root$word ]] && word=$root$word
	cmd+=("$word")
done
"${cmd[@]}" -o "$work/recorder.fxt" >"$work/recorder.log" 2>&1 &
recorder=$!
sleep 3
kill -TERM "$recorder"
wait "$recorder"
rc=$?
"$root/usr/bin/fxtrace" check --strict "$work/recorder.fxt" >>"$work/recorder.log" 2>&1
checked=$?
grep -q '^mode = circular' "$root/etc/fxtrace/recorder.conf"
circular=$?
result "$([[ $rc == 0 && $checked == 0 && $circular == 0 ]] && echo 0 || echo 1)" \
	"fxtrace-recorder.service's command (${cmd[*]##*/}) records a circular session until SIGTERM: exit $rc, check exit $checked $(tr '\n' ' ' <"$work/recorder.log" | head -c 300)"

pages=0
for page in "$root"/usr/share/man/man*/*.gz; do
	zcat "$page" | groff -man -Tutf8 -z 2>>"$work/groff.log" && pages=$((pages + 1))
done
result "$([[ $pages == 4 ]] && echo 0 || echo 1)" \
	"the 4 installed manual pages render ($pages did)"

# Removal: each package's files, then the directories they leave empty.
for list in "$lists"/*; do
	while IFS= read -r f; do rm -f "$root$f"; done <"$list"
done
find "$root" -mindepth 1 -depth -type d -empty -delete
left=$(find "$root" -mindepth 1 | head -n 5)
result "$([[ -z $left ]] && echo 0 || echo 1)" \
	"nothing is left after removing the packages${left:+: $left}"
echo "1..$n"
exit $failed
