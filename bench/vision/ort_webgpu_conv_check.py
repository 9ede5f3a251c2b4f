#!/usr/bin/env python3
"""Single-convolution ONNX models for checking onnxruntime's WebGPU EP, which got MODNet's
matte wrong (bench/results/vision_h200.md): one Conv2d per case, 64 outputs, 16x16, 1x1 and
3x3 kernels over input widths around MODNet's 99 (= 64 + 32 + 3, its hr4x input).

  python3 bench/vision/ort_webgpu_conv_check.py OUTDIR     # any torch with torch.onnx
  for d in OUTDIR/*/; do node bench/vision/ort_bench.mjs --model $d/model.onnx \\
      --input $d/input_0.bin:float32:$(cat $d/shape) --ep webgpu --runs 1 --warmup 0 --out-prefix $d/ort_out
    python3 bench/vision/compare.py --meta $d ort_out; done

Each OUTDIR/CASE/ gets model.onnx, input_0.bin, ref_0.bin (PyTorch on the CPU), meta.json
and shape. Seen with onnxruntime-node 1.30.0 on SwiftShader here: only the 3x3 convolution
over 99 input channels is wrong (rel 1.47); 65, 67, 97, 98, 100 and 131 channels, and every
1x1 case, agree to ~1e-6 (the H200 run: bench/results/vision_h200/ort_conv_check.txt).
"""

import json
import os
import sys

import torch


def main():
    out = sys.argv[1]
    torch.manual_seed(0)
    for cin in (65, 67, 97, 98, 99, 100, 131):
        for k in (1, 3):
            name, shape = f"conv_cin{cin}_k{k}", [1, cin, 16, 16]
            m, x = torch.nn.Conv2d(cin, 64, k, padding=k // 2).eval(), torch.randn(*shape)
            with torch.no_grad():
                y = m(x)
            d = os.path.join(out, name)
            os.makedirs(d, exist_ok=True)
            torch.onnx.export(m, (x,), os.path.join(d, "model.onnx"), input_names=["input_0"],
                              output_names=["output_0"], opset_version=17)
            x.numpy().tofile(os.path.join(d, "input_0.bin"))
            y.numpy().tofile(os.path.join(d, "ref_0.bin"))
            with open(os.path.join(d, "meta.json"), "w") as f:
                json.dump({"inputs": [{"file": "input_0.bin", "dtype": "float32", "shape": shape}],
                           "outputs": [{"file": "ref_0.bin", "dtype": "float32", "shape": list(y.shape)}]}, f)
            with open(os.path.join(d, "shape"), "w") as f:
                f.write(",".join(map(str, shape)))


if __name__ == "__main__":
    main()
