#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: install what is missing, build with gcc and clang, run the unit
# tests, the sanitized tests, the fuzz smoke, checkpatch and sparse, build
# the module for 6.1 and 6.12 and for their PREEMPT_RT flavours, then run
# the guest tests on 6.1 (clocks auto and tsc) and 6.12 (auto).  Every step is counted; the last
# line is "N passed, N failed, N skipped".  Logs: build/check/.
#
# Environment: FUZZ_SECONDS (default 60), CHECK_SKIP_GUEST=1 to stop before
# the guest (for quick local runs; CI never sets it).

set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
logs=build/check
rm -rf "$logs"
mkdir -p "$logs"

passed=0 failed=0 skipped=0
failures=()
start=$SECONDS

pass() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); failures+=("$1"); echo "FAIL: $1" >&2; }
skip() { skipped=$((skipped + 1)); }

# Count the TAP results in a log: "ok N ...", "not ok N ...", "# SKIP".
count_tap() {
	local log=$1 what=$2 line
	while IFS= read -r line; do
		case $line in
		"not ok "*) fail "$what: ${line#not ok }" ;;
		"ok "*"# SKIP"*) skip ;;
		"ok "*) pass ;;
		esac
	done < <(grep -E '^(not )?ok [0-9]+' "$log")
}

# step NAME COMMAND...: one counted step; output in $logs/NAME.log.
step() {
	local name=$1 t0=$SECONDS rc
	shift
	"$@" >"$logs/$name.log" 2>&1
	rc=$?
	if ((rc == 0)); then
		pass
	else
		fail "$name (exit $rc, see $logs/$name.log)"
		tail -n 20 "$logs/$name.log" >&2
	fi
	printf '  %-24s %s %4ds\n' "$name" "$([ $rc = 0 ] && echo ok || echo FAILED)" \
		$((SECONDS - t0)) >&2
	return $rc
}

if ! step deps tools/deps.sh; then
	echo "0 passed, 1 failed, 0 skipped" && exit 1
fi

kdir61=$(tools/guest/kernel.sh kdir 6.1)
kdir612=$(tools/guest/kernel.sh kdir 6.12)

step build-gcc make -j2 CC=gcc user
step build-clang make -j2 CC=clang B=build/clang user

# Every shell script outside build/ through shellcheck: *.sh, a sh/bash/dash
# shebang, or a "shellcheck shell=" directive (sourced files); each in the
# dialect it declares, sourced files followed; any finding fails.
shell_scripts() {
	local f first shebang='^#!.*[/ ](ba|da)?sh( |$)'
	while IFS= read -r f; do
		[[ -f $f && $f != build/* ]] || continue
		IFS= read -r first <"$f"
		if [[ $f == *.sh || $first =~ $shebang ]] ||
			head -n 5 "$f" | grep -q '^# shellcheck shell='; then
			echo "$f"
		fi
	done < <(git ls-files --cached --others --exclude-standard)
}
shellcheck_all() {
	local files
	mapfile -t files < <(shell_scripts)
	echo "shellcheck: ${#files[@]} scripts"
	shellcheck -x -P SCRIPTDIR "${files[@]}"
}
step shellcheck shellcheck_all
# Every page of Documentation/ parses without a docutils warning (a malformed
# table or literal block renders wrong, and rst2man fails on it in a man page).
step rst python3 tools/rst_check.py Documentation/*.rst Documentation/man/*.rst

# Unit tests: one result per TAP line, or per program when it prints none.
for t in $(make -s print-UNIT_TESTS); do
	name=unit-$(basename "$t")
	timeout 300 "$t" >"$logs/$name.log" 2>&1
	rc=$?
	if grep -qE '^(not )?ok [0-9]+' "$logs/$name.log"; then
		count_tap "$logs/$name.log" "$name"
		((rc == 0 || rc == 77)) || fail "$name exited $rc"
	elif ((rc == 0)); then
		pass
	elif ((rc == 77)); then
		skip
	else
		fail "$name (exit $rc, see $logs/$name.log)"
	fi
done
echo "  unit tests done $((SECONDS - start))s" >&2

# The tests of the code that reads untrusted bytes (the drainer's output
# path, the decoder, the fxtrace command on trace files) again under
# AddressSanitizer and UndefinedBehaviorSanitizer: a read or write past a
# bound that changes no verdict shows only there (Documentation/testing.rst,
# "The sanitizer run").
sanitized_tests=(test/drain/output_test test/reader/decode_test
	test/reader/corpus_test test/reader/map_test test/reader/cli_test
	test/fxtrace/print_test test/fxt_encode_test)
sanitizers() {
	local t
	make -j2 B=build/asan EXTRA_CFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" \
		build/asan/bin/fxtrace "${sanitized_tests[@]/#/build/asan/}" || return 1
	for t in "${sanitized_tests[@]}"; do
		echo "== $t"
		"build/asan/$t" || return 1
	done
}
step sanitizers sanitizers

if [[ -x user/reader/fuzz/run.sh ]]; then
	step fuzz-smoke user/reader/fuzz/run.sh "${FUZZ_SECONDS:-60}"
fi

checkpatch() {
	local out files
	# Our sources only, not what kbuild generates next to them.
	files=$(git ls-files --cached --others --exclude-standard kmod uapi | grep '\.[ch]$')
	# shellcheck disable=SC2086
	out=$(perl build/linux-source/scripts/checkpatch.pl --strict --no-tree --quiet \
		-f $files 2>&1)
	[[ -z $out ]] || { echo "$out"; return 1; }
}
step checkpatch checkpatch

# Module builds in copies of the sources, so that the 6.12 and sparse builds
# do not disturb kmod/fxtrace.ko, which is built for the 6.1 guest.
module_copy() {
	local dir=$1
	rm -rf "$dir" && mkdir -p "$dir" && cp -r Kbuild kmod uapi "$dir"/ &&
		find "$dir" \( -name '*.o' -o -name '*.ko' -o -name '.*.cmd' \) -delete
}
sparse() {
	local dir=build/module-sparse out
	module_copy "$dir"
	make -C "$kdir61" M="$PWD/$dir" C=2 modules >"$logs/sparse-build.log" 2>&1 ||
		{ cat "$logs/sparse-build.log"; return 1; }
	# sparse and compiler diagnostics name our files: any such line fails.
	out=$(grep -E '(kmod|uapi)/[^:]+:[0-9]+:[0-9]+: (warning|error)' "$logs/sparse-build.log")
	[[ -z $out ]] || { echo "$out"; return 1; }
}
build612() {
	local dir=build/module-6.12
	module_copy "$dir"
	make -C "$kdir612" M="$PWD/$dir" CONFIG_DEBUG_INFO_BTF_MODULES= modules
}
# PREEMPT_RT (Debian's -rt-amd64 flavours, headers only): the module must
# build there too, without a warning on our files.
build_rt() {
	local ver=$1 dir=build/module-rt-$1 kdir
	kdir=$(tools/guest/kernel.sh rt-kdir "$ver") || return 1
	module_copy "$dir"
	make -C "$kdir" M="$PWD/$dir" CONFIG_DEBUG_INFO_BTF_MODULES= modules 2>&1 |
		tee "$logs/module-rt-$ver-build.log"
	((PIPESTATUS[0] == 0)) || return 1
	! grep -E '(kmod|uapi)/[^:]+:[0-9]+:[0-9]+: (warning|error)' "$logs/module-rt-$ver-build.log"
}
step module-6.1 make modules KDIR="$kdir61"
step sparse-6.1 sparse
step module-6.12 build612
step module-rt-6.1 build_rt 6.1
step module-rt-6.12 build_rt 6.12
# Packaging (Documentation/install.rst): DKMS for both kernels, the .debs
# and lintian.
step dkms-build tools/pkg/dkms-build.sh
step deb-build tools/pkg/deb-build.sh

# The guest suite, once per kernel and clock: 6.1 with both clocks (the
# guest's TSC is not invariant, so "auto" picks CLOCK_MONOTONIC there), 6.12
# with auto; 3.5 to 6 minutes each (Documentation/testing.rst).
if [[ ${CHECK_SKIP_GUEST:-} != 1 ]]; then
	read -ra guest_tests <<<"$(make -s print-GUEST_TESTS)"
	# The TSC run repeats what reads the module's clock (kernel records,
	# their merge with user and probe events); the fuzzer, the hostile,
	# contention and lifecycle tests and the soak do not depend on it.
	tsc_tests=()
	for test in "${guest_tests[@]}"; do
		case ${test##*/} in
		kselftest_guest.sh)
			tsc_tests+=("$test events_test fxtrace_test modes_test streaming_test") ;;
		soak_test.sh | unwind_test.sh | list_test.sh | module_scopes_test.sh) ;;
		pty_test.sh | robust_test.sh) ;;
		*) tsc_tests+=("$test") ;;
		esac
	done
	has_clock=0
	modinfo -F parm kmod/fxtrace.ko | grep -q '^clock:' && has_clock=1
	for run in 6.1:auto 6.1:tsc 6.12:auto; do
		ver=${run%%:*} clock=${run#*:}
		ko=kmod/fxtrace.ko
		[[ $ver == 6.12 ]] && ko=build/module-6.12/kmod/fxtrace.ko
		params=
		if ((has_clock)); then
			params="clock=$clock"
		elif [[ $clock != auto ]]; then
			continue
		fi
		name=guest-$ver-$clock
		out=$logs/$name
		t0=$SECONDS
		tests=("${guest_tests[@]}")
		[[ $clock == tsc ]] && tests=("${tsc_tests[@]}")
		tools/guest/run.sh -k "$ver" -t 900 -m "$ko" -p "$params" -o "$out" \
			"${tests[@]}" >"$logs/$name.log" 2>&1
		rc=$?
		for log in "$out"/*.log; do
			[[ -e $log ]] && count_tap "$log" "guest($ver $clock) $(basename "$log" .log)"
		done
		if ((rc == 0)); then
			pass
		else
			fail "guest run $ver clock=$clock (exit $rc, see $logs/$name.log)"
			tail -n 20 "$logs/$name.log" >&2
		fi
		echo "  guest $ver clock=$clock $((SECONDS - t0))s" >&2
	done
	# The packages installed in a clean root, used in the guest
	# (Documentation/install.rst); its TAP lines count too.
	step install-test tools/pkg/install-test.sh &&
		count_tap "$logs/install-test.log" install-test
fi

# Perfetto's trace processor as an oracle (tools/perfetto/, Documentation/
# perfetto.rst): imports every trace above and mutants of the corpus; a skip
# without a trace processor, never a pass.
for t in oracle differential; do
	tools/perfetto/$t.sh >"$logs/perfetto-$t.log" 2>&1
	case $? in
	0) pass ;;
	77) skip ;;
	*) fail "perfetto-$t (see $logs/perfetto-$t.log)" ;;
	esac
	echo "  perfetto-$t: $(tail -n 1 "$logs/perfetto-$t.log")" >&2
done

echo "make check: $((SECONDS - start))s; logs in $logs" >&2
for f in "${failures[@]}"; do echo "  failed: $f" >&2; done
echo "$passed passed, $failed failed, $skipped skipped"
((failed == 0))
