#!/usr/bin/env python3
"""Compiles the C++ snippets of the README and docs/ with a user's compiler.

Usage: check_cpp_snippets.py CXX INCLUDE_DIR FILE.md...

Every ```c++ block of the files is compiled as a user would paste it: a
block with a `main` (the README's program) as a file of its own, any other
as the body of a function of one translation unit, after `#include
<fnc/fnc.h>` (a block's own #include lines go to the top). A snippet that
uses names from the text around it gets them from an HTML comment just
before the block, invisible on the rendered page:

  <!-- snippet-prelude: fnc::Tensor x = fnc::ones({4, 784}); -->

`<!-- snippet: c++20 -->` compiles a block as C++20 (designated
initializers), `<!-- snippet: skip REASON -->` not at all (a declaration
sketch). `...` alone on a line (elided code) is dropped. Compiled with
-fsyntax-only -Wall -Wextra -Werror; `#line` directives make the
compiler's messages name the markdown file and line. Prints one line per
file and exits 1 if any failed.
"""

import os
import re
import subprocess
import sys
import tempfile

BLOCK = re.compile(r"^```(c\+\+|cpp)\n(.*?)^```$", re.M | re.S)
COMMENT = re.compile(r"<!--\s*snippet(-prelude)?:\s*(.*?)-->", re.S)


def snippets(path):
    """Yields (line of the block's first code line, code, prelude, mode)."""
    text = open(path, encoding="utf-8").read()
    for m in BLOCK.finditer(text):
        before = text[:m.start()].rstrip()
        prelude, mode = "", ""
        # The comments directly above the block (nothing else between).
        while before.endswith("-->"):
            start = before.rfind("<!--")
            c = COMMENT.fullmatch(before[start:])
            if not c:
                break
            if c.group(1):
                prelude = c.group(2).strip() + "\n" + prelude
            else:
                mode = c.group(2).strip()
            before = before[:start].rstrip()
        line = text.count("\n", 0, m.start(2)) + 1
        yield line, m.group(2), prelude, mode


def unit(path, blocks):
    """One translation unit: each block in a function of its own."""
    includes, bodies = [], []
    for i, (line, code, prelude, _) in enumerate(blocks):
        lines = []
        for n, l in enumerate(code.splitlines()):
            if l.startswith("#include"):
                includes.append(l)
                lines.append("")
            elif l.strip() == "...":
                lines.append("")
            else:
                lines.append(l.replace(" ... ", " /* ... */ "))
        bodies.append(
            "void snippet%d() {\n%s\n#line %d \"%s\"\n%s\n}\n"
            % (i, prelude, line, path, "\n".join(lines)))
    head = "#include <fnc/fnc.h>\n#include <iostream>\n" + "\n".join(
        sorted(set(includes)))
    return head + "\n#pragma GCC diagnostic ignored \"-Wunused-variable\"\n#pragma GCC diagnostic ignored \"-Wunused-but-set-variable\"\n" + \
        "\n".join(bodies)


def compile_text(cxx, include, std, text, where):
    with tempfile.NamedTemporaryFile("w", suffix=".cpp", delete=False) as f:
        f.write(text)
    try:
        r = subprocess.run([cxx, "-std=" + std, "-fsyntax-only", "-Wall",
                            "-Wextra", "-Werror", "-I", include, f.name],
                           capture_output=True, text=True)
    finally:
        os.unlink(f.name)
    if r.returncode != 0:
        print("error: %s: %s rejects it:\n%s" % (where, cxx, r.stderr))
        return False
    return True


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    cxx, include, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    failures = count = 0
    for path in files:
        name = os.path.basename(os.path.dirname(path)) + "/" + \
            os.path.basename(path)
        groups = {"c++17": [], "c++20": []}
        for line, code, prelude, mode in snippets(path):
            if mode.startswith("skip"):
                continue
            count += 1
            std = "c++20" if mode == "c++20" else "c++17"
            if re.search(r"\bint main\(", code):
                ok = compile_text(cxx, include, std,
                                  '#line %d "%s"\n%s' % (line, name, code),
                                  "%s:%d" % (name, line))
                failures += not ok
            else:
                groups[std].append((line, code, prelude, mode))
        for std, blocks in groups.items():
            if blocks and not compile_text(cxx, include, std,
                                           unit(name, blocks), name):
                failures += 1
    print("%d snippets, %d failures" % (count, failures))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
