"""Export cases for the int8 ("q8ta") operators of ExecuTorch's Vulkan backend and
et_vk.q4gsw_requant; imported by export_ops.py (run on the device machine, see its header).

The q8ta ops are not called directly: each module spells out the graph that the Vulkan
pattern passes (backends/vulkan/patterns/quantized_*.py) replace, with explicit
quantized_decomposed quantize / dequantize ops as a PT2E-converted model has them:

  x -> quantize_per_tensor -> dequantize_per_tensor -> op (weights: int8 constants through
  dequantize_per_channel) [-> relu] -> quantize_per_tensor -> dequantize_per_tensor -> y

The delegate then holds quantize_per_tensor, the et_vk.q8ta_* op and dequantize_per_tensor,
so a fixture checks the int8 op inside a float-in / float-out program. The references are
PyTorch eager on the same graph (the q/dq ops in fp32), which is what the q8ta ops'
reference implementations (custom_ops_lib.py) compute. The tolerance is one output quantum:
a different accumulation order may flip a value that lands next to a rounding boundary.

q8ta_mobilenet_pt2e is a small MobileNet-class network (stem conv, depthwise-separable
blocks, an inverted residual with an add, global pooling, a classifier) quantized with the
real int8 flow: XNNPACKQuantizer's symmetric per-channel config, prepare_pt2e, calibration,
convert_pt2e, then the Vulkan partitioner.
"""

import torch

QMIN, QMAX = -128, 127


def q(x, s, z):
    return torch.ops.quantized_decomposed.quantize_per_tensor(x, s, z, QMIN, QMAX, torch.int8)


def dq(x, s, z):
    return torch.ops.quantized_decomposed.dequantize_per_tensor(x, s, z, QMIN, QMAX, torch.int8)


def qdq(x, s, z):
    return dq(q(x, s, z), s, z)


def per_channel_int8(shape, axis, g):
    """int8 weights in [-127, 127] and fp32 per-channel scales along `axis` (symmetric)."""
    w = torch.randint(-127, 128, shape, generator=g).to(torch.int8)
    scales = torch.rand(shape[axis], generator=g) * 0.01 + 0.004
    return w, scales


class QConv(torch.nn.Module):
    """qdq(x) -> conv2d / conv_transpose2d(dequantized int8 weight) [-> relu] -> qdq."""

    def __init__(self, g, ic, oc, k, stride=1, padding=0, dilation=1, groups=1, transposed=False,
                 output_padding=0, relu=False, bias=True, in_q=(0.05, 3), out_q=(0.08, -5)):
        super().__init__()
        shape = (ic, oc // groups, k, k) if transposed else (oc, ic // groups, k, k)
        axis = 1 if transposed else 0
        w, s = per_channel_int8(shape, axis, g)
        self.register_buffer("w", w)
        self.register_buffer("w_scales", s)
        self.register_buffer("w_zeros", torch.zeros(shape[axis], dtype=torch.int64))
        self.register_buffer("b", torch.randn(oc, generator=g) * 0.3 if bias else None)
        self.cfg = dict(stride=stride, padding=padding, dilation=dilation, groups=groups)
        self.transposed, self.output_padding, self.axis, self.relu = transposed, output_padding, axis, relu
        self.in_q, self.out_q = in_q, out_q

    def forward(self, x):
        x = qdq(x, *self.in_q)
        w = torch.ops.quantized_decomposed.dequantize_per_channel(self.w, self.w_scales, self.w_zeros, self.axis,
                                                                  -127, 127, torch.int8)
        if self.transposed:
            y = torch.nn.functional.conv_transpose2d(x, w, self.b, self.cfg["stride"], self.cfg["padding"],
                                                     self.output_padding, self.cfg["groups"], self.cfg["dilation"])
        else:
            y = torch.nn.functional.conv2d(x, w, self.b, **self.cfg)
        if self.relu:
            y = torch.relu(y)
        return qdq(y, *self.out_q)


class QLinear(torch.nn.Module):
    """qdq(x) -> linear(dequantized int8 weight, bias) [-> relu] [-> qdq]: q8ta_linear(_gemv)
    with an output quantization, linear_q8ta_q8csw (float output) without."""

    def __init__(self, g, k, n, relu=False, out_q=(0.06, 2), in_q=(0.04, -3)):
        super().__init__()
        w, s = per_channel_int8((n, k), 0, g)
        self.register_buffer("w", w)
        self.register_buffer("w_scales", s)
        self.register_buffer("w_zeros", torch.zeros(n, dtype=torch.int64))
        self.register_buffer("b", torch.randn(n, generator=g) * 0.2)
        self.relu, self.in_q, self.out_q = relu, in_q, out_q

    def forward(self, x):
        x = qdq(x, *self.in_q)
        w = torch.ops.quantized_decomposed.dequantize_per_channel(self.w, self.w_scales, self.w_zeros, 0,
                                                                  -127, 127, torch.int8)
        y = torch.nn.functional.linear(x, w, self.b)
        if self.relu:
            y = torch.relu(y)
        return qdq(y, *self.out_q) if self.out_q else y


def q8ta_relu(x):
    return qdq(torch.relu(qdq(x, 0.05, 7)), 0.03, -100)


def q8ta_add(a, b):
    return qdq(qdq(a, 0.04, -2) + qdq(b, 0.07, 5), 0.09, 1)


def q8ta_pixel_shuffle(x):
    return qdq(torch.nn.functional.pixel_shuffle(qdq(x, 0.05, 4), 2), 0.06, -3)


def q4gsw_requant(latent, scales):
    return torch.ops.et_vk.q4gsw_requant(latent, scales, 4)


class MobileNetMini(torch.nn.Module):
    """A MobileNet-class float network: stem conv 3x3/2, depthwise-separable blocks, an
    inverted residual with its add, global average pooling and a linear classifier (ReLU
    activations: the q8ta conv patterns fuse relu, not relu6)."""

    def __init__(self):
        super().__init__()
        c = torch.nn.Conv2d
        self.stem = c(3, 8, 3, 2, 1)
        self.dw1, self.pw1 = c(8, 8, 3, 1, 1, groups=8), c(8, 16, 1)
        self.dw2, self.pw2 = c(16, 16, 3, 2, 1, groups=16), c(16, 24, 1)
        self.exp3, self.dw3, self.prj3 = c(24, 48, 1), c(48, 48, 3, 1, 1, groups=48), c(48, 24, 1)
        self.head = c(24, 32, 1)
        self.fc = torch.nn.Linear(32, 10)

    def forward(self, x):
        r = torch.relu
        x = r(self.stem(x))
        x = r(self.pw1(r(self.dw1(x))))
        x = r(self.pw2(r(self.dw2(x))))
        x = x + self.prj3(r(self.dw3(r(self.exp3(x)))))
        x = r(self.head(x))
        x = torch.nn.functional.adaptive_avg_pool2d(x, 1).flatten(1)
        return self.fc(x)


def mobilenet_pt2e(g):
    """MobileNetMini quantized by the PT2E int8 flow; returns the converted module."""
    from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (XNNPACKQuantizer,
                                                                         get_symmetric_quantization_config)
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    torch.manual_seed(0)
    model = MobileNetMini().eval()
    calib = [torch.rand(1, 3, 32, 32, generator=g) * 2 - 1 for _ in range(4)]
    quantizer = XNNPACKQuantizer().set_global(get_symmetric_quantization_config(is_per_channel=True))
    gm = torch.export.export(model, (calib[0],)).module()
    gm = prepare_pt2e(gm, quantizer)
    for x in calib:
        gm(x)
    return convert_pt2e(gm)


def add_q8ta_cases(t):
    """Adds the q8ta / q4gsw_requant entries to export_ops.op_table()'s table t (own generator,
    so the earlier entries keep their inputs)."""
    g = torch.Generator().manual_seed(14)
    one_q = 1.01  # one output quantum (times the scale below)
    t["q8ta_relu"] = ("qdq(relu(qdq(x[1,8,5,6], 0.05, 7)), 0.03, -100) -> et_vk.q8ta_relu",
                      q8ta_relu, [(torch.randn(1, 8, 5, 6, generator=g) * 3,)], (0.03 * one_q, 0), False)
    t["q8ta_add"] = ("qdq(qdq(a[1,8,4,5], 0.04, -2) + qdq(b, 0.07, 5), 0.09, 1) -> et_vk.q8ta_add",
                     q8ta_add, [(torch.randn(1, 8, 4, 5, generator=g) * 2, torch.randn(1, 8, 4, 5, generator=g) * 3)],
                     (0.09 * one_q, 0), False)
    t["q8ta_conv2d"] = ("qdq conv2d x[1,6,9,11], int8 w[6,6,3,3] per-channel, stride 2, pad 1, bias, relu -> et_vk.q8ta_conv2d",
                        QConv(g, 6, 6, 3, stride=2, padding=1, relu=True),
                        [(torch.randn(1, 6, 9, 11, generator=g) * 2,)], (0.08 * one_q, 0), False)
    t["q8ta_conv2d_grouped"] = ("qdq conv2d x[1,8,7,6], int8 w[8,4,3,3], groups 2, dilation 2, pad 2 -> et_vk.q8ta_conv2d",
                                QConv(g, 8, 8, 3, padding=2, dilation=2, groups=2),
                                [(torch.randn(1, 8, 7, 6, generator=g) * 2,)], (0.08 * one_q, 0), False)
    t["q8ta_conv2d_dw"] = ("qdq depthwise conv2d x[1,8,7,9], int8 w[8,1,3,3], pad 1, bias, relu -> et_vk.q8ta_conv2d_dw",
                           QConv(g, 8, 8, 3, padding=1, groups=8, relu=True),
                           [(torch.randn(1, 8, 7, 9, generator=g) * 2,)], (0.08 * one_q, 0), False)
    t["q8ta_conv2d_pw"] = ("qdq 1x1 conv2d x[1,12,5,7] -> 10 channels, int8 w, bias -> et_vk.q8ta_conv2d_pw",
                           QConv(g, 12, 10, 1), [(torch.randn(1, 12, 5, 7, generator=g) * 2,)], (0.08 * one_q, 0), False)
    t["q8ta_conv2d_transposed"] = ("qdq conv_transpose2d x[1,4,5,6], int8 w[4,6,3,3] per-OC (axis 1), stride 2, pad 1, output_padding 1 -> et_vk.q8ta_conv2d_transposed",
                                   QConv(g, 4, 6, 3, stride=2, padding=1, transposed=True, output_padding=1),
                                   [(torch.randn(1, 4, 5, 6, generator=g) * 2,)], (0.08 * one_q, 0), False)
    t["q8ta_linear"] = ("qdq linear x[3,16], int8 w[12,16] per-channel, bias, relu -> et_vk.q8ta_linear",
                        QLinear(g, 16, 12, relu=True), [(torch.randn(3, 16, generator=g) * 2,)], (0.06 * one_q, 0), False)
    t["q8ta_linear_gemv"] = ("qdq linear x[1,16], int8 w[12,16] per-channel, bias -> et_vk.q8ta_linear_gemv",
                             QLinear(g, 16, 12), [(torch.randn(1, 16, generator=g) * 2,)], (0.06 * one_q, 0), False)
    # N = 12, a multiple of 4: with N = 10 the pattern pads the bias to 12 and ExecuTorch's own
    # reference of linear_q8ta_q8csw (out + bias) fails while FusePatternsPass re-traces it
    # (export of 2026-12-04, bench/results/export_ops_q8ta_h200.log). Not yet exported.
    # The draws of that first N = 10 definition are still made, so the later cases keep the
    # inputs their committed fixtures were exported with; the case itself has its own generator.
    QLinear(g, 16, 10, out_q=None), torch.randn(3, 16, generator=g)
    g_csw = torch.Generator().manual_seed(15)
    t["linear_q8ta_q8csw"] = ("qdq(x[3,16], 0.04, -3) -> linear(int8 w[12,16] per-channel, bias), float out -> et_vk.linear_q8ta_q8csw",
                              QLinear(g_csw, 16, 12, out_q=None), [(torch.randn(3, 16, generator=g_csw) * 2,)], (1e-5, 1e-5), False)
    t["q8ta_pixel_shuffle"] = ("qdq(pixel_shuffle(qdq(x[1,8,3,4], 0.05, 4), 2), 0.06, -3) -> et_vk.q8ta_pixel_shuffle",
                               q8ta_pixel_shuffle, [(torch.randn(1, 8, 3, 4, generator=g) * 3,)], (0.06 * one_q, 0), False)
    latent = torch.randn(6, 10, generator=g) * 0.2
    scales = torch.rand(3, 6, generator=g) * 0.05 + 0.01
    scales[1, 2] = 0.0  # a zero scale gives code 8 (value 0)
    # Not exportable alone: the partitioner leaves an op with a uint8 output to the CPU, which
    # has no out variant of it ("Missing out variants", same log). Kept for a training program.
    t["q4gsw_requant"] = ("et_vk.q4gsw_requant(latent[6,10], scales[3,6], group 4) -> uint8[6,5]",
                          q4gsw_requant, [(latent, scales)], (0, 0), False)
    t["q8ta_mobilenet_pt2e"] = ("MobileNet-class net (stem, dw-separable blocks, residual add, pool, fc) x[1,3,32,32], "
                                "XNNPACKQuantizer per-channel int8 PT2E -> q8ta convs/add",
                                lambda: mobilenet_pt2e(torch.Generator().manual_seed(5)),
                                [(torch.rand(1, 3, 32, 32, generator=g) * 2 - 1,)], (0.05, 0.02), False)
    return t
