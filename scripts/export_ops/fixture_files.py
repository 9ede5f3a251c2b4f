"""Writing one fixture folder in the layout of shared/fixtures (README.md there): raw
little-endian tensor files caseK_inputJ.bin / caseK_outputJ.bin and manifest.json.

Standard library only, so it is tested on machines without torch (test_fixture_files.py).
A tensor is handed over as (dtype name, shape, raw bytes); float32 entries also get
max_abs and mean, as in the shared fixtures.
"""

import hashlib
import json
import math
import os
import struct

ITEM_BYTES = {"float32": 4, "int64": 8, "int32": 4, "int8": 1, "uint8": 1, "bool": 1}


def tensor_entry(file, dtype, shape, raw):
    """The manifest entry of one tensor file; checks that the bytes fit dtype and shape."""
    if dtype not in ITEM_BYTES:
        raise ValueError(f"{file}: unsupported dtype {dtype}")
    numel = 1
    for d in shape:
        if int(d) < 0:
            raise ValueError(f"{file}: negative dim in {list(shape)}")
        numel *= int(d)
    if len(raw) != numel * ITEM_BYTES[dtype]:
        raise ValueError(f"{file}: {len(raw)} bytes for {dtype}{list(shape)} ({numel * ITEM_BYTES[dtype]} expected)")
    e = {
        "file": file,
        "dtype": dtype,
        "shape": [int(d) for d in shape],
        "nbytes": len(raw),
        "sha256_prefix": hashlib.sha256(raw).hexdigest()[:16],
    }
    if dtype == "float32" and numel:
        vals = struct.unpack(f"<{numel}f", raw)
        e["max_abs"] = max(abs(v) for v in vals)
        e["mean"] = math.fsum(vals) / numel
    return e


def write_fixture(out_dir, name, description, pte_bytes, cases, tolerance, extra):
    """cases: [(inputs, outputs)], each a list of (dtype, shape, raw bytes).
    tolerance: (atol, rtol). extra: more manifest keys (versions, delegation, ...)."""
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "model.pte"), "wb") as f:
        f.write(pte_bytes)
    man_cases = []
    for k, (inputs, outputs) in enumerate(cases):
        entry = {"inputs": [], "outputs": []}
        for kind, tensors in (("input", inputs), ("output", outputs)):
            for j, (dtype, shape, raw) in enumerate(tensors):
                file = f"case{k}_{kind}{j}.bin"
                entry[kind + "s"].append(tensor_entry(file, dtype, shape, raw))
                with open(os.path.join(out_dir, file), "wb") as f:
                    f.write(raw)
        man_cases.append(entry)
    manifest = {
        "format": "et-fixture-v1",
        "name": name,
        "group": "ops",
        "description": description,
        "program": "model.pte",
        "method": "forward",
        "cases": man_cases,
        "tolerance": {
            "atol": tolerance[0],
            "rtol": tolerance[1],
            "rule": "abs(out - ref) <= atol + rtol * abs(ref), elementwise; bool/int outputs exact",
        },
        "pte_bytes": len(pte_bytes),
        "pte_sha256": hashlib.sha256(pte_bytes).hexdigest(),
    }
    manifest.update(extra)
    with open(os.path.join(out_dir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=False)
        f.write("\n")
    return manifest


def dir_bytes(path):
    return sum(os.path.getsize(os.path.join(path, f)) for f in os.listdir(path))
