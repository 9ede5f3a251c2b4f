#!/usr/bin/env python3
"""The benchmark table (Markdown) from h200.sh's results.jsonl:

  python3 bench/vision/table.py results.jsonl > table.md
"""

import json
import re
import sys
from collections import OrderedDict


def short_op(name):
    """ "<EdgeOpOverload: aten.mul.Scalar>: schema = ..." (older export.py) -> "aten.mul.Scalar"."""
    m = re.search(r"<EdgeOpOverload: ([\w.]+)>", name)
    return m.group(1) if m else name


def fmt(v, unit=" ms"):
    if v is None:
        return "-"
    return f"{v:.3g}{unit}" if v < 10 else f"{v:.1f}{unit}"


def wasm_cells(t, ort_ms, check):
    on, off = t.get("wick_wasm", {}).get("median_ms"), t.get("wick_wasm_norobust", {}).get("median_ms")
    ratio = f"{on / ort_ms:.2f}" if on and ort_ms else "-"
    return f" {fmt(on)} / {fmt(off)} | {ratio} | {check('wick_wasm_check')} |"


def main():
    rows = OrderedDict()
    for line in open(sys.argv[1]):
        line = line.strip()
        if not line.startswith("{"):
            continue
        r = json.loads(line)
        name = r.get("model") or r.get("name")
        rows.setdefault(name, {})[r.get("tool", "ort") if not str(r.get("tool", "")).startswith("onnxruntime")
                                   else "ort"] = r
    # Wick's Wasm bundle in Node on dawn.node (node_wasm_bench.mjs, via h200_f16_node.sh),
    # robustness on / off, when those lines are in the input.
    wasm = any("wick_wasm" in t for t in rows.values())
    print("| model | Wick | ORT WebGPU | Wick/ORT | PyTorch eager | PyTorch CUDA graph | Wick GPU time (profile) "
          "| Wick 10 largest conv/matmul | Wick delegates / dispatches | Wick vs eager | ORT vs eager | ORT kernels by EP |"
          + (" Wick Wasm in Node, robustness on / off | Wasm/ORT | Wasm vs eager |" if wasm else ""))
    print("|---|---|---|---|---|---|---|---|---|---|---|---|" + ("---|---|---|" if wasm else ""))
    for name, t in rows.items():
        ex, w, o = t.get("export", {}), t.get("wick", {}), t.get("ort", {})
        tb = next((v for k, v in t.items() if str(v.get("tool", "")).startswith("torch")), {})
        wm, om = w.get("median_ms"), o.get("median_ms")
        ratio = f"{wm / om:.2f}" if wm and om else "-"
        graph = tb.get("cuda_graph", {})
        pte = ex.get("pte", {})
        deleg = f"{pte.get('delegates', '-')} / {w.get('dispatches', '-')}"
        if pte.get("ops_outside_delegates"):
            deleg += " (CPU: " + ", ".join(f"{short_op(k)} x{v}" for k, v in pte["ops_outside_delegates"].items()) + ")"
        if "error" in pte:
            deleg = "export failed: " + pte["error"][:80]

        def check(key):
            c = t.get(key)
            if not c:
                return "-"
            if "rel" not in c:
                return c.get("error", "?")
            # A failing output next to how far PyTorch's own fp32 eager is from its fp64 run
            # (export.py's fp32_vs_fp64_max_abs): a random-weight D-FINE's box selection flips
            # under rounding, so eager fp32 is as far from fp64 as the runtimes are from it.
            # Such an output passes as "ok (fp32)" when the runtime is no more than twice as far
            # from the fp64 run as eager fp32 is (compare.py's vs_fp64_max_abs, where export.py
            # saved the fp64 outputs), else when it is within twice that distance of eager (two
            # fp32 evaluations, each that far from the exact answer); every output must pass by
            # compare.py's tolerance or by this.
            spread = [o2.get("fp32_vs_fp64_max_abs_matched", o2.get("fp32_vs_fp64_max_abs"))
                      for o2 in ex.get("outputs", [])]
            outs = c.get("outputs", [])

            def within_fp32(i):
                dist = outs[i].get("vs_fp64_max_abs", outs[i].get("max_abs_diff", float("inf")))
                return (i < len(spread) and spread[i] is not None and outs[i].get("finite", True) and
                        dist <= 2 * spread[i])

            fp32_ok = not c["ok"] and bool(outs) and all(oi.get("ok") or within_fp32(i) for i, oi in enumerate(outs))
            cell = f"{'ok' if c['ok'] else 'ok (fp32)' if fp32_ok else 'FAIL'} {c['rel']:.1e}"
            if c.get("rows_as_set") is not None:  # compare.py matched the rows (D-FINE's queries)
                cell += f" (queries matched as a set: {c.get('rows_permuted')} in another order)"
            worst = max(range(len(outs)), key=lambda i: outs[i].get("rel", 0), default=None)
            if not c["ok"] and worst is not None and worst < len(spread) and spread[worst] is not None:
                scale = outs[worst].get("ref_max_abs") or 0
                if scale > 0:
                    cell += f" (eager fp32 vs fp64: {spread[worst] / scale:.1e}"
                    if "vs_fp64_max_abs" in outs[worst]:
                        cell += f"; this runtime vs fp64: {outs[worst]['vs_fp64_max_abs'] / scale:.1e}"
                    cell += ")"
            return cell

        prov = o.get("providers")
        prov = ", ".join(f"{k.replace('ExecutionProvider', '')} {v}" for k, v in prov.items()) if prov else "-"
        wick_cell = fmt(wm) if wm else ("error" if w else "-")
        # The profile's GPU time is the median of the calls after the first (parse_wick.py);
        # the TFLOP/s of its largest convolutions and matrix products by FLOPs.
        top = f"{w['profile_top_tflops']:.1f} TFLOP/s" if w.get("profile_top_tflops") is not None else "-"
        ort_cell = fmt(om) if om else ("error" if o else "-")
        print(f"| {name} | {wick_cell} | {ort_cell} | {ratio} | {fmt(tb.get('eager', {}).get('median_ms'))} | "
              f"{fmt(graph.get('median_ms')) if 'median_ms' in graph else graph.get('error', '-')[:60]} | "
              f"{fmt(w.get('profile_gpu_ms'))} | {top} | {deleg} | {check('wick_check')} | {check('ort_check')} | {prov} |"
              + (wasm_cells(t, om, check) if wasm else ""))


if __name__ == "__main__":
    main()
