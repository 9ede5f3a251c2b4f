#!/usr/bin/env python3
"""PyTorch's aten._native_batch_norm_legit.no_stats on the input that
tests/kernels/cpu/normalization_test.cpp (BatchNormNoStatsMatchesPyTorch) builds:
x[2,3,4,5], x[i] = sin(0.37 i) * 3 + 0.01 i, weight [0.5, 1, 1.5], bias [-0.2, 0, 0.3],
training, momentum 0.1, eps 1e-5. Prints out, save_mean and save_invstd (fp32, CPU) as C++
initializer lists. Run where torch is (the device machine)."""
import math

import torch

n = 2 * 3 * 4 * 5
x = torch.tensor([math.sin(0.37 * i) * 3 + 0.01 * i for i in range(n)], dtype=torch.float32).reshape(2, 3, 4, 5)
w = torch.tensor([0.5, 1.0, 1.5])
b = torch.tensor([-0.2, 0.0, 0.3])
out, mean, invstd = torch.ops.aten._native_batch_norm_legit.no_stats(x, w, b, True, 0.1, 1e-5)
print("torch", torch.__version__)
for name, t in (("out", out), ("mean", mean), ("invstd", invstd)):
    print(f"{name} = {{" + ", ".join(f"{v:.9g}" for v in t.flatten().tolist()) + "};")
