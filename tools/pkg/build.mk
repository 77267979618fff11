# SPDX-License-Identifier: GPL-2.0
# Packaging (Documentation/install.rst); its host tests.
UNIT_TESTS += tools/pkg/completion_test.sh
UNIT_TESTS += tools/pkg/recorder_unit_test.sh
UNIT_TESTS += tools/pkg/modprobe_conf_test.py
