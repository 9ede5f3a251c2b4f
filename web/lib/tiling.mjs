// Overlapping tiles with blending, for running an image-to-image model whose program
// takes a fixed (or bounded) input size on an image of any size, without seams. The same
// algorithm as src/image/tiling.h (the C++ upscaler); keep the two in step.
//
// API (all sizes in pixels; images are CHW float32 on the model's value scale):
//
//   planTiles(width, height, tileW, tileH, {overlap, margin} = {})
//       -> {width, height, tileW, tileH, overlap, margin, xs, ys, count}
//     Tile origins every (tile - overlap) pixels, the last one moved back to end at the
//     image edge; one tile (padded by repeating edge pixels) when the image is smaller.
//     Defaults: overlap = floor(3/8 of the smaller tile side) (24 for 64x64), margin =
//     max(0, floor(overlap / 2) - 2) (10). Throws RangeError unless 2 * margin <= overlap
//     < the tile side.
//   tileWeight(u, tile, scale, overlap, margin, innerLo, innerHi) -> number in [0, 1]
//     Blend weight of output pixel u along one axis: 0 within `margin` input pixels of an
//     edge shared with another tile, a linear ramp across the rest of the overlap, 1 at
//     the image's own edges. Neighbours' weights sum to 1 across an overlap.
//   tileInput(image, plan, x, y) -> Float32Array CHW [3, tileH, tileW]
//     The tile at origin (x, y) of an RGBA image ({width, height, data}, as ImageData),
//     8-bit values as floats, edge pixels repeated past the image.
//   await upscaleTiled(image, plan, scale, runTile, {onTile, signal} = {})
//       -> {width, height, data: Float32Array CHW [3, height, width]}   (width = image.width * scale)
//     runTile({index, count, x, y, w, h, chw}) must resolve to the model's CHW output
//     [3, h * scale, w * scale] (any array-like). onTile({index, count, partial}) is called
//     after each tile; partial() renders what is blended so far (see toRGBA). Between
//     tiles, an aborted `signal` ends the run with its reason (an AbortError by default).
//   toRGBA(float, out?) -> Uint8ClampedArray RGBA
//     Clip to [0, 255], round half to even (as NumPy made the references), alpha 255.
//
// Why the margin: a convolution network zero-pads every layer at a tile edge, so a tile's
// output is wrong within its receptive-field radius of an edge that is not the image's.
// With margin >= that radius every weighted value equals the whole-image result and the
// blend is exact up to float rounding; a smaller margin blends the errors over the ramp.

export function planTiles(width, height, tileW, tileH, {overlap, margin} = {}) {
  for (const [k, v] of Object.entries({width, height, tileW, tileH})) {
    if (!Number.isInteger(v) || v < 1) throw new RangeError(`planTiles: ${k} must be an integer >= 1, got ${v}`);
  }
  const side = Math.min(tileW, tileH);
  if (overlap === undefined) overlap = Math.floor((side * 3) / 8);
  if (margin === undefined) margin = Math.max(0, Math.floor(overlap / 2) - 2);
  if (!Number.isInteger(overlap) || !Number.isInteger(margin) || margin < 0 || 2 * margin > overlap || overlap >= side) {
    throw new RangeError(`planTiles: overlap ${overlap} and margin ${margin} need 2 * margin <= overlap < the tile side (${side})`);
  }
  const origins = (size, tile) => {
    if (size <= tile) return [0];
    const out = [];
    for (let s = 0; s + tile < size; s += tile - overlap) out.push(s);
    out.push(size - tile);
    return out;
  };
  const xs = origins(width, tileW), ys = origins(height, tileH);
  return {width, height, tileW, tileH, overlap, margin, xs, ys, count: xs.length * ys.length};
}

export function tileWeight(u, tile, scale, overlap, margin, innerLo, innerHi) {
  const m = margin * scale, ramp = (overlap - 2 * margin) * scale;
  const rise = (d) => (ramp === 0 ? (d >= m ? 1 : 0) : Math.min(1, Math.max(0, (d - m + 0.5) / ramp)));
  let w = 1;
  if (innerLo) w = Math.min(w, rise(u));
  if (innerHi) w = Math.min(w, rise(tile * scale - 1 - u));
  return w;
}

export function tileInput(image, plan, x0, y0) {
  const {width, height, data} = image;
  const {tileW: tw, tileH: th} = plan;
  const chw = new Float32Array(3 * tw * th);
  for (let y = 0; y < th; y++) {
    const sy = Math.min(y0 + y, height - 1);
    for (let x = 0; x < tw; x++) {
      const p = 4 * (sy * width + Math.min(x0 + x, width - 1));
      for (let c = 0; c < 3; c++) chw[(c * th + y) * tw + x] = data[p + c];
    }
  }
  return chw;
}

function axisWeights(k, n, tile, scale, plan) {
  const w = new Float32Array(tile * scale);
  for (let u = 0; u < w.length; u++) w[u] = tileWeight(u, tile, scale, plan.overlap, plan.margin, k > 0, k + 1 < n);
  return w;
}

export async function upscaleTiled(image, plan, scale, runTile, {onTile, signal} = {}) {
  if (image.width !== plan.width || image.height !== plan.height) throw new RangeError('upscaleTiled: the image does not match the plan');
  if (!Number.isInteger(scale) || scale < 1) throw new RangeError(`upscaleTiled: scale must be an integer >= 1, got ${scale}`);
  const ow = image.width * scale, oh = image.height * scale, plane = ow * oh;
  const acc = new Float32Array(3 * plane), weightSum = new Float32Array(plane);
  const {tileW: tw, tileH: th} = plan, tow = tw * scale, toh = th * scale;
  const finish = (out) => {
    for (let o = 0; o < plane; o++) {
      const s = weightSum[o];
      for (let c = 0; c < 3; c++) out[c * plane + o] = s > 0 ? acc[c * plane + o] / s : 0;
    }
    return {width: ow, height: oh, data: out};
  };
  for (let j = 0; j < plan.ys.length; j++) {
    const wy = axisWeights(j, plan.ys.length, th, scale, plan);
    for (let i = 0; i < plan.xs.length; i++) {
      signal?.throwIfAborted();
      const wx = axisWeights(i, plan.xs.length, tw, scale, plan);
      const index = j * plan.xs.length + i, x = plan.xs[i], y = plan.ys[j];
      const where = `tile ${index + 1} of ${plan.count} (at ${x},${y})`;
      let out;
      try {
        out = await runTile({index, count: plan.count, x, y, w: tw, h: th, chw: tileInput(image, plan, x, y)});
      } catch (e) {
        if (e?.name === 'AbortError') throw e;
        throw new Error(`${where}: ${e?.message ?? e}`, {cause: e});
      }
      if (!out || out.length !== 3 * tow * toh) {
        throw new Error(`${where}: the model returned ${out?.length} values, expected 3x${toh}x${tow}`);
      }
      const ox = x * scale, oy = y * scale;
      for (let yy = 0; yy < toh && oy + yy < oh; yy++) {
        for (let xx = 0; xx < tow && ox + xx < ow; xx++) {
          const w = wy[yy] * wx[xx];
          if (w === 0) continue;
          const o = (oy + yy) * ow + ox + xx;
          weightSum[o] += w;
          for (let c = 0; c < 3; c++) acc[c * plane + o] += w * out[(c * toh + yy) * tow + xx];
        }
      }
      onTile?.({index, count: plan.count, partial: () => finish(new Float32Array(3 * plane))});
    }
  }
  signal?.throwIfAborted();
  return finish(acc);
}

function roundHalfEven(v) {
  const r = Math.round(v);
  return r - v === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

export function toRGBA(float, out = new Uint8ClampedArray(4 * float.width * float.height)) {
  const plane = float.width * float.height;
  for (let o = 0; o < plane; o++) {
    for (let c = 0; c < 3; c++) {
      const v = float.data[c * plane + o];
      out[4 * o + c] = v >= 0 ? roundHalfEven(Math.min(v, 255)) : 0;  // NaN -> 0
    }
    out[4 * o + 3] = 255;
  }
  return out;
}
