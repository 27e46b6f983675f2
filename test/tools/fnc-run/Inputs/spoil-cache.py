"""Spoils every compile-cache entry (*.fncc) of a directory, for the tests of
fnc-run --cache-dir: `truncate` cuts each to 20 bytes, `flip` flips a bit in
the middle of each. Prints the number of entries spoiled."""
import glob
import os
import sys

directory, how = sys.argv[1], sys.argv[2]
entries = sorted(glob.glob(os.path.join(directory, "*.fncc")))
for path in entries:
    with open(path, "r+b") as f:
        data = bytearray(f.read())
        if how == "truncate":
            data = data[:20]
        elif how == "flip":
            data[len(data) // 2] ^= 0x10
        else:
            sys.exit("spoil-cache.py: unknown way " + how)
        f.seek(0)
        f.truncate()
        f.write(data)
print("spoiled", len(entries))
