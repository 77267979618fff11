#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The rule corpus of the differential test against Perfetto, without Perfetto:
# user/reader/tests/perfetto-corpus/ holds mutants of valid traces that
# Perfetto's trace processor refused (its import failed, or it left a stats row
# of severity error or data_loss), smallest per reason, and EXPECTED lists each
# with the verdict `fxtrace check --strict` must give and Perfetto's reason:
# refuse (exit 1), partial (exit 3: a drainer file whose errors all lie past
# its flush mark; Perfetto reads them, check fails as differential.sh counts
# it), accept (exit 0), or open (Perfetto refuses it and check does not yet:
# reported as a skip until a rule makes check refuse it).
# TAP output; run by make check.
# Documentation/perfetto.rst tells how the corpus was made and how to remake it.

set -uo pipefail
cd "$(dirname "$0")/../../.." || exit 1

fxtrace=${B:-build}/bin/fxtrace
corpus=user/reader/tests/perfetto-corpus
n=$(grep -c '^[^#]' "$corpus/EXPECTED")
echo "1..$n"
i=0 failed=0
while read -r file verdict reason; do
	[[ $file == \#* || -z $file ]] && continue
	i=$((i + 1))
	"$fxtrace" check --strict --quiet "$corpus/$file" >/dev/null 2>&1
	rc=$?
	case $verdict in
	refuse) want=1 ;;
	partial) want=3 ;;
	accept) want=0 ;;
	open)
		# Perfetto refuses it, check --strict does not yet: a known gap
		# (Documentation/perfetto.rst), counted as skipped, never passed.
		if ((rc == 1)); then
			echo "not ok $i - $file: check --strict refuses it now: mark it refuse"
			failed=$((failed + 1))
		else
			echo "ok $i - $file # SKIP open: Perfetto refuses it ($reason), check --strict passes it"
		fi
		continue
		;;
	*) want=bad ;;
	esac
	if [[ $rc == "$want" ]]; then
		echo "ok $i - $file: check --strict exits $rc: $verdict ($reason)"
	else
		echo "not ok $i - $file: check --strict exits $rc, expected $want ($reason)"
		failed=$((failed + 1))
	fi
done <"$corpus/EXPECTED"
((failed == 0))
