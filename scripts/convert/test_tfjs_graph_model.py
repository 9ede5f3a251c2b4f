"""Tests of tfjs_graph_model.py (standard library) and tfjs_torch.py (when PyTorch is
importable; Debian's python3-torch 1.13 is enough):

    python3 -m unittest discover -s scripts/convert -p 'test_*.py'

A small TF.js graph model is written here (fp16, uint8-quantized, float32 and int32
weights) and read back; truncated and overlong shards, unknown dtypes, control inputs and
missing constants must be errors. With PyTorch: a Conv2D with stride 2 and SAME padding
(asymmetric: the odd pixel after), a depthwise one, a transposed one and a bias Add, in
NHWC, are computed here in plain Python loops and compared with the module (NCHW); an
unknown op must be refused naming it. When the selfie model is unpacked in
out/selfie_device (prepare_selfie.sh), its node and parameter counts are checked too.
"""

import base64
import json
import math
import os
import struct
import tempfile
import unittest

from tfjs_graph_model import TfjsError, read_tfjs_graph

HERE = os.path.dirname(os.path.abspath(__file__))
REAL = os.path.join(HERE, "..", "..", "out", "selfie_device", "selfie.json")

try:
    import torch
except ImportError:
    torch = None


def b64(s):
    return base64.b64encode(s.encode()).decode()


def const(name, dtype="DT_FLOAT"):
    return {"name": name, "op": "Const", "attr": {"dtype": {"type": dtype}, "value": {"tensor": {"dtype": dtype}}}}


def conv_node(name, op, x, w, stride, padding="SAME"):
    return {"name": name, "op": op, "input": [x, w],
            "attr": {"strides": {"list": {"i": ["1", str(stride), str(stride), "1"]}}, "padding": {"s": b64(padding)},
                     "data_format": {"s": b64("NHWC")}, "dilations": {"list": {"i": ["1", "1", "1", "1"]}}}}


def write_model(tmp, nodes, weights, data, outputs, extra=None):
    doc = {"format": "graph-model", "modelTopology": {"node": nodes, "library": {}, "versions": {}},
           "weightsManifest": [{"paths": ["w.bin"], "weights": weights}],
           "signature": {"outputs": {f"{o}:0": {"name": f"{o}:0"} for o in outputs}}}
    doc.update(extra or {})
    path = os.path.join(tmp, "model.json")
    with open(path, "w") as f:
        json.dump(doc, f)
    with open(os.path.join(tmp, "w.bin"), "wb") as f:
        f.write(data)
    return path


class Reader(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.nodes = [{"name": "x", "op": "Placeholder", "attr": {"dtype": {"type": "DT_FLOAT"}}},
                      const("a"), const("q"), const("f"), const("s", "DT_INT32"),
                      {"name": "y", "op": "Add", "input": ["x", "a:0"]}]
        self.weights = [{"name": "a", "shape": [3], "dtype": "float32", "quantization": {"dtype": "float16"}},
                        {"name": "q", "shape": [2, 2], "dtype": "float32",
                         "quantization": {"dtype": "uint8", "min": -1.0, "scale": 0.5}},
                        {"name": "f", "shape": [], "dtype": "float32"},
                        {"name": "s", "shape": [2], "dtype": "int32"}]
        self.data = struct.pack("<3e", 0.5, -2.0, 1024.0) + bytes([0, 1, 2, 255]) + struct.pack("<f", 3.25) + \
            struct.pack("<2i", 7, -9)

    def tearDown(self):
        self.tmp.cleanup()

    def read(self, nodes=None, weights=None, data=None, outputs=("y",), extra=None):
        return read_tfjs_graph(write_model(self.tmp.name, nodes or self.nodes, weights or self.weights,
                                           self.data if data is None else data, outputs, extra))

    def test_reads_every_kind_of_weight(self):
        g = self.read()
        self.assertEqual([n.op for n in g.nodes], ["Placeholder", "Const", "Const", "Const", "Const", "Add"])
        self.assertEqual(g.node("y").inputs, ["x", "a"])  # ':0' dropped
        self.assertEqual(list(g.weights["a"].values), [0.5, -2.0, 1024.0])
        self.assertEqual(list(g.weights["q"].values), [-1.0, -0.5, 0.0, 126.5])
        self.assertEqual(g.weights["q"].shape, [2, 2])
        self.assertEqual(list(g.weights["f"].values), [3.25])
        self.assertEqual(list(g.weights["s"].values), [7, -9])
        self.assertEqual(g.weights["s"].dtype, "int32")
        self.assertEqual((g.input_names, g.output_names), (["x"], ["y"]))
        self.assertEqual(g.parameter_count(), 3 + 4 + 1)

    def test_attributes_are_decoded(self):
        nodes = self.nodes[:-1] + [conv_node("y", "Conv2D", "x", "a", 2)]
        g = self.read(nodes=nodes)
        self.assertEqual(g.node("y").attrs["padding"], "SAME")
        self.assertEqual(g.node("y").attrs["strides"], [1, 2, 2, 1])

    def test_truncated_and_overlong_shards_are_errors(self):
        with self.assertRaisesRegex(TfjsError, "weight s needs bytes"):
            self.read(data=self.data[:-1])
        with self.assertRaisesRegex(TfjsError, "use 22 of the shards' 23 bytes"):
            self.read(data=self.data + b"\0")

    def test_unsupported_dtypes_are_errors(self):
        w = [dict(self.weights[0], quantization={"dtype": "int4"})] + self.weights[1:]
        with self.assertRaisesRegex(TfjsError, "weight a: quantization dtype 'int4'"):
            self.read(weights=w)
        w = [dict(self.weights[0], dtype="complex64")] + self.weights[1:]
        with self.assertRaisesRegex(TfjsError, "weight a: dtype 'complex64'"):
            self.read(weights=w)

    def test_graph_errors(self):
        with self.assertRaisesRegex(TfjsError, "control input"):
            self.read(nodes=self.nodes[:-1] + [{"name": "y", "op": "Add", "input": ["x", "^a"]}])
        with self.assertRaisesRegex(TfjsError, "second output"):
            self.read(nodes=self.nodes[:-1] + [{"name": "y", "op": "Add", "input": ["x", "a:1"]}])
        with self.assertRaisesRegex(TfjsError, "reads 'nope'"):
            self.read(nodes=self.nodes[:-1] + [{"name": "y", "op": "Add", "input": ["x", "nope"]}])
        with self.assertRaisesRegex(TfjsError, "Const extra has no entry"):
            self.read(nodes=self.nodes + [const("extra")])
        with self.assertRaisesRegex(TfjsError, "names 'z'"):
            self.read(outputs=("z",))
        with self.assertRaisesRegex(TfjsError, "not a TF.js graph model"):
            self.read(extra={"format": "layers-model"})
        path = write_model(self.tmp.name, self.nodes, self.weights, self.data, ["y"])
        os.remove(os.path.join(self.tmp.name, "w.bin"))
        with self.assertRaisesRegex(TfjsError, "weight shard w.bin"):
            read_tfjs_graph(path)


# -- tfjs_torch: NHWC reference arithmetic in plain Python ---------------------------------

def nhwc(h, w, c, seed):
    """A deterministic [h][w][c] nested list with varied values."""
    return [[[math.sin(seed + 0.7 * y + 1.3 * x + 2.1 * k) for k in range(c)] for x in range(w)] for y in range(h)]


def f32(v):
    """v rounded to float32, as the weights are stored."""
    return struct.unpack("<f", struct.pack("<f", v))[0]


def same_pads(size, k, s):
    out = -(-size // s)
    total = max((out - 1) * s + k - size, 0)
    return total // 2, out


def conv_same(x, f, stride, depthwise=False):
    """TensorFlow's Conv2D / DepthwiseConv2dNative (multiplier 1) with SAME padding, NHWC.
    f: [kh][kw][cin][cout] (conv) or [kh][kw][c][1] (depthwise)."""
    h, w, cin = len(x), len(x[0]), len(x[0][0])
    kh, kw = len(f), len(f[0])
    top, oh = same_pads(h, kh, stride)
    left, ow = same_pads(w, kw, stride)
    cout = cin if depthwise else len(f[0][0][0])
    y = [[[0.0] * cout for _ in range(ow)] for _ in range(oh)]
    for i in range(oh):
        for j in range(ow):
            for o in range(cout):
                acc = 0.0
                for a in range(kh):
                    for b in range(kw):
                        yy, xx = i * stride + a - top, j * stride + b - left
                        if 0 <= yy < h and 0 <= xx < w:
                            if depthwise:
                                acc += x[yy][xx][o] * f[a][b][o][0]
                            else:
                                acc += sum(x[yy][xx][c] * f[a][b][c][o] for c in range(cin))
                y[i][j][o] = acc
    return y


def conv_transpose_valid(x, f, stride):
    """Conv2DBackpropInput with kernel == stride (no overlap, no crop), NHWC; f: [kh][kw][cout][cin]."""
    h, w, cin = len(x), len(x[0]), len(x[0][0])
    kh, kw, cout = len(f), len(f[0]), len(f[0][0])
    y = [[[0.0] * cout for _ in range(w * stride)] for _ in range(h * stride)]
    for i in range(h):
        for j in range(w):
            for a in range(kh):
                for b in range(kw):
                    for o in range(cout):
                        y[i * stride + a][j * stride + b][o] += sum(x[i][j][c] * f[a][b][o][c] for c in range(cin))
    return y


def flat(t):
    return [v for row in t for px in row for v in (px if isinstance(px, list) else [px])] if isinstance(t[0], list) else t


@unittest.skipIf(torch is None, "no PyTorch here (Debian python3-torch is enough)")
class TorchModule(unittest.TestCase):
    """Conv2D 3x3 s2 SAME on 5x6 (pads: top 1 bottom 1, left 0 right 1 -> asymmetric),
    + bias, Relu6, depthwise 3x3 s1 SAME, then a 2x2 s2 transposed conv back up."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def build(self, extra_nodes=()):
        from tfjs_torch import TfjsGraphModule
        cin, cmid, cout = 2, 3, 2
        self.w1 = [[[[f32(0.1 * math.cos(a + 2 * b + 3 * c + 5 * o)) for o in range(cmid)] for c in range(cin)]
                    for b in range(3)] for a in range(3)]
        self.bias = [0.5, -0.25, 4.0]
        self.dw = [[[[f32(0.2 * math.sin(1 + a + 3 * b + c))] for c in range(cmid)] for b in range(3)] for a in range(3)]
        self.wt = [[[[f32(0.3 * math.cos(a + 2 * b + 3 * o + 7 * c)) for c in range(cmid)] for o in range(cout)]
                    for b in range(2)] for a in range(2)]
        nodes = [{"name": "x", "op": "Placeholder", "attr": {}}, const("w1"), const("b1"), const("dw"), const("wt"),
                 const("sizes", "DT_INT32"),
                 conv_node("c1", "Conv2D", "x", "w1", 2), {"name": "a1", "op": "AddV2", "input": ["c1", "b1"]},
                 {"name": "r1", "op": "Relu6", "input": ["a1"]},
                 conv_node("d1", "DepthwiseConv2dNative", "r1", "dw", 1),
                 {"name": "t1", "op": "Conv2DBackpropInput", "input": ["sizes", "wt", "d1"],
                  "attr": {"strides": {"list": {"i": ["1", "2", "2", "1"]}}, "padding": {"s": b64("VALID")},
                           "data_format": {"s": b64("NHWC")}}}] + list(extra_nodes)
        fl = lambda t: [v for a in t for b in a for c in b for v in c]  # noqa: E731
        weights = [{"name": "w1", "shape": [3, 3, cin, cmid], "dtype": "float32"},
                   {"name": "b1", "shape": [cmid], "dtype": "float32"},
                   {"name": "dw", "shape": [3, 3, cmid, 1], "dtype": "float32"},
                   {"name": "wt", "shape": [2, 2, cout, cmid], "dtype": "float32"},
                   {"name": "sizes", "shape": [4], "dtype": "int32"}]
        vals = fl(self.w1) + self.bias + fl(self.dw) + fl(self.wt)
        data = struct.pack(f"<{len(vals)}f", *vals) + struct.pack("<4i", 1, 6, 6, cout)
        out = extra_nodes[-1]["name"] if extra_nodes else "t1"
        return TfjsGraphModule(read_tfjs_graph(write_model(self.tmp.name, nodes, weights, data, [out])))

    def test_matches_tensorflow_arithmetic(self):
        m = self.build()
        x = nhwc(5, 6, 2, seed=0.3)
        c1 = conv_same(x, self.w1, 2)                                   # [3, 3, 3]
        r1 = [[[min(max(v + self.bias[k], 0.0), 6.0) for k, v in enumerate(px)] for px in row] for row in c1]
        d1 = conv_same(r1, self.dw, 1, depthwise=True)
        want = conv_transpose_valid(d1, self.wt, 2)                     # [6, 6, 2]
        xt = torch.tensor(x, dtype=torch.float64).permute(2, 0, 1).unsqueeze(0)
        with torch.no_grad():
            got = m.double()(xt)
        self.assertEqual(tuple(got.shape), (1, 2, 6, 6))
        wt = torch.tensor(want, dtype=torch.float64).permute(2, 0, 1).unsqueeze(0)
        self.assertLess(float((got - wt).abs().max()), 1e-12)

    def test_unknown_op_is_refused_by_name(self):
        with self.assertRaisesRegex(TfjsError, r"ops not supported by tfjs_torch.py: \['Tanh'\].*t2 \(Tanh\)"):
            self.build([{"name": "t2", "op": "Tanh", "input": ["t1"]}])

    def test_legacy_resize_is_refused(self):
        node = {"name": "z", "op": "ResizeBilinear", "input": ["t1", "sizes"],
                "attr": {"align_corners": {"b": False}, "half_pixel_centers": {"b": False}}}
        with self.assertRaisesRegex(TfjsError, "z \\(ResizeBilinear\\): align_corners=False, half_pixel_centers=False"):
            self.build([node])


@unittest.skipUnless(os.path.exists(REAL), "out/selfie_device/selfie.json absent (scripts/convert/prepare_selfie.sh)")
class RealSelfieModel(unittest.TestCase):
    def test_counts(self):
        g = read_tfjs_graph(REAL)
        self.assertEqual(len(g.nodes), 361)
        self.assertEqual(g.parameter_count(), 106423)
        self.assertEqual((g.input_names, g.output_names), (["input_1"], ["activation_10"]))
        self.assertEqual({w.stored_as for w in g.weights.values()}, {"float16", "int32"})


if __name__ == "__main__":
    unittest.main()
