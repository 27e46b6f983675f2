#!/usr/bin/env python3
"""Checks that a checked-in generated file is current.

Usage: check_current.py CHECKED_IN GENERATED

docs/DialectReference.md and docs/ApiToOps.md are copies of what the build
generates from FncOps.td (build/docs/). Exits 1 with a diff and the command
that updates the copy when CHECKED_IN differs from GENERATED.
"""

import difflib
import sys


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    checked_in, generated = sys.argv[1], sys.argv[2]
    with open(checked_in) as f:
        old = f.readlines()
    with open(generated) as f:
        new = f.readlines()
    if old == new:
        return
    diff = list(difflib.unified_diff(old, new, checked_in, generated))
    sys.stdout.writelines(diff[:60])
    if len(diff) > 60:
        print(f"... ({len(diff) - 60} more diff lines)")
    print(f"error: {checked_in} is stale: it differs from {generated}, "
          "which the build generates from the ODS definitions. Run "
          "`ninja -C build fnc-doc-update` and commit the result.")
    sys.exit(1)


if __name__ == "__main__":
    main()
