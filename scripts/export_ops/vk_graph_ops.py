#!/usr/bin/env python3
"""Adds "vk_graph_ops" to each fixture manifest under tests/fixtures/ops: the operator names
of the VK00 chains in its model.pte as `wick inspect --json` reads them (sorted, with
counts). export_ops.py's "vk_ops" are the edge ops handed to the partitioner, before the
Vulkan preprocess fuses patterns (dequantize + linear -> et_vk.linear_qcs4w, the q8ta convs,
...); the VK00 chain is what the delegate actually runs, and what scripts/op_status.py counts.

  python3 scripts/export_ops/vk_graph_ops.py [--wick build/wick] [fixture dirs...]

Runs on this machine (no torch needed); rewrites only the manifests whose entry changes.
"""
import argparse
import json
import pathlib
import subprocess
import sys

root = pathlib.Path(__file__).resolve().parents[2]


def chain_ops(wick, pte):
    doc = json.loads(subprocess.run([wick, "inspect", "--json", str(pte)], check=True, capture_output=True,
                                    text=True).stdout)
    ops = {}
    for method in doc.get("methods", []):
        for d in method.get("delegates", []):
            graph = d.get("graph", {})
            if "error" in graph:
                raise RuntimeError(f"{pte}: {graph['error']}")
            for name, count in graph.get("ops", {}).items():
                ops[name] = ops.get(name, 0) + count
    return dict(sorted(ops.items()))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--wick", default=str(root / "build" / "wick"))
    ap.add_argument("dirs", nargs="*")
    a = ap.parse_args()
    dirs = [pathlib.Path(d) for d in a.dirs] or sorted(p.parent for p in (root / "tests" / "fixtures" / "ops").glob("*/manifest.json"))
    for d in dirs:
        man_path = d / "manifest.json"
        man = json.loads(man_path.read_text())
        ops = chain_ops(a.wick, d / man.get("program", "model.pte"))
        if man.get("vk_graph_ops") == ops:
            continue
        man["vk_graph_ops"] = ops
        man_path.write_text(json.dumps(man, indent=1) + "\n")
        print(f"{d.name}: {', '.join(ops)}")


if __name__ == "__main__":
    sys.exit(main())
