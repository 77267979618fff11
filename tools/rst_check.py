#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Usage: tools/rst_check.py FILE.rst...

Parses each reStructuredText file with docutils and prints every warning
and error (a malformed table, a literal block that is not one), naming the
file and line; exit 1 when there is one.  Sphinx's toctree directive is not
docutils': it is accepted unparsed.
"""
import io
import sys

import docutils.core
import docutils.utils
from docutils.parsers.rst import Directive, directives


class SphinxOnly(Directive):
    has_content = True
    optional_arguments = 99

    def run(self):
        return []


directives.register_directive("toctree", SphinxOnly)

failed = False
for path in sys.argv[1:]:
    with open(path, encoding="utf-8") as f:
        text = f.read()
    messages = io.StringIO()
    try:
        docutils.core.publish_doctree(text, source_path=path, settings_overrides={
            "report_level": docutils.utils.Reporter.WARNING_LEVEL,
            "halt_level": docutils.utils.Reporter.SEVERE_LEVEL + 1,
            "warning_stream": messages,
        })
    except docutils.utils.SystemMessage as e:
        messages.write(f"{e}\n")
    if messages.getvalue():
        sys.stdout.write(messages.getvalue())
        failed = True
sys.exit(1 if failed else 0)
