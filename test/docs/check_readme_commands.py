#!/usr/bin/env python3
"""Runs the commands of the README as written.

Usage: check_readme_commands.py README.md SOURCE_DIR TOOLS_DIR WORK_DIR

Every line of the README's ```sh blocks is a command (a trailing `# ...` is
a comment; a trailing backslash continues the line). Each `build/bin/TOOL`
command runs in order in WORK_DIR, where `examples` links to
SOURCE_DIR/examples and `build/bin` to TOOLS_DIR (the build under test), so
it runs exactly as written from the repository root, and the files it writes
stay in WORK_DIR. A command must exit with 0; a comment of the form
`# prints: TEXT` also requires TEXT in its standard output. The set-up
commands `scripts/demo.sh` and `scripts/test.sh` build the project, so they
are not run here: CI (.ci/run) runs both. Any other command is an error, so
that a new kind of README command gets a check. Prints one line per command
and exits 1 if any failed.
"""

import os
import re
import shlex
import subprocess
import sys

# Run by .ci/run, not here (they install and build).
SETUP_COMMANDS = {"scripts/demo.sh", "scripts/test.sh"}


def commands(readme):
    """Yields (line number, command text, comment) for each ```sh line."""
    in_sh = False
    pending = None
    for number, line in enumerate(readme.splitlines(), 1):
        if line.startswith("```"):
            in_sh = line.strip() == "```sh" and not in_sh
            continue
        if not in_sh or not line.strip():
            continue
        if pending:
            start, text = pending
            line = text + " " + line.strip()
        else:
            start = number
        if line.rstrip().endswith("\\"):
            pending = (start, line.rstrip()[:-1].rstrip())
            continue
        pending = None
        code, _, comment = line.partition(" #")
        if line.lstrip().startswith("#"):
            code, comment = "", line.lstrip()[1:]
        yield start, code.strip(), comment.strip()


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    readme, source, tools, work = sys.argv[1:]
    os.makedirs(os.path.join(work, "build"), exist_ok=True)
    for link, target in [("examples", os.path.join(source, "examples")),
                         (os.path.join("build", "bin"), tools)]:
        path = os.path.join(work, link)
        if os.path.lexists(path):
            os.remove(path)
        os.symlink(os.path.abspath(target), path)
    with open(readme) as f:
        text = f.read()
    failures = 0
    ran = 0
    for number, code, comment in commands(text):
        if not code:
            continue
        argv = shlex.split(code)
        where = f"{readme}:{number}: `{code}`"
        if argv[0] in SETUP_COMMANDS:
            print(f"skipped (run by .ci/run): {where}")
            continue
        if not argv[0].startswith("build/bin/"):
            print(f"error: {where}: not a build/bin/ tool or a set-up "
                  "command; teach check_readme_commands.py to check it")
            failures += 1
            continue
        ran += 1
        result = subprocess.run(argv, cwd=work, capture_output=True,
                                text=True)
        expected = re.match(r"prints: (.*)", comment)
        if result.returncode != 0:
            print(f"error: {where} exits with {result.returncode}:\n"
                  f"{result.stderr}")
            failures += 1
        elif expected and expected.group(1) not in result.stdout:
            print(f"error: {where} does not print `{expected.group(1)}`; "
                  f"its output:\n{result.stdout}")
            failures += 1
        else:
            print(f"ok: {where}")
    if ran == 0:
        print(f"error: {readme} has no build/bin/ command in a ```sh block")
        failures += 1
    print(f"{ran} commands run, {failures} failures")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
