#!/usr/bin/env python3
"""Reads a TensorFlow.js graph model (model.json + weight shards), standard library only.

A TF.js graph model is a TensorFlow GraphDef written as JSON: `modelTopology.node` lists the
nodes (`name`, `op`, `input`, `attr`), and the attribute values are protobuf JSON, so
strings (`s`) are base64 and 64-bit integers are decimal strings. The constant tensors are
not in the graph: `weightsManifest` names them, in order, with shape, dtype and an optional
`quantization` ({"dtype": "float16"}, or {"dtype": "uint8"/"uint16", "min", "scale"}: a
stored q means min + scale * q), and the shards listed in its `paths`, concatenated in
order, hold their bytes back to back. Every byte of the shards must be used.

    graph = read_tfjs_graph("selfie.json")
    graph.nodes            # [Node(name, op, inputs, attrs)], in file order
    graph.weights["Conv2D/filter"]    # Weight(shape, dtype, values: array('f') / array('i'))
    graph.input_names, graph.output_names   # from `signature` (else the Placeholders)

`python3 tfjs_graph_model.py model.json` prints a summary (ops, parameter count).
"""

import base64
import json
import math
import os
import struct
import sys
from array import array
from collections import Counter
from dataclasses import dataclass, field


class TfjsError(Exception):
    """A model file this reader does not understand (the message names the file and what)."""


@dataclass
class Weight:
    name: str
    shape: list
    dtype: str          # 'float32' or 'int32' (after dequantization)
    values: array       # array('f') or array('i'), row-major in TensorFlow's layout
    stored_as: str      # 'float32', 'float16', 'uint8', 'uint16', 'int32'

    def numel(self):
        return math.prod(self.shape)


@dataclass
class Node:
    name: str
    op: str
    inputs: list        # input node names; 'x:1' (second output) and '^x' (control) are refused
    attrs: dict = field(default_factory=dict)


@dataclass
class TfjsGraph:
    path: str
    nodes: list
    weights: dict
    input_names: list
    output_names: list
    format: str = ""
    generated_by: str = ""
    converted_by: str = ""

    def node(self, name):
        for n in self.nodes:
            if n.name == name:
                return n
        raise TfjsError(f"{self.path}: no node named {name!r}")

    def parameter_count(self, dtype="float32"):
        return sum(w.numel() for w in self.weights.values() if w.dtype == dtype)


def _attr_value(v):
    """One protobuf-JSON AttrValue as a Python value."""
    if "s" in v:
        return base64.b64decode(v["s"]).decode("utf-8", "replace")
    if "i" in v:
        return int(v["i"])
    if "f" in v:
        return float(v["f"])
    if "b" in v:
        return bool(v["b"])
    if "type" in v:
        return v["type"]
    if "shape" in v:
        dims = v["shape"].get("dim", [])
        return [int(d.get("size", -1)) for d in dims]
    if "list" in v:
        lst = v["list"]
        if "i" in lst:
            return [int(x) for x in lst["i"]]
        if "f" in lst:
            return [float(x) for x in lst["f"]]
        if "s" in lst:
            return [base64.b64decode(x).decode("utf-8", "replace") for x in lst["s"]]
        if "b" in lst:
            return [bool(x) for x in lst["b"]]
        return []
    if "tensor" in v:
        return v["tensor"]  # Const values live in the weights, not here
    return v


_RAW = {"float32": ("f", 4), "int32": ("i", 4)}
_QUANT = {"float16": 2, "uint8": 1, "uint16": 2}


def _decode_weight(spec, buf, offset, where):
    name, shape, dtype = spec.get("name"), spec.get("shape"), spec.get("dtype")
    if not isinstance(name, str) or not isinstance(shape, list) or not all(isinstance(d, int) and d >= 0 for d in shape):
        raise TfjsError(f"{where}: a weightsManifest entry without a name or with a bad shape: {spec}")
    if dtype not in _RAW:
        raise TfjsError(f"{where}: weight {name}: dtype {dtype!r} is not supported (float32, int32)")
    n = math.prod(shape)
    q = spec.get("quantization")
    if q is None:
        code, size = _RAW[dtype]
        end = offset + n * size
        if end > len(buf):
            raise TfjsError(f"{where}: weight {name} needs bytes {offset}..{end}, the shards have {len(buf)}")
        values = array(code)
        values.frombytes(buf[offset:end])
        if sys.byteorder != "little":
            values.byteswap()
        return Weight(name, shape, dtype, values, dtype), end
    qd = q.get("dtype")
    if qd not in _QUANT:
        raise TfjsError(f"{where}: weight {name}: quantization dtype {qd!r} is not supported (float16, uint8, uint16)")
    if dtype != "float32":
        raise TfjsError(f"{where}: weight {name}: quantized {dtype} is not supported (only float32)")
    end = offset + n * _QUANT[qd]
    if end > len(buf):
        raise TfjsError(f"{where}: weight {name} needs bytes {offset}..{end}, the shards have {len(buf)}")
    raw = buf[offset:end]
    if qd == "float16":
        vals = struct.unpack(f"<{n}e", raw)  # IEEE half: exact in float32
    else:
        if "min" not in q or "scale" not in q:
            raise TfjsError(f"{where}: weight {name}: {qd} quantization without min and scale")
        lo, scale = float(q["min"]), float(q["scale"])
        qs = struct.unpack(f"<{n}{'B' if qd == 'uint8' else 'H'}", raw)
        vals = [lo + scale * v for v in qs]
    return Weight(name, shape, "float32", array("f", vals), qd), end


def read_tfjs_graph(model_json):
    """Parses model.json and its shards (found next to it). Raises TfjsError."""
    try:
        with open(model_json, "rb") as f:
            doc = json.loads(f.read())
    except (OSError, ValueError) as e:
        raise TfjsError(f"{model_json}: not a readable JSON file: {e}") from e
    if not isinstance(doc, dict) or doc.get("format") not in ("graph-model", None) or "modelTopology" not in doc:
        raise TfjsError(f"{model_json}: not a TF.js graph model (format {doc.get('format') if isinstance(doc, dict) else '?'})")
    topo = doc["modelTopology"]
    if not isinstance(topo, dict) or not isinstance(topo.get("node"), list):
        raise TfjsError(f"{model_json}: modelTopology.node is missing (a layers model has model_config instead)")
    if topo.get("library", {}).get("function"):
        raise TfjsError(f"{model_json}: the graph has functions (control flow); not supported")

    nodes = []
    for raw in topo["node"]:
        inputs = list(raw.get("input", []))
        for i in inputs:
            if i.startswith("^"):
                raise TfjsError(f"{model_json}: node {raw.get('name')}: control input {i} is not supported")
            if ":" in i and not i.endswith(":0"):
                raise TfjsError(f"{model_json}: node {raw.get('name')}: input {i} (a second output) is not supported")
        inputs = [i[:-2] if i.endswith(":0") else i for i in inputs]
        attrs = {k: _attr_value(v) for k, v in raw.get("attr", {}).items()}
        nodes.append(Node(raw["name"], raw["op"], inputs, attrs))

    base = os.path.dirname(os.path.abspath(model_json))
    weights = {}
    for group in doc.get("weightsManifest", []):
        buf = bytearray()
        for p in group.get("paths", []):
            path = os.path.join(base, p)
            try:
                with open(path, "rb") as f:
                    buf += f.read()
            except OSError as e:
                raise TfjsError(f"{model_json}: weight shard {p}: {e}") from e
        where = f"{model_json} ({', '.join(group.get('paths', []))})"
        offset = 0
        for spec in group.get("weights", []):
            w, offset = _decode_weight(spec, buf, offset, where)
            if w.name in weights:
                raise TfjsError(f"{where}: weight {w.name} is listed twice")
            weights[w.name] = w
        if offset != len(buf):
            raise TfjsError(f"{where}: the weights use {offset} of the shards' {len(buf)} bytes")

    names = {n.name for n in nodes}
    for n in nodes:
        for i in n.inputs:
            if i not in names:
                raise TfjsError(f"{model_json}: node {n.name} reads {i!r}, which is no node")
        if n.op == "Const" and n.name not in weights:
            raise TfjsError(f"{model_json}: Const {n.name} has no entry in weightsManifest")

    sig = doc.get("signature") or {}
    strip = lambda s: s[:-2] if s.endswith(":0") else s  # noqa: E731
    input_names = [strip(v.get("name", k)) for k, v in sig.get("inputs", {}).items()] or \
        [n.name for n in nodes if n.op == "Placeholder"]
    output_names = [strip(v.get("name", k)) for k, v in sig.get("outputs", {}).items()]
    if not output_names:
        raise TfjsError(f"{model_json}: no signature.outputs: which node is the output is not known")
    for o in input_names + output_names:
        if o not in names:
            raise TfjsError(f"{model_json}: the signature names {o!r}, which is no node")
    return TfjsGraph(model_json, nodes, weights, input_names, output_names, doc.get("format", ""),
                     doc.get("generatedBy", ""), doc.get("convertedBy", ""))


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[0])
        print("usage: tfjs_graph_model.py MODEL.json")
        return 2
    try:
        g = read_tfjs_graph(argv[1])
    except TfjsError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    ops = Counter(n.op for n in g.nodes)
    stored = Counter(w.stored_as for w in g.weights.values())
    print(f"{argv[1]}: {len(g.nodes)} nodes, {len(g.weights)} weights "
          f"({g.parameter_count():,} float parameters; stored as {dict(stored)})")
    print(f"  inputs {g.input_names}, outputs {g.output_names}")
    print("  ops: " + ", ".join(f"{k} {v}" for k, v in ops.most_common()))
    if g.generated_by:
        print(f"  generated by {g.generated_by}; converted by {g.converted_by}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
