"""Reads an ncnn model (text .param + binary .bin) with nothing but the standard library.

The .param file (magic 7767517): a line "<layer count> <blob count>", then one line per
layer: type, name, input count, output count, input blob names, output blob names, and
"key=value" parameters (a negative key -23300-k marks an array "k=n,v1,...,vn"; see
ncnn's docs/developer-guide/param-and-model-file-structure.md).

The .bin file is the layers' weights in layer order, each array either
  - "tagged" (ncnn's ModelBin type 0): a 4-byte little-endian tag, then the values:
      0x01306B47  float16,  0x000D4B38  int8,  0x0002C056  float32 (raw),  0  float32;
    data padded to a multiple of 4 bytes, or
  - raw float32 (type 1), no tag.
Convolution: weight (tagged, weight_data_size = param 6), then bias (raw float32,
num_output = param 0) when bias_term (param 5) is 1. PReLU: num_slope (param 0) raw float32.
Layers without weights (Input, Split, Concat, Eltwise, BinaryOp, Interp, PixelShuffle,
ReLU ...) read nothing. An unknown layer type is an error rather than a silent misread.

    model = read_ncnn("realesrgan-x4fast.param", "realesrgan-x4fast.bin")
    model.layers[2].type, model.layers[2].params[0], len(model.layers[2].weights["weight"])

Weights come back as Python lists of floats (array('f') would do, but struct keeps the
float16 decode in one call); convert with torch.tensor(...).view(shape) where torch exists.

Run as a script for a summary and the self-checks (layer count, every byte read):
    python3 scripts/convert/ncnn_model.py out/realesrgan_ncnn/realesrgan-x4fast.param
"""

import struct
import sys
from dataclasses import dataclass, field

PARAM_MAGIC = 7767517
TAG_FP16 = 0x01306B47
TAG_INT8 = 0x000D4B38
TAG_FP32_RAW = 0x0002C056

# Layer types known to carry no weights in the .bin.
NO_WEIGHTS = {"Input", "Split", "Concat", "Eltwise", "BinaryOp", "Interp", "PixelShuffle", "ReLU",
              "Sigmoid", "Crop", "Reshape", "Permute", "Flatten", "Pooling", "Softmax", "Noop"}


class NcnnError(ValueError):
    pass


@dataclass
class Layer:
    type: str
    name: str
    inputs: list
    outputs: list
    params: dict  # int key -> int | float | list
    weights: dict = field(default_factory=dict)  # "weight"/"bias"/"slope" -> list of floats


@dataclass
class NcnnModel:
    layers: list
    blob_count: int
    bin_bytes: int

    def weight_count(self):
        return sum(len(w) for layer in self.layers for w in layer.weights.values())

    def by_type(self, type_name):
        return [layer for layer in self.layers if layer.type == type_name]


def _number(text):
    try:
        return int(text)
    except ValueError:
        return float(text)


def parse_param(text, where="<param>"):
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines or lines[0] != str(PARAM_MAGIC):
        raise NcnnError(f"{where}: not an ncnn .param file (first line {lines[0] if lines else '(empty)'!r}, "
                        f"expected {PARAM_MAGIC})")
    try:
        layer_count, blob_count = (int(v) for v in lines[1].split())
    except (IndexError, ValueError):
        raise NcnnError(f"{where}: line 2 must be '<layer count> <blob count>'") from None
    layers = []
    for n, line in enumerate(lines[2:], start=3):
        parts = line.split()
        if len(parts) < 4:
            raise NcnnError(f"{where}:{n}: expected 'type name inputs outputs ...', got {line!r}")
        type_name, name = parts[0], parts[1]
        n_in, n_out = int(parts[2]), int(parts[3])
        if len(parts) < 4 + n_in + n_out:
            raise NcnnError(f"{where}:{n}: {name} lists fewer blobs than its counts {n_in} + {n_out}")
        inputs = parts[4:4 + n_in]
        outputs = parts[4 + n_in:4 + n_in + n_out]
        params = {}
        for kv in parts[4 + n_in + n_out:]:
            key, _, value = kv.partition("=")
            if not _:
                raise NcnnError(f"{where}:{n}: {name}: parameter {kv!r} is not key=value")
            key = int(key)
            if key <= -23300:  # array: count, then values
                values = [_number(v) for v in value.split(",")]
                if values[0] != len(values) - 1:
                    raise NcnnError(f"{where}:{n}: {name}: array {kv!r} says {values[0]} values, holds {len(values) - 1}")
                params[-key - 23300] = values[1:]
            else:
                params[key] = _number(value)
        layers.append(Layer(type_name, name, inputs, outputs, params))
    if len(layers) != layer_count:
        raise NcnnError(f"{where}: header says {layer_count} layers, the file has {len(layers)}")
    return layers, blob_count


class _Reader:
    def __init__(self, data, where):
        self.data, self.pos, self.where = data, 0, where

    def take(self, n, what):
        if self.pos + n > len(self.data):
            raise NcnnError(f"{self.where}: {what} needs {n} bytes at offset {self.pos}, "
                            f"the file has {len(self.data) - self.pos} left")
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out

    def raw_f32(self, count, what):
        return list(struct.unpack(f"<{count}f", self.take(4 * count, what)))

    def tagged(self, count, what):
        (tag,) = struct.unpack("<I", self.take(4, what + " tag"))
        if tag == TAG_FP16:
            values = list(struct.unpack(f"<{count}e", self.take(2 * count, what)))
            self.take((-2 * count) % 4, what + " padding")
            return values
        if tag in (TAG_FP32_RAW, 0):
            return self.raw_f32(count, what)
        if tag == TAG_INT8:
            raise NcnnError(f"{self.where}: {what} is int8-quantized (tag 0x{tag:08X}); not supported")
        raise NcnnError(f"{self.where}: {what} has an unknown tag 0x{tag:08X} at offset {self.pos - 4}")


def read_ncnn(param_path, bin_path):
    with open(param_path, encoding="utf-8") as f:
        layers, blob_count = parse_param(f.read(), param_path)
    with open(bin_path, "rb") as f:
        data = f.read()
    r = _Reader(data, bin_path)
    for layer in layers:
        p = layer.params
        what = f"{layer.type} {layer.name}"
        if layer.type == "Convolution":
            num_output, weight_size = p.get(0, 0), p.get(6, 0)
            kernel_w = p.get(1, 0)
            kernel_h = p.get(11, kernel_w)
            if num_output <= 0 or kernel_w <= 0 or weight_size % (num_output * kernel_w * kernel_h) != 0:
                raise NcnnError(f"{param_path}: {what}: weight_data_size {weight_size} is not "
                                f"{num_output} x C x {kernel_h} x {kernel_w}")
            layer.weights["weight"] = r.tagged(weight_size, what + " weight")
            if p.get(5, 0):
                layer.weights["bias"] = r.raw_f32(num_output, what + " bias")
        elif layer.type == "PReLU":
            layer.weights["slope"] = r.raw_f32(p.get(0, 1), what + " slope")
        elif layer.type not in NO_WEIGHTS:
            raise NcnnError(f"{param_path}: layer type {layer.type} ({layer.name}) is not known to this reader")
    if r.pos != len(data):
        raise NcnnError(f"{bin_path}: {len(data) - r.pos} bytes left after the last layer (read {r.pos} of {len(data)})")
    return NcnnModel(layers, blob_count, len(data))


def conv_shape(layer):
    """OIHW shape of a Convolution layer's weight."""
    o, kw = layer.params[0], layer.params[1]
    kh = layer.params.get(11, kw)
    return (o, layer.params[6] // (o * kw * kh), kh, kw)


def main(argv):
    if len(argv) != 2:
        print(__doc__)
        return 2
    param = argv[1]
    model = read_ncnn(param, param[:-len(".param")] + ".bin")
    counts = {}
    for layer in model.layers:
        counts[layer.type] = counts.get(layer.type, 0) + 1
    print(f"{param}: {len(model.layers)} layers, {model.blob_count} blobs, {model.weight_count():,} weights, "
          f"every one of the {model.bin_bytes:,} .bin bytes read")
    for type_name, n in sorted(counts.items()):
        print(f"  {n:4d} {type_name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
