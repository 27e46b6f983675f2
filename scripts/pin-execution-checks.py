#!/usr/bin/env python3
"""Regenerates the expected-output CHECK lines of an execution test.

For each `// RUN: fnc-run %s --entry=NAME ... | FileCheck %s
--check-prefix=P` line (without --interpret), runs the command and writes
the output as `// P:` / `// P-NEXT:` lines right above `func.func @NAME`,
replacing the old ones. The --interpret RUN lines of the same prefix then
check that the reference interpreter prints the same. Read every value it
pins before committing: this records what the JIT does, it does not know
what is right.

usage: scripts/pin-execution-checks.py test/Execution/FILE.mlir [build dir]
"""
import re
import subprocess
import sys

path = sys.argv[1]
build = sys.argv[2] if len(sys.argv) > 2 else "build"
text = open(path).read()

blocks = {}
for m in re.finditer(r"// RUN: fnc-run %s (--entry=(\S+).*?) \| FileCheck %s "
                     r"--check-prefix=(\w+)", text):
    args, entry, prefix = m.group(1), m.group(2), m.group(3)
    if "--interpret" in args:
        continue
    out = subprocess.run(f"{build}/bin/fnc-run {path} {args}", shell=True,
                         capture_output=True, text=True, check=True).stdout
    lines, first = [], True
    for line in out.splitlines():
        # '[[' opens a FileCheck variable: spell it as a regex.
        line = line.rstrip().replace("[[", "{{\\[\\[}}")
        starts = first or line.startswith("fnc.Tensor(")
        if not line:  # the blank line between the blocks of a 3-D tensor
            lines.append(f"// {prefix}-EMPTY:")
            continue
        lines.append(f"// {prefix}{'' if starts else '-NEXT'}: {line}")
        first = False
    blocks.setdefault(entry, []).append((prefix, lines))

prefixes = {p for entries in blocks.values() for p, _ in entries}
result = []
for line in text.splitlines():
    m = re.match(r"// (\w+?)(-NEXT|-EMPTY)?:", line)
    if m and m.group(1) in prefixes:
        continue
    f = re.match(r"func\.func @(\w+)\(", line)
    if f and f.group(1) in blocks:
        for _, lines in blocks[f.group(1)]:
            result.extend(lines)
    result.append(line)
open(path, "w").write("\n".join(result) + "\n")
