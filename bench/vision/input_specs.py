#!/usr/bin/env python3
"""Prints an exported model's inputs as FILE:dtype:d0,d1,... (one per line), the form that
`wick run/bench --input` and ort_bench.mjs take, from DIR/meta.json (export.py writes it).

    python3 bench/vision/input_specs.py DIR
"""
import json
import os
import sys

d = sys.argv[1]
for i in json.load(open(os.path.join(d, "meta.json")))["inputs"]:
    print(f"{d}/{i['file']}:{i['dtype']}:{','.join(map(str, i['shape']))}")
