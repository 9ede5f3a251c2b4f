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

Where meta.json has "rows_as_set": DIM (models.py ROWS_AS_SET: D-FINE's queries), the
outputs' rows along DIM are an unordered set: runtime rows are first paired one to one with
reference rows, closest pairs first (jointly over every output, each scaled by its
reference's max abs), and the differences are taken between paired rows.
The line then says how many rows were permuted ("rows_permuted"). Needs numpy.
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


def _np_stats(r, o, rtol):
    """compare()'s fields for float32 arrays r (reference) and o of one length (numpy)."""
    finite = bool(np.isfinite(o).all())
    diff = float(np.abs(o.astype(np.float64) - r).max()) if len(r) else 0.0
    scale = float(np.abs(r).max()) if len(r) else 0.0
    rel = diff / scale if scale > 0 else diff
    return {"max_abs_diff": diff, "ref_max_abs": scale, "rel": rel, "finite": finite, "ok": bool(finite and rel <= rtol)}


def compare(ref_path, out_path, rtol):
    try:
        ref, out = load(ref_path), load(out_path)
    except OSError as e:
        return {"out": out_path, "ok": False, "error": str(e)}
    res = {"out": out_path, "numel": len(ref)}
    if np is not None and len(out) == len(ref):  # same numbers, faster on millions of values
        res.update(_np_stats(np.frombuffer(ref, dtype=np.float32), np.frombuffer(out, dtype=np.float32), rtol))
    elif len(out) != len(ref):
        res.update(ok=False, error=f"{len(out)} values, reference has {len(ref)}")
    else:
        finite = all(math.isfinite(v) for v in out)
        diff = max((abs(a - b) for a, b in zip(out, ref)), default=0.0)
        scale = max((abs(b) for b in ref), default=0.0)
        rel = diff / scale if scale > 0 else diff
        res.update(max_abs_diff=diff, ref_max_abs=scale, rel=rel, finite=finite, ok=bool(finite and rel <= rtol))
    return res


def _rows(a, shape, dim):
    """a flat float array as (batches, rows, values per row), rows along dim of shape."""
    pre = 1
    for n in shape[:dim]:
        pre *= n
    return np.asarray(a, dtype=np.float64).reshape(pre, shape[dim], -1)


def match_rows(refs, outs, shapes, dim):
    """For outputs whose rows along dim form a set: out row i <-> ref row perm[b][i], for
    each batch b, one to one. The pairs are taken greedily, closest first, by the largest
    scaled difference over every output's row (random-weight D-FINE has near-identical
    queries, so several runtime rows can share a nearest reference row): a runtime row with
    no counterpart in the reference ends up paired with a far one, and the comparison fails."""
    scales = [float(np.abs(np.asarray(r)).max()) or 1.0 for r in refs]
    ref = np.concatenate([_rows(r, s, dim) / c for r, s, c in zip(refs, shapes, scales)], axis=2)
    out = np.concatenate([_rows(o, s, dim) / c for o, s, c in zip(outs, shapes, scales)], axis=2)
    perms = []
    for b in range(ref.shape[0]):
        cost = np.abs(out[b][:, None, :] - ref[b][None, :, :]).max(axis=2)
        n = cost.shape[0]
        perm = np.full(n, -1, dtype=np.int64)
        # Identical rows first: where a row matches its own index as well as any other, keep it.
        order = np.lexsort((np.abs(np.arange(n)[:, None] - np.arange(n)[None, :]).ravel(), cost.ravel()))
        used_i, used_j = np.zeros(n, bool), np.zeros(n, bool)
        for flat in order:
            i, j = divmod(int(flat), n)
            if not used_i[i] and not used_j[j]:
                perm[i], used_i[i], used_j[j] = j, True, True
        perms.append(perm)
    return perms


def apply_perm(a, shape, dim, perms):
    """a's rows along dim put in reference order: row perm[b][i] of the result is row i of a."""
    rows = _rows(a, shape, dim)
    res = np.empty_like(rows)
    for b, perm in enumerate(perms):
        res[b][perm] = rows[b]
    return res.reshape(-1).astype(np.float32)


def rows_permuted(perms):
    """How many rows match_rows paired with a reference row of another index."""
    return int(sum(int((p != np.arange(len(p))).sum()) for p in perms))


def compare_as_set(model_dir, outputs, prefix, dim, rtol):
    """compare() for every output after matching their rows as a set (see the docstring)."""
    refs, outs, shapes, each = [], [], [], []
    for i, o in enumerate(outputs):
        ref_path, out_path = os.path.join(model_dir, o["file"]), os.path.join(model_dir, f"{prefix}_{i}.bin")
        try:
            ref, out = np.fromfile(ref_path, dtype="<f4"), np.fromfile(out_path, dtype="<f4")
        except OSError as e:
            return {"ok": False, "error": str(e)}
        if len(ref) != len(out):
            return {"ok": False, "error": f"{out_path}: {len(out)} values, reference has {len(ref)}"}
        refs.append(ref), outs.append(out), shapes.append(o["shape"])
    if not all(np.isfinite(o).all() for o in outs):
        return {"ok": False, "error": "non-finite values", "finite": False}
    perms = match_rows(refs, outs, shapes, dim)
    for i, (ref, out, shape) in enumerate(zip(refs, outs, shapes)):
        each.append({"out": os.path.join(model_dir, f"{prefix}_{i}.bin"), "numel": len(ref),
                     **_np_stats(ref, apply_perm(out, shape, dim, perms), rtol)})
    res = {"outputs": each, "ok": all(r["ok"] for r in each), "rows_as_set": dim, "rows_permuted": rows_permuted(perms)}
    # The distance from the fp64 run too, rows matched to it on their own (export.py's
    # ref64_*.bin, where saved): comparable with eager fp32's fp32_vs_fp64_max_abs_matched.
    ref64s = [os.path.join(model_dir, o.get("fp64_file", "")) for o in outputs]
    if all(o.get("fp64_file") and os.path.isfile(p) for o, p in zip(outputs, ref64s)):
        r64 = [np.fromfile(p, dtype="<f8") for p in ref64s]
        if all(len(a) == len(b) for a, b in zip(r64, outs)):
            perms64 = match_rows(r64, outs, shapes, dim)
            for e, ref64, out, shape in zip(each, r64, outs, shapes):
                e["vs_fp64_max_abs"] = float(np.abs(apply_perm(out, shape, dim, perms64).astype(np.float64) - ref64).max())
    return res


def self_test():
    """--self-test (numpy): rows permuted between two outputs match back exactly; a changed
    value is reported; duplicate rows pair one to one; a row the reference lacks shows."""
    rng = np.random.default_rng(0)
    shapes = [[1, 30, 8], [1, 30, 4]]
    refs = [rng.standard_normal(30 * 8).astype(np.float32), rng.random(30 * 4).astype(np.float32)]
    perm = rng.permutation(30)
    outs = [_rows(r, s, 1)[:, perm].reshape(-1).astype(np.float32) for r, s in zip(refs, shapes)]
    got = match_rows(refs, outs, shapes, 1)
    assert (got[0] == perm).all(), got
    for r, o, s in zip(refs, outs, shapes):
        assert (apply_perm(o, s, 1, got) == r).all()
    outs[1][5] += 0.05  # one box coordinate of the runtime's row 1 off: still matched, its diff reported
    got = match_rows(refs, outs, shapes, 1)
    assert abs(float(np.abs(apply_perm(outs[1], shapes[1], 1, got) - refs[1]).max()) - 0.05) < 1e-6
    # Two identical reference rows: still one to one, each runtime row on its own index.
    refs = [r.copy() for r in refs]
    for r, s in zip(refs, shapes):
        rows = r.reshape(_rows(r, s, 1).shape)
        rows[0, 7] = rows[0, 3]
    outs = [r.copy() for r in refs]
    got = match_rows(refs, outs, shapes, 1)
    assert (got[0] == np.arange(30)).all(), got
    # A runtime row that the reference does not have: paired with some row, far from it.
    outs[0][5 * 8:6 * 8] = 50.0
    got = match_rows(refs, outs, shapes, 1)
    assert float(np.abs(apply_perm(outs[0], shapes[0], 1, got) - refs[0]).max()) > 40
    # compare_as_set with fp64 references saved: each output's distance from them, rows
    # matched to them on their own (a runtime equal to the fp32 reference is the fp32 run's
    # distance from fp64 away).
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        refs = [rng.standard_normal(30 * 8).astype(np.float32), rng.random(30 * 4).astype(np.float32)]
        outputs = []
        for i, (r, s) in enumerate(zip(refs, shapes)):
            r.tofile(os.path.join(d, f"ref_{i}.bin"))
            r64 = r.astype(np.float64) + 1e-3 * (i + 1)
            r64.tofile(os.path.join(d, f"ref64_{i}.bin"))
            _rows(r, s, 1)[:, perm].reshape(-1).astype(np.float32).tofile(os.path.join(d, f"rt_out_{i}.bin"))
            outputs.append({"file": f"ref_{i}.bin", "shape": s, "fp64_file": f"ref64_{i}.bin"})
        res = compare_as_set(d, outputs, "rt_out", 1, 1e-3)
        assert res["ok"] and res["rows_permuted"] == 30 - int((perm == np.arange(30)).sum()), res
        for i, e in enumerate(res["outputs"]):
            assert abs(e["vs_fp64_max_abs"] - 1e-3 * (i + 1)) < 1e-6, e
    print("compare.py self-test ok")


def main():
    if sys.argv[1:] == ["--self-test"]:
        self_test()
        return
    rtol = float(sys.argv[sys.argv.index("--rtol") + 1]) if "--rtol" in sys.argv else 1e-3
    if sys.argv[1] == "--meta":
        model_dir, prefix = sys.argv[2], sys.argv[3]
        with open(os.path.join(model_dir, "meta.json")) as f:
            meta = json.load(f)
        outputs = meta["outputs"]
        if meta.get("rows_as_set") is not None:
            res = compare_as_set(model_dir, outputs, prefix, int(meta["rows_as_set"]), rtol)
            each = res.get("outputs", [])
        else:
            each = [compare(os.path.join(model_dir, o["file"]), os.path.join(model_dir, f"{prefix}_{i}.bin"), rtol)
                    for i, o in enumerate(outputs)]
            res = {"outputs": each, "ok": all(r["ok"] for r in each)}
        if each and all("rel" in r for r in each):
            worst = max(each, key=lambda r: r["rel"])
            res.update(out=worst["out"], max_abs_diff=worst["max_abs_diff"], ref_max_abs=worst["ref_max_abs"],
                       rel=worst["rel"], finite=all(r["finite"] for r in each))
        elif "error" not in res:
            res["error"] = next((r.get("error", "?") for r in each if "rel" not in r), "no outputs")
    else:
        res = compare(sys.argv[1], sys.argv[2], rtol)
    print(json.dumps(res))
    sys.exit(0 if res["ok"] else 1)


if __name__ == "__main__":
    main()
