#!/usr/bin/env python3
"""Fails when an op defined in an ODS file has no round-trip test: every
`def X : Tile_Op<"name", ...>` must appear as `tile.name` in the test file."""
import re
import sys

td, test = sys.argv[1], sys.argv[2]
ops = re.findall(r'^def \w+ : Tile_Op<"([\w.]+)"', open(td).read(), re.M)
text = open(test).read()
missing = [op for op in ops if not re.search(r"\btile\.%s\b" % re.escape(op), text)]
for op in missing:
    print("no round-trip test for tile.%s" % op)
print("%d ops, %d without a round-trip test" % (len(ops), len(missing)))
sys.exit(1 if missing or not ops else 0)
