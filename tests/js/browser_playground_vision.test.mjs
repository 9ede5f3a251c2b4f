// The playground's vision demos through their UI in headless Chromium on SwiftShader, in
// one page (one runtime): each runs the fixture's test input (outputs compared with the
// PyTorch references, with the fixtures' tolerances) and a real photo (the post-processing
// checked, and a screenshot kept in out/screenshots/playground_<demo>.png).
import assert from 'node:assert/strict';
import {after, before, test} from 'node:test';
import {detections} from '../../web/playground/demos/detect/postprocess.mjs';
import {DEMOS} from '../../web/playground/registry.mjs';
import fs from 'node:fs';
import path from 'node:path';
import {compareToReference, demoState, openPlayground, publishedOutputs, readReference, repoRoot, requirePhotos,
        runThroughUI, screenshot, startPlayground} from './playground_page.mjs';

let pg, page;
before(async () => {
  requirePhotos();
  pg = await startPlayground();
  page = await openPlayground(pg, '?demo=depth');
});
after(async () => { if (pg) await pg.close(); });

const option = (demo, id) => DEMOS.find((d) => d.id === demo).options.find((o) => o.id === id);

async function openTab(id, optionId = null) {
  await page.click(`nav button[data-id="${id}"]`);
  await page.waitForFunction((d) => (window.playground.demos[d] || {}).mounted, id);
  if (optionId) await page.selectOption(`#demo-${id} .model-select`, optionId);
}

// A reference file by its URL: a fixture's (/fixtures/...) or one in the repository (/examples/...).
function readServed(url) {
  if (url.startsWith('/fixtures/')) return readReference(url.slice('/fixtures/'.length));
  const b = fs.readFileSync(path.join(repoRoot, url));
  return new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4);
}

// Runs the test input and compares every output with the fixture's reference.
async function checkTestInput(demo, opt) {
  await runThroughUI(page, demo, 'button.test-input');
  const outputs = await publishedOutputs(page, demo);
  assert.equal(outputs.length, opt.reference.outputs.length);
  outputs.forEach((o, i) => {
    const ref = opt.reference.outputs[i];
    assert.deepEqual(o.shape, ref.shape, `${demo} output ${i} shape`);
    const r = compareToReference(o.data, readServed(ref.url), opt.tolerance);
    assert.ok(r.worst <= 0, `${demo} output ${i}: max abs difference ${r.maxAbs}, worst at ${r.at} (tolerance ${JSON.stringify(opt.tolerance)})`);
    outputs[i].maxAbs = r.maxAbs;
  });
  return outputs;
}

test('depth: the test input matches the reference; a photo gets a colour-mapped depth map beside it', async () => {
  await openTab('depth');
  await checkTestInput('depth', option('depth', 'tiny'));
  await runThroughUI(page, 'depth', 'button.thumb[data-name="astronaut"]');
  const view = await page.evaluate(() => {
    const [photo, depth] = document.querySelectorAll('#demo-depth figure canvas:first-child');
    const d = depth.getContext('2d').getImageData(0, 0, depth.width, depth.height).data;
    const colours = new Set();
    for (let i = 0; i < d.length; i += 4 * 97) colours.add(`${d[i]},${d[i + 1]},${d[i + 2]}`);
    return {photo: [photo.width, photo.height], depth: [depth.width, depth.height], colours: colours.size};
  });
  assert.deepEqual(view.depth, view.photo);
  assert.ok(view.colours > 20, `${view.colours} colours in the depth map`);
  await screenshot(page, 'depth');
});

// The selfie model's real weights on real photos: its reference case (the astronaut at
// 256x256, decoded by the page from the bundled PNG) against PyTorch eager within 1e-3
// (the option's tolerance; the matte is drawn in 8 bits), then the 512x512 sample photo
// through the page's own resize: the person/background split (alpha > 0.5) must agree with
// the reference's on all but 2% of the pixels (Chromium's resampling is not the box
// average the reference input was made with). Then the tiny MODNet program's fixture case.
test('matting: the selfie model matches its reference on the astronaut and composites her on a background; the tiny MODNet matches its fixture', async (t) => {
  await openTab('matting');
  const selfie = option('matting', 'selfie');
  assert.equal(await page.inputValue('#demo-matting .model-select'), 'selfie', 'the real model is the default');
  const [ref] = await checkTestInput('matting', selfie);
  t.diagnostic(`selfie, reference input: max |diff| ${ref.maxAbs.toExponential(2)} (forward ${(await demoState(page, 'matting')).ms.toFixed(0)} ms)`);
  const want = readServed(selfie.reference.outputs[0].url);

  await runThroughUI(page, 'matting', 'button.thumb[data-name="astronaut"]');
  const [photoOut] = await publishedOutputs(page, 'matting');
  assert.deepEqual(photoOut.shape, [1, 1, 256, 256]);
  let disagree = 0, person = 0;
  for (let i = 0; i < want.length; i++) {
    if ((photoOut.data[i] > 0.5) !== (want[i] > 0.5)) disagree++;
    if (want[i] > 0.5) person++;
  }
  assert.ok(person > 0.3 * want.length && person < 0.8 * want.length, `the reference is a portrait: ${person} person pixels`);
  assert.ok(disagree <= 0.02 * want.length, `${disagree} of ${want.length} pixels split differently from the reference`);
  t.diagnostic(`selfie, 512x512 photo resized by the page: ${disagree} of ${want.length} pixels split differently ` +
               `(forward ${(await demoState(page, 'matting')).ms.toFixed(0)} ms)`);

  await page.click('#demo-matting .swatches button[data-name="green screen"]');
  // composite = alpha * photo + (1 - alpha) * background, to rounding; and the matte is a
  // portrait's: the face (centre top) is the person, the top corners are background.
  const view = await page.evaluate(() => {
    const get = (sel) => {
      const c = document.querySelector(sel);
      return {w: c.width, h: c.height, d: c.getContext('2d').getImageData(0, 0, c.width, c.height).data};
    };
    const photo = get('#demo-matting figure:nth-child(1) canvas'), matte = get('#demo-matting canvas.matte');
    const comp = get('#demo-matting canvas.composite');
    const bg = [46, 158, 91];
    let worst = 0;
    for (let i = 0; i < comp.d.length; i += 4) {
      const a = matte.d[i] / 255;
      for (let c = 0; c < 3; c++) worst = Math.max(worst, Math.abs(comp.d[i + c] - (a * photo.d[i + c] + (1 - a) * bg[c])));
    }
    const at = (x, y) => matte.d[4 * (Math.round(y * matte.h) * matte.w + Math.round(x * matte.w))] / 255;
    return {worst, face: at(0.44, 0.22), corners: [at(0.05, 0.05), at(0.95, 0.05)], size: [matte.w, matte.h, photo.w, photo.h]};
  });
  assert.ok(view.worst <= 1, `composite differs from alpha blending by ${view.worst}`);
  assert.deepEqual(view.size.slice(0, 2), view.size.slice(2), 'the matte is resized to the photo');
  assert.ok(view.face > 0.95 && view.corners.every((a) => a < 0.05), JSON.stringify(view));
  await screenshot(page, 'matting');

  await page.selectOption('#demo-matting .model-select', 'tiny');
  await checkTestInput('matting', option('matting', 'tiny'));
});

test('super-resolution: the tiny Real-ESRGAN matches its reference; ESRGAN-slim upscales a photo as the reference does', async () => {
  await openTab('upscale', 'realesrgan-tiny');
  await checkTestInput('upscale', option('upscale', 'realesrgan-tiny'));
  await page.selectOption('#demo-upscale .model-select', 'esrgan-slim');
  const state = await runThroughUI(page, 'upscale', 'button.thumb[data-name="cat face 64x64"]');
  assert.deepEqual([state.width, state.height, state.tiles], [256, 256, 1]);
  const diff = await page.evaluate(async () => {
    const ref = await createImageBitmap(await (await fetch('/examples/esrgan/reference_output.png')).blob(),
                                        {colorSpaceConversion: 'none', premultiplyAlpha: 'none'});
    const c = new OffscreenCanvas(ref.width, ref.height);
    const g = c.getContext('2d');
    g.drawImage(ref, 0, 0);
    const want = g.getImageData(0, 0, ref.width, ref.height).data;
    const out = document.querySelector('#demo-upscale canvas.after');
    const got = out.getContext('2d').getImageData(0, 0, out.width, out.height).data;
    let max = 0;
    for (let i = 0; i < want.length; i++) if (i % 4 !== 3) max = Math.max(max, Math.abs(want[i] - got[i]));
    return {size: [out.width, out.height], max};
  });
  assert.deepEqual(diff.size, [256, 256]);
  assert.ok(diff.max <= 1, `max channel difference from the reference ${diff.max}`);
  await page.fill('#demo-upscale .compare-slider', '35');
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#demo-upscale button.download')]);
  assert.equal(download.suggestedFilename(), 'upscaled-4x.png');
  await screenshot(page, 'upscale');
});

test('detection: DETR matches its reference, boxes as the reference gives them; D-FINE draws boxes on a photo', async () => {
  const detr = option('detect', 'detr-tiny');
  await openTab('detect', 'detr-tiny');
  await checkTestInput('detect', detr);
  // The page's detections against the same post-processing of the reference outputs;
  // scores within 2e-3 of the threshold may fall either side.
  const state = await demoState(page, 'detect');
  const want = detections(readReference('demos/detr_tiny/case0_output0.bin'), readReference('demos/detr_tiny/case0_output1.bin'),
                          {queries: 100, classes: 80, threshold: state.threshold});
  const key = (d) => `${d.query}/${d.label}`;
  const clear = (list) => list.filter((d) => Math.abs(d.score - state.threshold) > 2e-3);
  assert.ok(want.length > 0, 'the reference has detections at the threshold');
  assert.deepEqual(new Set(clear(state.detections).map(key)), new Set(clear(want).map(key)));
  const byKey = new Map(want.map((d) => [key(d), d]));
  for (const d of clear(state.detections)) {
    const w = byKey.get(key(d));
    assert.ok(Math.abs(d.score - w.score) <= 1e-3, `${key(d)}: score ${d.score} vs ${w.score}`);
    d.box.forEach((v, i) => assert.ok(Math.abs(v - w.box[i]) <= 2e-3, `${key(d)}: box ${d.box} vs ${w.box}`));
  }

  // D-FINE (ill-conditioned random weights: shapes and finite values only) on a photo
  await page.selectOption('#demo-detect .model-select', 'dfine-tiny');
  await runThroughUI(page, 'detect', 'button.thumb[data-name="chelsea"]');
  const [logits, boxes] = await publishedOutputs(page, 'detect');
  assert.deepEqual([logits.shape, boxes.shape], [[1, 100, 80], [1, 100, 4]]);
  assert.ok(logits.data.every(Number.isFinite) && boxes.data.every(Number.isFinite));
  await page.fill('#demo-detect .threshold', '0.3');
  const low = await demoState(page, 'detect');
  assert.equal(low.threshold, 0.3);
  const expected = detections(Float32Array.from(logits.data), Float32Array.from(boxes.data), {queries: 100, classes: 80, threshold: 0.3});
  assert.equal(low.detections.length, expected.length);
  assert.ok(low.detections.length > 0, 'boxes at threshold 0.3');
  assert.match(await page.textContent('#demo-detect figcaption'), /^\d+ detections? at score >= 0\.30(, the best 10 drawn)?$/);
  await screenshot(page, 'detect');
});
