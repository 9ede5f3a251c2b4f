#!/usr/bin/env python3
"""Compares a runtime's raw float32 output with the PyTorch eager reference:

  python3 bench/vision/compare.py REF.bin OUT.bin [--rtol 1e-3]

Prints one JSON line: max abs difference, the reference's max abs, their ratio (rel), and
ok when rel <= rtol. The ratio is taken against the output's scale because random-weight
networks' outputs span very different ranges. Exit status 1 when not ok. Standard library
only, so it also runs where numpy is missing.
"""

import json
import math
import sys
from array import array


def load(path):
    a = array("f")
    with open(path, "rb") as f:
        a.frombytes(f.read())
    if sys.byteorder != "little":
        a.byteswap()
    return a


def main():
    ref_path, out_path = sys.argv[1], sys.argv[2]
    rtol = float(sys.argv[sys.argv.index("--rtol") + 1]) if "--rtol" in sys.argv else 1e-3
    ref, out = load(ref_path), load(out_path)
    res = {"out": out_path, "numel": len(ref)}
    if len(out) != len(ref):
        res.update(ok=False, error=f"{len(out)} values, reference has {len(ref)}")
    else:
        finite = all(math.isfinite(v) for v in out)
        diff = max((abs(a - b) for a, b in zip(out, ref)), default=0.0)
        scale = max((abs(b) for b in ref), default=0.0)
        rel = diff / scale if scale > 0 else diff
        res.update(max_abs_diff=diff, ref_max_abs=scale, rel=rel, finite=finite, ok=bool(finite and rel <= rtol))
    print(json.dumps(res))
    sys.exit(0 if res["ok"] else 1)


if __name__ == "__main__":
    main()
