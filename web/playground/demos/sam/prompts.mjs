// SAM 2 pre- and post-processing that needs no browser: the prompts in the model's input
// frame, the image tensor from RGBA pixels, and the low-resolution mask logits brought back
// to the photo's size. SAM 2 resizes the photo to the encoder's square input without
// keeping its aspect ratio (no padding, unlike SAM 1), so a point (x, y) in the photo is
// (x * S / width, y * S / height) in the model's frame, and the mask maps back by a plain
// resize to the photo's size.

export const LABEL = {negative: 0, positive: 1, boxTopLeft: 2, boxBottomRight: 3, padding: -1};
export const IMAGENET = {mean: [0.485, 0.456, 0.406], std: [0.229, 0.224, 0.225]};

// prompts: [{type: 'point', x, y, positive}] or [{type: 'box', x0, y0, x1, y1}] in photo
// pixels. A box is its two corners with labels 2 and 3, as SAM 2 feeds boxes to the prompt
// encoder. The program takes `slots` points: the latest prompts that fit are used, the
// rest of the slots padded with label -1 ("not a point"). Returns {coords: Float32Array
// [slots * 2], labels: BigInt64Array [slots], used: how many prompts fit}.
export function promptTensors(prompts, {width, height, size, slots}) {
  const points = [];
  let used = 0;
  for (let i = prompts.length - 1; i >= 0; i--) {
    const p = prompts[i];
    const these = p.type === 'box'
      ? [[Math.min(p.x0, p.x1), Math.min(p.y0, p.y1), LABEL.boxTopLeft], [Math.max(p.x0, p.x1), Math.max(p.y0, p.y1), LABEL.boxBottomRight]]
      : [[p.x, p.y, p.positive ? LABEL.positive : LABEL.negative]];
    if (points.length + these.length > slots) break;
    points.unshift(...these);
    used++;
  }
  const coords = new Float32Array(2 * slots), labels = new BigInt64Array(slots).fill(BigInt(LABEL.padding));
  points.forEach(([x, y, label], i) => {
    coords[2 * i] = (x * size) / width;
    coords[2 * i + 1] = (y * size) / height;
    labels[i] = BigInt(label);
  });
  return {coords, labels, used};
}

// RGBA pixels (already resized to size x size) -> float32 NCHW, (v/255 - mean) / std.
export function pixelsToTensor(rgba, size, {mean, std} = IMAGENET) {
  const plane = size * size, out = new Float32Array(3 * plane);
  for (let i = 0; i < plane; i++) {
    for (let c = 0; c < 3; c++) out[c * plane + i] = (rgba[4 * i + c] / 255 - mean[c]) / std[c];
  }
  return out;
}

// Bilinear resize of one [h, w] plane to [outH, outW] with half-pixel centres
// (torch.nn.functional.interpolate(mode='bilinear', align_corners=False), what SAM 2's
// post-processing uses).
export function resizeBilinear(src, h, w, outH, outW) {
  const out = new Float32Array(outH * outW);
  const sy = h / outH, sx = w / outW;
  for (let y = 0; y < outH; y++) {
    const fy = Math.max(0, (y + 0.5) * sy - 0.5), y0 = Math.min(h - 1, Math.floor(fy)), y1 = Math.min(h - 1, y0 + 1), wy = fy - y0;
    for (let x = 0; x < outW; x++) {
      const fx = Math.max(0, (x + 0.5) * sx - 0.5), x0 = Math.min(w - 1, Math.floor(fx)), x1 = Math.min(w - 1, x0 + 1), wx = fx - x0;
      const top = src[y0 * w + x0] * (1 - wx) + src[y0 * w + x1] * wx;
      const bottom = src[y1 * w + x0] * (1 - wx) + src[y1 * w + x1] * wx;
      out[y * outW + x] = top * (1 - wy) + bottom * wy;
    }
  }
  return out;
}

// The mask (logits > 0) and its outline (mask pixels with a 4-neighbour outside it), as
// Uint8Arrays of 0/1, with the mask's area in pixels.
export function maskAndOutline(logits, width, height) {
  const mask = new Uint8Array(width * height), edge = new Uint8Array(width * height);
  let area = 0;
  for (let i = 0; i < mask.length; i++) if (logits[i] > 0) { mask[i] = 1; area++; }
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      if (!mask[i]) continue;
      if (x === 0 || y === 0 || x === width - 1 || y === height - 1 ||
          !mask[i - 1] || !mask[i + 1] || !mask[i - width] || !mask[i + width]) edge[i] = 1;
    }
  }
  return {mask, edge, area};
}

// Index of the best of the multimask outputs by predicted IoU.
export function bestMask(iouScores) {
  let best = 0;
  for (let i = 1; i < iouScores.length; i++) if (iouScores[i] > iouScores[best]) best = i;
  return best;
}
