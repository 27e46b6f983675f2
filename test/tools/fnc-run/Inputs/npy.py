# Writes a .npy file without numpy, for fnc-run's tests:
#   npy.py OUT DESCR SHAPE [--fortran] [--v2] [--values=1,2,...]
# SHAPE is like 2x3 ('' for a scalar). Without --values the data is zeros.
import struct
import sys

out, descr, shape = sys.argv[1], sys.argv[2], sys.argv[3]
flags = sys.argv[4:]
dims = tuple(int(d) for d in shape.split("x") if d)
count = 1
for d in dims:
    count *= d
values = None
for f in flags:
    if f.startswith("--values="):
        values = [float(v) for v in f[len("--values="):].split(",")]
if values is None:
    values = [0] * count
codes = {"f4": "f", "f8": "d", "i4": "i", "i8": "q", "b1": "?", "u1": "B",
         "u2": "H", "u8": "Q", "f2": "e"}
order = ">" if descr[0] == ">" else "<"
code = codes[descr[1:]]
if code in "iqBHQ?":
    values = [int(v) for v in values]
data = struct.pack(order + code * len(values), *values)
header = "{'descr': '%s', 'fortran_order': %s, 'shape': %r, }" % (
    descr, "--fortran" in flags, dims)
v2 = "--v2" in flags
prefix = 12 if v2 else 10
header += " " * ((64 - (prefix + len(header) + 1) % 64) % 64) + "\n"
with open(out, "wb") as f:
    f.write(b"\x93NUMPY" + (b"\x02\x00" if v2 else b"\x01\x00"))
    f.write(struct.pack("<I" if v2 else "<H", len(header)))
    f.write(header.encode("latin1"))
    f.write(data)
