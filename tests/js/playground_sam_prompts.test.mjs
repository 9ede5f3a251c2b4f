// The SAM demo's pre/post-processing without a browser (web/playground/demos/sam/prompts.mjs):
// prompts in the model's frame, the mask upsampling against transformers.js's interpolate_4d
// (npm @huggingface/transformers, what its SAM post-processing uses), and the outline.
import assert from 'node:assert/strict';
import {test} from 'node:test';
import {interpolate_4d, Tensor} from '@huggingface/transformers';
import {bestMask, maskAndOutline, pixelsToTensor, promptTensors, resizeBilinear} from '../../web/playground/demos/sam/prompts.mjs';

test('points and a box map to the 128x128 frame; the latest prompts fill the 2 slots, the rest padded', () => {
  const frame = {width: 640, height: 480, size: 128, slots: 2};
  const one = promptTensors([{type: 'point', x: 320, y: 120, positive: true}], frame);
  assert.deepEqual(Array.from(one.coords), [64, 32, 0, 0]);
  assert.deepEqual(Array.from(one.labels), [1n, -1n]);
  const two = promptTensors([{type: 'point', x: 0, y: 0, positive: true}, {type: 'point', x: 160, y: 240, positive: true},
                             {type: 'point', x: 480, y: 360, positive: false}], frame);
  assert.equal(two.used, 2);
  assert.deepEqual(Array.from(two.coords), [32, 64, 96, 96]);
  assert.deepEqual(Array.from(two.labels), [1n, 0n]);
  // A box dragged from bottom-right to top-left: corners sorted, labels 2 and 3.
  const box = promptTensors([{type: 'point', x: 1, y: 1, positive: true}, {type: 'box', x0: 480, y0: 360, x1: 160, y1: 120}], frame);
  assert.equal(box.used, 1);
  assert.deepEqual(Array.from(box.coords), [32, 32, 96, 96]);
  assert.deepEqual(Array.from(box.labels), [2n, 3n]);
});

test('mask upsampling equals transformers.js interpolate_4d (bilinear, align_corners false) within 1e-5', async () => {
  const h = 32, w = 32, src = Float32Array.from({length: h * w}, (_, i) => Math.sin(i * 0.37) * 3 + (i % 11) / 5);
  for (const [oh, ow] of [[480, 640], [128, 128], [333, 91]]) {
    const ours = resizeBilinear(src, h, w, oh, ow);
    const theirs = await interpolate_4d(new Tensor('float32', src, [1, 1, h, w]), {size: [oh, ow], mode: 'bilinear', align_corners: false});
    let d = 0;
    for (let i = 0; i < ours.length; i++) d = Math.max(d, Math.abs(ours[i] - theirs.data[i]));
    assert.ok(d < 1e-5, `${oh}x${ow}: max difference ${d}`);
  }
});

test('mask, outline and area; best mask by IoU; ImageNet normalisation', () => {
  const w = 6, h = 5, logits = new Float32Array(w * h).fill(-1);
  for (let y = 1; y <= 3; y++) for (let x = 1; x <= 4; x++) logits[y * w + x] = 2;
  const {mask, edge, area} = maskAndOutline(logits, w, h);
  assert.equal(area, 12);
  assert.equal(mask.reduce((a, b) => a + b, 0), 12);
  assert.equal(edge.reduce((a, b) => a + b, 0), 10);  // a 4x3 block: all but the 2 inner pixels
  assert.equal(edge[2 * w + 2], 0);
  assert.equal(bestMask(Float32Array.of(0.2, 0.9, 0.5)), 1);
  const t = pixelsToTensor(Uint8Array.of(255, 0, 124, 255), 1);
  assert.ok(Math.abs(t[0] - (1 - 0.485) / 0.229) < 1e-6 && Math.abs(t[1] + 0.456 / 0.224) < 1e-6);
});
