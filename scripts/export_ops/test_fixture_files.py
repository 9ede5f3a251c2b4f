"""Tests of fixture_files.py (standard library only):
python3 -m unittest discover -s scripts/export_ops -p 'test_*.py'"""

import json
import os
import struct
import tempfile
import unittest

from fixture_files import tensor_entry, write_fixture


class FixtureFilesTest(unittest.TestCase):
    def test_float_entry_has_stats_and_hash(self):
        raw = struct.pack("<3f", 1.0, -4.0, 0.5)
        e = tensor_entry("a.bin", "float32", [3], raw)
        self.assertEqual(e["nbytes"], 12)
        self.assertEqual(e["max_abs"], 4.0)
        self.assertAlmostEqual(e["mean"], -2.5 / 3)
        self.assertEqual(len(e["sha256_prefix"]), 16)

    def test_size_mismatch_and_bad_dtype_are_named(self):
        with self.assertRaisesRegex(ValueError, "a.bin: 5 bytes for int8\\[2, 3\\]"):
            tensor_entry("a.bin", "int8", [2, 3], b"12345")
        with self.assertRaisesRegex(ValueError, "unsupported dtype float16"):
            tensor_entry("a.bin", "float16", [1], b"12")

    def test_layout_matches_shared_fixtures(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "gt_tensor")
            cases = [([("float32", [2], struct.pack("<2f", 1, 2)), ("float32", [2], struct.pack("<2f", 2, 1))],
                      [("bool", [2], bytes([0, 1]))])]
            write_fixture(out, "gt_tensor", "x > y", b"PTE!", cases, (0, 0), {"vk_ops": ["aten.gt.Tensor"]})
            self.assertEqual(sorted(os.listdir(out)),
                             ["case0_input0.bin", "case0_input1.bin", "case0_output0.bin", "manifest.json", "model.pte"])
            m = json.load(open(os.path.join(out, "manifest.json")))
            self.assertEqual(m["format"], "et-fixture-v1")
            self.assertEqual(m["cases"][0]["outputs"][0]["dtype"], "bool")
            self.assertEqual(m["tolerance"]["atol"], 0)
            self.assertEqual(m["vk_ops"], ["aten.gt.Tensor"])
            with open(os.path.join(out, "case0_output0.bin"), "rb") as f:
                self.assertEqual(f.read(), bytes([0, 1]))


if __name__ == "__main__":
    unittest.main()
