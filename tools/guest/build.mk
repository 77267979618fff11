# SPDX-License-Identifier: GPL-2.0
# The guest bench: its host-side judges are tested on the host.
UNIT_TESTS += tools/guest/tests/vmalloc_leaks_test.sh
