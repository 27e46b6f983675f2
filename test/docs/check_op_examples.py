#!/usr/bin/env python3
"""Checks the examples of the generated dialect reference.

Usage: check_op_examples.py REFERENCE.md FNC_OPT [--pipeline]

REFERENCE.md is the markdown mlir-tblgen writes from FncOps.td (one
"### `fnc.<op>`" section per op, and sections for the types). Every op
section must hold at least one ```mlir block that uses the op, and every
block of every section (types too) must be a complete module
that `fnc-opt` parses and verifies as written (with --verify-roundtrip: the
printed form parses back to the same IR); with --pipeline it must also
compile through the whole fnc pipeline (`--fnc-pipeline`), except a block
with string tensors (`!fnc.string`), which the pipeline must refuse with
its "are not compiled" error (strings run on the interpreter). Prints one line
per failure, naming the op and fnc-opt's diagnostic, and exits 1 if any.
"""

import re
import subprocess
import sys


def sections(markdown):
    """Yields (title, section text) for each level-2 and level-3 section;
    the title of an op's section is the op name."""
    parts = re.split(r"^###? (.*)$", markdown, flags=re.M)
    for i in range(1, len(parts), 2):
        op = re.match(r"`(fnc\.[a-z0-9_]+)`", parts[i])
        yield (op.group(1) if op else parts[i]), bool(op), parts[i + 1]


def examples(section):
    return re.findall(r"^```mlir\n(.*?)^```$", section, flags=re.M | re.S)


def run(fnc_opt, args, text):
    return subprocess.run([fnc_opt] + args, input=text, capture_output=True,
                          text=True)


def main():
    if len(sys.argv) not in (3, 4) or (len(sys.argv) == 4 and
                                       sys.argv[3] != "--pipeline"):
        sys.exit(__doc__)
    reference, fnc_opt = sys.argv[1], sys.argv[2]
    pipeline = len(sys.argv) == 4
    with open(reference) as f:
        markdown = f.read()
    failures = []
    ops = 0
    blocks = 0
    for title, is_op, section in sections(markdown):
        found = examples(section)
        if is_op:
            ops += 1
            if not found:
                failures.append(
                    f"{title}: no ```mlir example in its description")
            elif not any(
                    re.search(re.escape(title) + r"[\s(]", e) for e in found):
                failures.append(f"{title}: no example uses {title}")
        for example in found:
            blocks += 1
            # String tensors run on the interpreter: the pipeline must
            # refuse them with its message, not crash or compile them.
            strings = "!fnc.string" in example
            for args in [["--verify-roundtrip"]] + (
                    [["--fnc-pipeline"]] if pipeline else []):
                result = run(fnc_opt, args + ["-o", "/dev/null"], example)
                refused = strings and args == ["--fnc-pipeline"]
                if refused and (result.returncode == 0 or
                                "are not compiled" not in result.stderr):
                    failures.append(
                        f"{title}: `fnc-opt --fnc-pipeline` does not refuse "
                        f"its string example:\n{example}{result.stderr}")
                elif not refused and result.returncode != 0:
                    failures.append(
                        f"{title}: `fnc-opt {' '.join(args)}` rejects its "
                        f"example:\n{example}{result.stderr}")
    if ops == 0:
        failures.append(f"{reference}: no op sections (### `fnc.<op>`)")
    for failure in failures:
        print(f"error: {failure}")
    print(f"{ops} ops, {blocks} examples, {len(failures)} failures")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
