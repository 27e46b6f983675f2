#!/usr/bin/env python3
# Writes the seed corpora of the libFuzzer targets (scripts/fuzz.sh) from
# the repository:
#   fnc-fuzz-mlir      every .mlir file of test/ and examples/, split at
#                      `// -----` lines
#   fnc-fuzz-interpreter  the same
#   fnc-fuzz-inputs    byte 0 + every inline `--input=` literal of test/,
#                      examples/ and the README; byte 1 + small .npy files
#                      of every supported dtype (v1 and v2 headers, both
#                      byte orders, Fortran order)
#   fnc-fuzz-function  a few fixed byte strings per program kind
# Usage: fuzz-seeds.py ROOT OUTDIR (OUTDIR/<target>/ is created).
import hashlib
import os
import random
import re
import struct
import sys

root, out = sys.argv[1], sys.argv[2]


def write(target, data):
    d = os.path.join(out, target)
    os.makedirs(d, exist_ok=True)
    name = hashlib.sha1(data).hexdigest()
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def sources(exts):
    for top in ("test", "examples"):
        for dirpath, dirs, files in os.walk(os.path.join(root, top)):
            dirs[:] = [d for d in dirs if d != "fuzz"]
            for f in sorted(files):
                if f.endswith(exts):
                    yield os.path.join(dirpath, f)


# .mlir modules, one seed per split.
for path in sources((".mlir",)):
    text = open(path, "rb").read().decode("utf-8", "replace")
    for chunk in re.split(r"^// -----.*$", text, flags=re.M):
        if chunk.strip():
            write("fnc-fuzz-mlir", chunk.encode())
            write("fnc-fuzz-interpreter", chunk.encode())

# Inline --input literals (not @file ones).
literal = re.compile(r"--input=([^\s@'\"][^\s'\"]*)")
texts = [os.path.join(root, "README.md")]
texts += list(sources((".mlir", ".cpp", ".py", ".cmake")))
for path in texts:
    for m in literal.finditer(open(path, "rb").read().decode("utf-8", "replace")):
        write("fnc-fuzz-inputs", b"\x00" + m.group(1).encode())


def npy(descr, dims, values, v2=False, fortran=False):
    codes = {"f4": "f", "f8": "d", "i4": "i", "i8": "q", "b1": "?", "u1": "B",
             "i2": "h", "u4": "I"}
    order = ">" if descr[0] == ">" else "<"
    data = struct.pack(order + codes[descr[1:]] * len(values), *values)
    header = "{'descr': '%s', 'fortran_order': %s, 'shape': %r, }" % (
        descr, fortran, tuple(dims))
    prefix = 12 if v2 else 10
    header += " " * ((64 - (prefix + len(header) + 1) % 64) % 64) + "\n"
    size = struct.pack("<I" if v2 else "<H", len(header))
    return (b"\x93NUMPY" + (b"\x02\x00" if v2 else b"\x01\x00") + size +
            header.encode("latin1") + data)


for descr in ("<f4", "<f8", "<i4", "<i8", "|b1", "|u1", ">i2", ">f8", "<u4"):
    for dims in ((), (3,), (2, 3), (1, 0, 2)):
        count = 1
        for d in dims:
            count *= d
        if descr == "|b1":
            values = [i % 2 == 0 for i in range(count)]
        elif descr[1] == "f":
            values = [i * 0.5 - 1 for i in range(count)]
        elif descr[1] == "u":
            values = [i + 2 for i in range(count)]
        else:
            values = [i - 2 for i in range(count)]
        for v2 in (False, True):
            write("fnc-fuzz-inputs", b"\x01" + npy(descr, dims, values, v2))
        if len(dims) > 1:
            write("fnc-fuzz-inputs",
                  b"\x01" + npy(descr, dims, values, fortran=True))

# Random programs: the first byte picks the kind, the rest drives the
# generator.
rng = random.Random(1)
for kind in range(3):
    for _ in range(4):
        write("fnc-fuzz-function",
              bytes([kind]) + bytes(rng.randrange(256) for _ in range(64)))
