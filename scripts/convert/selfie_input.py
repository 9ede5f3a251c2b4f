#!/usr/bin/env python3
"""The selfie model's reference input from a photo: the centre square, box-averaged to
256x256 with integer rounding, so that the input is exactly 8-bit pixels / 255 and can be
bundled as a PNG (a third of the raw float32 tensor's size) that Wick, the page and this
toolchain all turn into the same tensor.

    python3 scripts/convert/selfie_input.py PHOTO.png OUT.png OUT_input.bin

OUT.png: 256x256 RGB, 8-bit, no colour chunks (so browsers decode the stored values).
OUT_input.bin: raw little-endian float32 [1, 3, 256, 256], RGB / 255 (the model's [0, 1]).
Reads PHOTO with Pillow (Debian python3-pil); the photo's side must be a multiple of 256
(astronaut.png: 512).
"""

import struct
import sys
import zlib
from array import array

SIDE = 256


def write_png_rgb(path, width, height, rgb):
    """8-bit RGB PNG, filter 0 on every row; IHDR, IDAT, IEND only."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    rows = b"".join(b"\x00" + bytes(rgb[y * width * 3:(y + 1) * width * 3]) for y in range(height))
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)) + \
        chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b"")
    with open(path, "wb") as f:
        f.write(png)


def main(argv):
    if len(argv) != 4:
        print(__doc__)
        return 2
    from PIL import Image
    img = Image.open(argv[1]).convert("RGB")
    w, h = img.size
    side = min(w, h)
    if side % SIDE:
        print(f"{argv[1]}: {w}x{h}; the centre square's side {side} is not a multiple of {SIDE}", file=sys.stderr)
        return 1
    x0, y0, k = (w - side) // 2, (h - side) // 2, side // SIDE
    px = img.load()
    out = bytearray(SIDE * SIDE * 3)
    for y in range(SIDE):
        for x in range(SIDE):
            acc = [0, 0, 0]
            for dy in range(k):
                for dx in range(k):
                    p = px[x0 + x * k + dx, y0 + y * k + dy]
                    for c in range(3):
                        acc[c] += p[c]
            for c in range(3):
                out[(y * SIDE + x) * 3 + c] = (acc[c] + k * k // 2) // (k * k)
    write_png_rgb(argv[2], SIDE, SIDE, out)
    chw = array("f", [out[i * 3 + c] / 255.0 for c in range(3) for i in range(SIDE * SIDE)])
    if sys.byteorder != "little":
        chw.byteswap()
    with open(argv[3], "wb") as f:
        f.write(chw.tobytes())
    print(f"{argv[1]} ({w}x{h}): centre {side}x{side}, {k}x{k} box average -> {argv[2]}, {argv[3]} [1,3,{SIDE},{SIDE}]")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
