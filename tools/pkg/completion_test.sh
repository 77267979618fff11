#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Description: the bash completion (dist/bash-completion/fxtrace) offers
# the commands `fxtrace` lists, a command's long options from its --help,
# the modes after -m, and fxtrace-drain's short options and its long ones
# without a short form.  Prints TAP.
# B (default build) is the build directory.

set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$root/${B:-build}/bin
completion=/usr/share/bash-completion/bash_completion
[[ -r $completion ]] || { echo "1..0 # SKIP no $completion (bash-completion)"; exit 77; }
# shellcheck source=/dev/null
source "$completion"
# shellcheck source=../../dist/bash-completion/fxtrace
source "$root/dist/bash-completion/fxtrace"
n=0 failed=0

result() {
	n=$((n + 1))
	if [[ $1 == 0 ]]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi
}

# complete FUNCTION WORD...: COMPREPLY for the command line WORD..., the
# last word being completed; "--mode = o" is typed --mode=o, as bash breaks it.
complete_words() {
	local fn=$1
	shift
	COMP_WORDS=("$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMP_LINE="${COMP_WORDS[*]}"
	COMP_LINE=${COMP_LINE// = /=} # a word "=" was typed without blanks
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	"$fn" "${COMP_WORDS[0]}" "${COMP_WORDS[-1]}" "${COMP_WORDS[-2]}" 2>/dev/null
	echo "${COMPREPLY[*]}"
}

commands=$("$bin/fxtrace" | sed -n 's/^  \([a-z][a-z-]*\)  .*/\1/p' | tr '\n' ' ')
got=$(complete_words _fxtrace "$bin/fxtrace" "")
result "$([[ -n $commands && $got == "${commands}help" ]] && echo 0 || echo 1)" \
	"fxtrace TAB: the listed commands and help ($got)"
got=$(complete_words _fxtrace "$bin/fxtrace" rec)
result "$([[ $got == "record recover" ]] && echo 0 || echo 1)" "fxtrace rec TAB: $got"
got=$(complete_words _fxtrace "$bin/fxtrace" record --ou)
result "$([[ $got == "--output=" ]] && echo 0 || echo 1)" "fxtrace record --ou TAB: $got"
got=$(complete_words _fxtrace "$bin/fxtrace" record -m "")
result "$([[ $got == "streaming oneshot circular" ]] && echo 0 || echo 1)" "fxtrace record -m TAB: $got"
got=$(complete_words _fxtrace "$bin/fxtrace" report --format "")
result "$([[ $got == "text json" ]] && echo 0 || echo 1)" "fxtrace report --format TAB: $got"
got=$(complete_words _fxtrace "$bin/fxtrace" export --format "")
result "$([[ $got == "json" ]] && echo 0 || echo 1)" "fxtrace export --format TAB: $got"
# --OPTION=VALUE: bash breaks the word at '=', the value is completed.
got=$(complete_words _fxtrace "$bin/fxtrace" record --mode = o)
result "$([[ $got == "oneshot" ]] && echo 0 || echo 1)" "fxtrace record --mode=o TAB: $got"
got=$(complete_words _fxtrace "$bin/fxtrace" list "")
result "$([[ $got == "kernel tracepoints probes user" ]] && echo 0 || echo 1)" \
	"fxtrace list TAB: the sections ($got)"
# Outputs of any name, not only *.fxt; a directory for --tracefs.
scratch=$(mktemp -d)
touch "$scratch/t.fxt" "$scratch/page.html"
mkdir "$scratch/tracing"
got=$(cd "$scratch" && complete_words _fxtrace "$bin/fxtrace" report --html p)
result "$([[ $got == "page.html" ]] && echo 0 || echo 1)" "fxtrace report --html p TAB: $got"
got=$(cd "$scratch" && complete_words _fxtrace "$bin/fxtrace" list --tracefs "")
result "$([[ $got == "tracing" ]] && echo 0 || echo 1)" "fxtrace list --tracefs TAB: $got"
# The trace to read after -i: traces (and directories), not other files.
got=$(cd "$scratch" && complete_words _fxtrace "$bin/fxtrace" report -i "")
result "$([[ $got == "t.fxt tracing" || $got == "tracing t.fxt" ]] && echo 0 || echo 1)" \
	"fxtrace report -i TAB: $got"
rm -rf "$scratch"
got=$(complete_words _fxtrace_drain "$bin/fxtrace-drain" -)
result "$([[ " $got " == *" -C "* && " $got " == *" -o "* && " $got " == *" --probe "* ]] &&
	echo 0 || echo 1)" "fxtrace-drain - TAB: $got"
# A long option with no short form: from the help too.
got=$(complete_words _fxtrace_drain "$bin/fxtrace-drain" --sh)
result "$([[ $got == "--shared-flows" ]] && echo 0 || echo 1)" "fxtrace-drain --sh TAB: $got"
got=$(complete_words _fxtrace "$bin/fxtrace" record --sh)
result "$([[ $got == "--shared-flows" ]] && echo 0 || echo 1)" "fxtrace record --sh TAB: $got"
got=$(complete_words _fxtrace_drain "$bin/fxtrace-drain" --no-sh)
result "$([[ $got == "--no-shared-flows" ]] && echo 0 || echo 1)" "fxtrace-drain --no-sh TAB: $got"
got=$(complete_words _fxtrace "$bin/fxtrace" record --no-sh)
result "$([[ $got == "--no-shared-flows" ]] && echo 0 || echo 1)" "fxtrace record --no-sh TAB: $got"
got=$(complete_words _fxtrace_drain "$bin/fxtrace-drain" --snap)
result "$([[ $got == "--snapshot-retired" ]] && echo 0 || echo 1)" "fxtrace-drain --snap TAB: $got"
got=$(complete_words _fxtrace "$bin/fxtrace" record --snap)
result "$([[ $got == "--snapshot-retired=" ]] && echo 0 || echo 1)" "fxtrace record --snap TAB: $got"
echo "1..$n"
exit $failed
