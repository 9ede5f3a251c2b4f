// web/lib/tiling.mjs, the page's overlapped tiling, with a stand-in model of known
// receptive field: K zero-padded 3x3 box filters (each layer pads at the input's edge, as
// a convolution layer does) and a 4x nearest upsample. An output pixel depends on the input
// within K pixels, so tiles whose margin is >= K must reproduce the whole-image run and the
// old unoverlapped grid must not. The same plans as tests/image/tiling_test.cpp (C++), so
// the two implementations agree. The real model through the page: browser_esrgan_page.
import assert from 'node:assert/strict';
import {test} from 'node:test';
import {planTiles, tileWeight, toRGBA, upscaleTiled} from '../../web/lib/tiling.mjs';

const SCALE = 4;

function boxModel(chw, w, h, layers) {
  let cur = Float32Array.from(chw), next = new Float32Array(chw.length);
  for (let k = 0; k < layers; k++) {
    for (let c = 0; c < 3; c++) {
      for (let y = 0; y < h; y++) {
        for (let x = 0; x < w; x++) {
          let s = 0;
          for (let dy = -1; dy <= 1; dy++) {
            for (let dx = -1; dx <= 1; dx++) {
              const yy = y + dy, xx = x + dx;
              if (yy >= 0 && yy < h && xx >= 0 && xx < w) s += cur[(c * h + yy) * w + xx];
            }
          }
          next[(c * h + y) * w + x] = s / 9;
        }
      }
    }
    [cur, next] = [next, cur];
  }
  const ow = w * SCALE, oh = h * SCALE, out = new Float32Array(3 * ow * oh);
  for (let c = 0; c < 3; c++) {
    for (let y = 0; y < oh; y++) {
      for (let x = 0; x < ow; x++) out[(c * oh + y) * ow + x] = cur[(c * h + Math.floor(y / SCALE)) * w + Math.floor(x / SCALE)];
    }
  }
  return out;
}

// A seeded RGBA noise image (ImageData-shaped).
function noiseImage(width, height) {
  let s = 7;
  const data = new Uint8ClampedArray(4 * width * height);
  for (let i = 0; i < data.length; i++) {
    s = (s * 1103515245 + 12345) >>> 0;
    data[i] = i % 4 === 3 ? 255 : s >>> 24;
  }
  return {width, height, data};
}

function wholeImage(image, layers) {
  const {width: w, height: h, data} = image, chw = new Float32Array(3 * w * h);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) for (let c = 0; c < 3; c++) chw[(c * h + y) * w + x] = data[4 * (y * w + x) + c];
  return boxModel(chw, w, h, layers);
}

const maxDiff = (a, b) => a.reduce((m, v, i) => Math.max(m, Math.abs(v - b[i])), 0);

test('plans match the C++ planner and reject bad overlaps', () => {
  const p = planTiles(200, 150, 64, 64);
  assert.deepEqual([p.overlap, p.margin, p.count], [24, 10, 20]);
  assert.deepEqual(p.xs, [0, 40, 80, 120, 136]);
  assert.deepEqual(p.ys, [0, 40, 80, 86]);
  assert.equal(planTiles(48, 30, 64, 64).count, 1);
  assert.throws(() => planTiles(200, 150, 64, 64, {overlap: 64}), RangeError);
  assert.throws(() => planTiles(200, 150, 64, 64, {overlap: 20, margin: 11}), RangeError);
  assert.throws(() => planTiles(0, 150, 64, 64), RangeError);
});

test('neighbours\' weights sum to one across the overlap', () => {
  const tile = 64, overlap = 24, margin = 10, n = tile * SCALE;
  for (let u = 0; u < overlap * SCALE; u++) {
    const b = tileWeight(u, tile, SCALE, overlap, margin, true, false);
    const a = tileWeight(n - overlap * SCALE + u, tile, SCALE, overlap, margin, false, true);
    assert.ok(Math.abs(a + b - 1) < 1e-6, `u=${u}: ${a} + ${b}`);
    if (u < margin * SCALE) assert.equal(b, 0);
  }
});

test('margin at the receptive field is exact, a shorter one or no overlap is not', async () => {
  const layers = 6, image = noiseImage(100, 70), want = wholeImage(image, layers);
  const run = async (plan) => {
    const seen = [];
    const out = await upscaleTiled(image, plan, SCALE, async (t) => boxModel(t.chw, t.w, t.h, layers),
                                   {onTile: ({index, count}) => seen.push(`${index + 1}/${count}`)});
    assert.equal(seen.length, plan.count);
    assert.deepEqual([out.width, out.height], [400, 280]);
    return out.data;
  };
  const exact = planTiles(100, 70, 32, 32, {overlap: 14, margin: layers});
  assert.ok(exact.count > 4);
  assert.ok(maxDiff(await run(exact), want) < 1e-4);
  assert.ok(maxDiff(await run(planTiles(100, 70, 32, 32, {overlap: 14, margin: layers - 1})), want) > 1e-3);
  assert.ok(maxDiff(await run(planTiles(100, 70, 32, 32, {overlap: 0, margin: 0})), want) > 5);
});

test('errors name the tile, an abort stops between tiles, toRGBA rounds half to even', async () => {
  const image = noiseImage(70, 40), plan = planTiles(70, 40, 32, 32, {overlap: 8, margin: 2});
  await assert.rejects(upscaleTiled(image, plan, SCALE, async (t) => {
    if (t.index === 2) throw new Error('device lost');
    return boxModel(t.chw, t.w, t.h, 1);
  }), /tile 3 of 6 \(at \d+,\d+\): device lost/);
  await assert.rejects(upscaleTiled(image, plan, SCALE, async () => new Float32Array(5)), /returned 5 values/);
  const ac = new AbortController();
  let calls = 0;
  await assert.rejects(upscaleTiled(image, plan, SCALE, async (t) => {
    if (++calls === 2) ac.abort();
    return boxModel(t.chw, t.w, t.h, 1);
  }, {signal: ac.signal}), {name: 'AbortError'});
  assert.equal(calls, 2);
  const rgba = toRGBA({width: 4, height: 1, data: Float32Array.of(0.5, 1.5, 2.5, 300, -1, NaN, 254.5, 7, 0, 0, 0, 0)});
  assert.deepEqual([...rgba.slice(0, 16)], [0, 0, 0, 255, 2, 0, 0, 255, 2, 254, 0, 255, 255, 7, 0, 255]);
});
