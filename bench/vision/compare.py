#!/usr/bin/env python3
"""Compares a runtime's raw float32 outputs with the PyTorch eager reference:

  python3 bench/vision/compare.py REF.bin OUT.bin [--rtol 1e-3]
  python3 bench/vision/compare.py --meta MODEL_DIR PREFIX [--rtol 1e-3]

Prints one JSON line: max abs difference, the reference's max abs, their ratio (rel), and
ok when rel <= rtol. The ratio is taken against the output's scale because random-weight
networks' outputs span very different ranges. With --meta, every output of export.py's
meta.json (MODEL_DIR/ref_I.bin against MODEL_DIR/PREFIX_I.bin) is compared, the line lists
each ("outputs") and its top-level fields are the worst of them. Exit status 1 when not ok.
Numpy where it is installed, the standard library alone where it is not.
"""

import json
import math
import os
import sys
from array import array

try:
    import numpy as np
except ImportError:
    np = None


def load(path):
    a = array("f")
    with open(path, "rb") as f:
        a.frombytes(f.read())
    if sys.byteorder != "little":
        a.byteswap()
    return a


def compare(ref_path, out_path, rtol):
    try:
        ref, out = load(ref_path), load(out_path)
    except OSError as e:
        return {"out": out_path, "ok": False, "error": str(e)}
    res = {"out": out_path, "numel": len(ref)}
    if np is not None and len(out) == len(ref):  # same numbers, faster on millions of values
        r, o = np.frombuffer(ref, dtype=np.float32), np.frombuffer(out, dtype=np.float32)
        finite = bool(np.isfinite(o).all())
        diff = float(np.abs(o.astype(np.float64) - r).max()) if len(r) else 0.0
        scale = float(np.abs(r).max()) if len(r) else 0.0
        rel = diff / scale if scale > 0 else diff
        res.update(max_abs_diff=diff, ref_max_abs=scale, rel=rel, finite=finite, ok=bool(finite and rel <= rtol))
    elif len(out) != len(ref):
        res.update(ok=False, error=f"{len(out)} values, reference has {len(ref)}")
    else:
        finite = all(math.isfinite(v) for v in out)
        diff = max((abs(a - b) for a, b in zip(out, ref)), default=0.0)
        scale = max((abs(b) for b in ref), default=0.0)
        rel = diff / scale if scale > 0 else diff
        res.update(max_abs_diff=diff, ref_max_abs=scale, rel=rel, finite=finite, ok=bool(finite and rel <= rtol))
    return res


def main():
    rtol = float(sys.argv[sys.argv.index("--rtol") + 1]) if "--rtol" in sys.argv else 1e-3
    if sys.argv[1] == "--meta":
        model_dir, prefix = sys.argv[2], sys.argv[3]
        with open(os.path.join(model_dir, "meta.json")) as f:
            outputs = json.load(f)["outputs"]
        each = [compare(os.path.join(model_dir, o["file"]), os.path.join(model_dir, f"{prefix}_{i}.bin"), rtol)
                for i, o in enumerate(outputs)]
        res = {"outputs": each, "ok": all(r["ok"] for r in each)}
        if all("rel" in r for r in each):
            worst = max(each, key=lambda r: r["rel"])
            res.update(out=worst["out"], max_abs_diff=worst["max_abs_diff"], ref_max_abs=worst["ref_max_abs"],
                       rel=worst["rel"], finite=all(r["finite"] for r in each))
        else:
            res["error"] = next(r.get("error", "?") for r in each if "rel" not in r)
    else:
        res = compare(sys.argv[1], sys.argv[2], rtol)
    print(json.dumps(res))
    sys.exit(0 if res["ok"] else 1)


if __name__ == "__main__":
    main()
