#!/usr/bin/env python3
"""Checks that every ctest test of a build has LABELS and a TIMEOUT.

Usage: check_test_properties.py CTEST BUILD_DIR

Lists the tests with `ctest --show-only=json-v1` (the unit tests' names come
from their binaries, as when ctest runs them) and prints each one that lacks
either property. A test without a timeout could hang the whole run; one
without a label is left out of `ctest -L ...` selections.
"""
import json
import subprocess
import sys


def main():
    ctest, build = sys.argv[1], sys.argv[2]
    listing = subprocess.run([ctest, "--show-only=json-v1"], cwd=build,
                             check=True, capture_output=True, text=True)
    tests = json.loads(listing.stdout)["tests"]
    bad = []
    for test in tests:
        names = {p["name"] for p in test.get("properties", [])}
        missing = [p for p in ("LABELS", "TIMEOUT") if p not in names]
        if missing:
            bad.append(f"{test['name']}: no {' and no '.join(missing)}")
    if bad:
        print("tests without LABELS or TIMEOUT (set both where the test is "
              "added; unit tests get them from fnc_unittest):")
        print("\n".join("  " + b for b in bad))
        return 1
    print(f"{len(tests)} tests, each with LABELS and a TIMEOUT")
    return 0


if __name__ == "__main__":
    sys.exit(main())
