"""Compares two raw little-endian float32 files elementwise (standard library only):
abs(got - want) <= atol + rtol * abs(want), the fixtures' rule. Exit 0 when every value passes.

    python3 scripts/convert/compare_bin.py GOT.bin WANT.bin [--atol 1e-2] [--rtol 1e-3]
"""

import argparse
import math
import sys
from array import array


def read_f32(path):
    a = array("f")
    with open(path, "rb") as f:
        data = f.read()
    if len(data) % 4:
        raise SystemExit(f"{path}: {len(data)} bytes is not a whole number of float32 values")
    a.frombytes(data)
    if sys.byteorder != "little":
        a.byteswap()
    return a


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("got")
    ap.add_argument("want")
    ap.add_argument("--atol", type=float, default=1e-2)
    ap.add_argument("--rtol", type=float, default=1e-3)
    args = ap.parse_args()
    got, want = read_f32(args.got), read_f32(args.want)
    if len(got) != len(want):
        print(f"{args.got} holds {len(got)} values, {args.want} {len(want)}")
        return 1
    worst, bad, worst_at = 0.0, 0, -1
    for i, (g, w) in enumerate(zip(got, want)):
        d = abs(g - w) if math.isfinite(g) else math.inf
        if d > worst:
            worst, worst_at = d, i
        bad += d > args.atol + args.rtol * abs(w)
    print(f"{len(got)} values: max |diff| {worst:.6g} (at {worst_at}), {bad} outside atol {args.atol} + rtol {args.rtol}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
