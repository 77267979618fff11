#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: run the user-space benchmark; the table goes to stdout and
# the figures to build/bench/user.json.
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p build/bench
build/bin/user_bench build/bench/user.json
echo "figures: build/bench/user.json"
