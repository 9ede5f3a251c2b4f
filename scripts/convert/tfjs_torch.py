"""A torch.nn.Module that computes a TF.js graph model (read by tfjs_graph_model.py).

The graph's nodes are interpreted in order by forward(); with fixed input shapes
torch.export traces that into a plain aten graph. TensorFlow's images are NHWC; this
module keeps every 4-D activation in NCHW instead (the layout ExecuTorch's Vulkan delegate
and Wick expect) and converts the constants once, at construction:

  Conv2D filter            [kh, kw, in, out]       -> [out, in, kh, kw]
  DepthwiseConv2dNative    [kh, kw, in, mult]      -> [in * mult, 1, kh, kw]  (groups = in)
  Conv2DBackpropInput      [kh, kw, out, in]       -> [in, out, kh, kw]       (conv_transpose2d)
  a constant operand of Add/AddV2/Mul/Sub, rank <= 4: right-aligned to NHWC, then permuted
  to NCHW (a per-channel bias [C] becomes [1, C, 1, 1]; a scalar stays a scalar).

So the module takes [N, C, H, W] and returns [N, C, H, W] where the TF.js model takes and
returns NHWC. Only the ops the supported models use are implemented (OPS below); any other
op, attribute or padding mode raises TfjsError naming the node when the module is built,
never a wrong number later. TensorFlow's SAME padding puts the odd pixel after (bottom,
right); where that is asymmetric an explicit zero pad precedes the convolution.
"""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from tfjs_graph_model import TfjsError

ELEMENTWISE = {"Add", "AddV2", "Mul", "Sub"}
UNARY = {"Relu", "Relu6", "Sigmoid", "Identity"}
OPS = {"Placeholder", "Const", "Conv2D", "DepthwiseConv2dNative", "Conv2DBackpropInput", "AvgPool",
       "ResizeBilinear", "AddN"} | ELEMENTWISE | UNARY


def _tensor(w):
    return torch.tensor(w.values, dtype=torch.float32 if w.dtype == "float32" else torch.int64).reshape(w.shape)


def _same_pad(size, k, stride, dilation):
    """TensorFlow's SAME: output ceil(size / stride), the odd padding pixel after."""
    eff = (k - 1) * dilation + 1
    out = -(-size // stride)
    total = max((out - 1) * stride + eff - size, 0)
    return total // 2, total - total // 2


def _nhwc_attr(node, key, default):
    """strides / dilations / ksize: [1, h, w, 1] in NHWC."""
    v = node.attrs.get(key, default)
    if len(v) != 4 or v[0] != 1 or v[3] != 1:
        raise TfjsError(f"node {node.name} ({node.op}): {key} {v} is not of the form [1, h, w, 1]")
    return v[1], v[2]


class TfjsGraphModule(nn.Module):
    """forward(*inputs) takes the graph's inputs (NCHW for 4-D ones) in signature order and
    returns its output (one) or a tuple of outputs, NCHW for 4-D ones."""

    def __init__(self, graph, global_pool_as_mean=False):
        super().__init__()
        self.graph_path = graph.path
        # An AvgPool whose window is the whole input (squeeze-and-excitation blocks) as
        # aten.mean over H, W instead of aten.avg_pool2d: the same numbers, another op for
        # the delegate (selfie_tfjs.py falls back to it when avg_pool2d does not lower).
        self.global_pool_as_mean = global_pool_as_mean
        unknown = sorted({n.op for n in graph.nodes} - OPS)
        if unknown:
            bad = [f"{n.name} ({n.op})" for n in graph.nodes if n.op in unknown][:5]
            raise TfjsError(f"{graph.path}: ops not supported by tfjs_torch.py: {unknown} (e.g. {bad})")
        self.input_names = list(graph.input_names)
        self.output_names = list(graph.output_names)
        by_name = {n.name: n for n in graph.nodes}
        # Which nodes each output needs, in file order (TF.js writes nodes topologically,
        # but check: every input must come before its reader).
        needed, stack = set(), list(self.output_names)
        while stack:
            name = stack.pop()
            if name not in needed:
                needed.add(name)
                stack.extend(by_name[name].inputs)
        order = [n for n in graph.nodes if n.name in needed]
        seen = set()
        for n in order:
            for i in n.inputs:
                if i not in seen:
                    raise TfjsError(f"{graph.path}: node {n.name} reads {i} before it is computed")
            seen.add(n.name)
        for name in self.input_names:
            if by_name[name].op != "Placeholder":
                raise TfjsError(f"{graph.path}: input {name} is a {by_name[name].op}, not a Placeholder")

        self.params = nn.ParameterDict()   # converted constants, keyed by a safe name
        self.steps = []                    # (node name, op, input names, options)
        self._key = {}
        consts = {n.name: graph.weights[n.name] for n in order if n.op == "Const"}
        readers = {}
        for n in order:
            for i in n.inputs:
                readers.setdefault(i, []).append(n)
        for n in order:
            if n.op in ("Const", "Placeholder"):
                continue
            self.steps.append((n.name, n.op, list(n.inputs), self._options(n, consts, readers)))

    # -- construction ------------------------------------------------------------------

    def _param(self, name, value):
        key = f"c{len(self._key)}"
        self._key[name] = key
        self.params[key] = nn.Parameter(value.contiguous(), requires_grad=False)
        return key

    def _const_operand(self, node, name, consts, layout):
        """A constant input of `node`, converted for `layout`; returns its parameter key."""
        w = consts.get(name)
        if w is None:
            raise TfjsError(f"node {node.name} ({node.op}): input {name} must be a constant")
        if w.dtype != "float32":
            raise TfjsError(f"node {node.name} ({node.op}): constant {name} is {w.dtype}, float32 expected")
        t = _tensor(w)
        if layout == "conv":
            if t.dim() != 4:
                raise TfjsError(f"node {node.name}: filter {name} has shape {w.shape}, [kh, kw, in, out] expected")
            t = t.permute(3, 2, 0, 1)
        elif layout == "depthwise":
            if t.dim() != 4:
                raise TfjsError(f"node {node.name}: filter {name} has shape {w.shape}, [kh, kw, in, mult] expected")
            kh, kw, cin, mult = w.shape
            t = t.reshape(kh, kw, cin * mult).permute(2, 0, 1).unsqueeze(1)
        elif layout == "transpose":
            if t.dim() != 4:
                raise TfjsError(f"node {node.name}: filter {name} has shape {w.shape}, [kh, kw, out, in] expected")
            t = t.permute(3, 2, 0, 1)
        elif layout == "broadcast":
            if t.dim() > 4:
                raise TfjsError(f"node {node.name}: constant {name} of rank {t.dim()} cannot broadcast against NHWC")
            if t.dim() > 0:
                t = t.reshape([1] * (4 - t.dim()) + list(t.shape)).permute(0, 3, 1, 2)
        return self._param(name, t)

    def _int_const(self, node, name, consts, length):
        w = consts.get(name)
        if w is None or w.dtype != "int32" or w.numel() != length:
            raise TfjsError(f"node {node.name} ({node.op}): input {name} must be a constant int32[{length}]")
        return [int(v) for v in w.values]

    def _check_format(self, n):
        fmt = n.attrs.get("data_format", "NHWC")
        if fmt != "NHWC":
            raise TfjsError(f"node {n.name} ({n.op}): data_format {fmt} is not supported (NHWC)")

    def _padding(self, n):
        pad = n.attrs.get("padding", "VALID")
        if pad not in ("SAME", "VALID"):
            raise TfjsError(f"node {n.name} ({n.op}): padding {pad} is not supported (SAME, VALID)")
        return pad

    def _options(self, n, consts, readers):
        op = n.op
        if op in ("Conv2D", "DepthwiseConv2dNative"):
            self._check_format(n)
            if len(n.inputs) != 2:
                raise TfjsError(f"node {n.name} ({op}): 2 inputs expected, got {n.inputs}")
            key = self._const_operand(n, n.inputs[1], consts, "conv" if op == "Conv2D" else "depthwise")
            w = consts[n.inputs[1]]
            return {"weight": key, "stride": _nhwc_attr(n, "strides", [1, 1, 1, 1]),
                    "dilation": _nhwc_attr(n, "dilations", [1, 1, 1, 1]), "padding": self._padding(n),
                    "kernel": (w.shape[0], w.shape[1]),
                    "groups": w.shape[2] if op == "DepthwiseConv2dNative" else 1}
        if op == "Conv2DBackpropInput":
            self._check_format(n)
            if len(n.inputs) != 3:
                raise TfjsError(f"node {n.name} ({op}): 3 inputs (input_sizes, filter, x) expected, got {n.inputs}")
            sizes = self._int_const(n, n.inputs[0], consts, 4)
            key = self._const_operand(n, n.inputs[1], consts, "transpose")
            w = consts[n.inputs[1]]
            dil = _nhwc_attr(n, "dilations", [1, 1, 1, 1])
            if dil != (1, 1):
                raise TfjsError(f"node {n.name} ({op}): dilations {dil} are not supported")
            return {"weight": key, "stride": _nhwc_attr(n, "strides", [1, 1, 1, 1]), "padding": self._padding(n),
                    "kernel": (w.shape[0], w.shape[1]), "out_hw": (sizes[1], sizes[2]), "data": n.inputs[2]}
        if op == "AvgPool":
            self._check_format(n)
            return {"kernel": _nhwc_attr(n, "ksize", [1, 1, 1, 1]), "stride": _nhwc_attr(n, "strides", [1, 1, 1, 1]),
                    "padding": self._padding(n)}
        if op == "ResizeBilinear":
            align, half = n.attrs.get("align_corners", False), n.attrs.get("half_pixel_centers", False)
            if align == half:
                # Both false is TF's legacy sampling (src = dst * in / out), which no
                # F.interpolate mode computes; both true is invalid in TensorFlow.
                raise TfjsError(f"node {n.name} (ResizeBilinear): align_corners={align}, half_pixel_centers={half} "
                                "is not supported (one of them must be true)")
            size = self._int_const(n, n.inputs[1], consts, 2)
            return {"size": tuple(size), "align_corners": bool(align), "data": n.inputs[0]}
        if op in ELEMENTWISE:
            if len(n.inputs) != 2:
                raise TfjsError(f"node {n.name} ({op}): 2 inputs expected, got {n.inputs}")
            keys = [self._const_operand(n, i, consts, "broadcast") if i in consts else None for i in n.inputs]
            if all(keys):
                raise TfjsError(f"node {n.name} ({op}): both inputs are constants (fold them first)")
            return {"consts": keys}
        if op == "AddN":
            if any(i in consts for i in n.inputs):
                raise TfjsError(f"node {n.name} (AddN): constant inputs are not supported")
            return {}
        if op in UNARY:
            if len(n.inputs) != 1 or n.inputs[0] in consts:
                raise TfjsError(f"node {n.name} ({op}): one computed input expected, got {n.inputs}")
            return {}
        raise TfjsError(f"node {n.name}: op {op} is not supported")  # unreachable: checked in __init__

    # -- forward -----------------------------------------------------------------------

    def _conv(self, x, o, transposed=False):
        kh, kw = o["kernel"]
        sh, sw = o["stride"]
        if transposed:
            w = self.params[o["weight"]]
            y = F.conv_transpose2d(x, w, stride=(sh, sw))
            oh, ow = o["out_hw"]
            # TF crops the full transposed output [(in-1)*s + k] to out_hw, starting at the
            # SAME padding's "before" part (the forward conv from out_hw to the input).
            if o["padding"] == "SAME":
                top = _same_pad(oh, kh, sh, 1)[0]
                left = _same_pad(ow, kw, sw, 1)[0]
            else:
                top = left = 0
            if y.shape[2] < top + oh or y.shape[3] < left + ow:
                raise TfjsError(f"Conv2DBackpropInput: output {oh}x{ow} does not fit the transposed result {tuple(y.shape)}")
            if top or left or y.shape[2] != oh or y.shape[3] != ow:
                y = y[:, :, top:top + oh, left:left + ow]
            return y
        dh, dw = o["dilation"]
        pads = (0, 0, 0, 0)
        if o["padding"] == "SAME":
            t, b = _same_pad(x.shape[2], kh, sh, dh)
            l, r = _same_pad(x.shape[3], kw, sw, dw)
            pads = (l, r, t, b)
        w = self.params[o["weight"]]
        if pads[0] == pads[1] and pads[2] == pads[3]:
            return F.conv2d(x, w, stride=(sh, sw), padding=(pads[2], pads[0]), dilation=(dh, dw), groups=o["groups"])
        x = F.pad(x, pads)
        return F.conv2d(x, w, stride=(sh, sw), dilation=(dh, dw), groups=o["groups"])

    def _avg_pool(self, x, o):
        (kh, kw), (sh, sw) = o["kernel"], o["stride"]
        if o["padding"] == "SAME":
            pads = _same_pad(x.shape[2], kh, sh, 1) + _same_pad(x.shape[3], kw, sw, 1)
            if any(pads):
                # TF averages over the valid pixels only; that needs count_include_pad=False
                # with asymmetric padding, which no model here uses.
                raise TfjsError("AvgPool with SAME padding that pads is not supported")
        if self.global_pool_as_mean and (kh, kw) == tuple(x.shape[2:]):
            return x.mean(dim=(2, 3), keepdim=True)
        return F.avg_pool2d(x, (kh, kw), (sh, sw))

    def forward(self, *inputs):
        if len(inputs) != len(self.input_names):
            raise TypeError(f"{len(self.input_names)} inputs expected ({self.input_names}), got {len(inputs)}")
        env = dict(zip(self.input_names, inputs))
        for name, op, ins, o in self.steps:
            if op in ("Conv2D", "DepthwiseConv2dNative"):
                y = self._conv(env[ins[0]], o)
            elif op == "Conv2DBackpropInput":
                y = self._conv(env[o["data"]], o, transposed=True)
            elif op == "AvgPool":
                y = self._avg_pool(env[ins[0]], o)
            elif op == "ResizeBilinear":
                y = F.interpolate(env[o["data"]], size=o["size"], mode="bilinear", align_corners=o["align_corners"])
            elif op in ELEMENTWISE:
                a, b = (self.params[k] if k else env[i] for k, i in zip(o["consts"], ins))
                y = a + b if op in ("Add", "AddV2") else a * b if op == "Mul" else a - b
            elif op == "AddN":
                y = env[ins[0]]
                for i in ins[1:]:
                    y = y + env[i]
            elif op == "Relu":
                y = F.relu(env[ins[0]])
            elif op == "Relu6":
                y = F.relu6(env[ins[0]])
            elif op == "Sigmoid":
                y = torch.sigmoid(env[ins[0]])
            else:  # Identity
                y = env[ins[0]]
            env[name] = y
        outs = tuple(env[n] for n in self.output_names)
        return outs[0] if len(outs) == 1 else outs


def count_parameters(module):
    return sum(math.prod(p.shape) for p in module.parameters())
