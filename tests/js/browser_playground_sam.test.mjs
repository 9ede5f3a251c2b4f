// The SAM demo of the playground (web/playground/demos/sam) through its UI in headless
// Chromium on SwiftShader, with the tiny SAM 2.1 programs (../shared/fixtures/demos/sam2_tiny_*):
// the picker's "Test input" runs the encoder on the fixture's pixels, and clicks at the
// fixture's prompt (include (64, 40), exclude (30, 90)) run the decoder; embeddings, mask
// logits and IoU scores are checked here against the PyTorch references (atol = rtol = 1e-3,
// the fixtures' rule). Then a picked file, a click and a dragged box, and the mask drawn over it.
import assert from 'node:assert/strict';
import {after, before, test} from 'node:test';
import path from 'node:path';
import {compareToReference, demoState, openPlayground, readReference, repoRoot, screenshot,
        startPlayground} from './playground_page.mjs';

const TOL = {atol: 1e-3, rtol: 1e-3};
let pg, page;

before(async () => {
  pg = await startPlayground();
  page = await openPlayground(pg, '?demo=sam');
  await page.waitForFunction(() => window.playground.demos.sam?.ready, null, {timeout: 30000});
});
after(async () => { if (pg) await pg.close(); });

const noErrors = async () => {
  const errors = await page.evaluate(() => window.playground.messages.filter((m) => m.kind === 'error'));
  assert.deepEqual(errors, [], page.log.join('\n'));
};

// Clicks the prompt layer at (x, y) photo pixels of a photo `w` x `h` wide.
async function clickAt(x, y, w, h, options = {}) {
  const layer = page.locator('#demo-sam .sam-marks');
  const box = await layer.boundingBox();
  await layer.click({position: {x: ((x + 0.25) / w) * box.width, y: ((y + 0.25) / h) * box.height}, ...options});
}

async function waitRuns(n) {
  await page.waitForFunction((k) => (window.playground.demos.sam.runs || 0) >= k ||
                                    window.playground.messages.some((m) => m.kind === 'error'), n, {timeout: 120000});
  await noErrors();
}

test('test input: the encoder once, then two clicks give the reference embeddings and mask logits', async () => {
  await page.click('#demo-sam .test-input');
  await page.waitForFunction(() => window.playground.demos.sam.encoderCheck ||
                                   window.playground.messages.some((m) => m.kind === 'error'), null, {timeout: 120000});
  await noErrors();
  const embeddings = await page.evaluate(() => window.playground.demos.sam.embeddings.map((t) => Array.from(t.data)));
  embeddings.forEach((got, i) => {
    const r = compareToReference(got, readReference(`demos/sam2_tiny_encoder/case0_output${i}.bin`), TOL);
    assert.ok(r.worst <= 0, `image_embeddings[${i}]: max |diff| ${r.maxAbs}`);
  });
  await clickAt(64, 40, 128, 128);
  await waitRuns(1);
  await clickAt(30, 90, 128, 128, {modifiers: ['Shift']});
  await waitRuns(2);
  const s = await demoState(page, 'sam');
  assert.deepEqual(s.points, [64, 40, 30, 90], 'the clicks, in the 128x128 frame');
  assert.deepEqual(s.labels, [1, 0], 'include, then exclude');
  const [masks, iou] = await page.evaluate(() => window.playground.demos.sam.outputs.map((t) => Array.from(t.data)));
  const m = compareToReference(masks, readReference('demos/sam2_tiny_decoder/case0_output0.bin'), TOL);
  assert.ok(m.worst <= 0, `pred_masks: max |diff| ${m.maxAbs}`);
  const q = compareToReference(iou, readReference('demos/sam2_tiny_decoder/case0_output1.bin'), TOL);
  assert.ok(q.worst <= 0, `iou_scores: max |diff| ${q.maxAbs}`);
  assert.match(await page.textContent('#sam-check'), /pred_masks .*\u2713/);
  await screenshot(page, 'sam_test_input');
});

// The photo: the 256x256 cat face of examples/esrgan (a crop of chelsea.png, CC0), in git.
const PHOTO = path.join(repoRoot, 'examples/esrgan/reference_output.png');

test('a picked photo: the encoder once, a click and a dragged box each run the decoder; the mask is drawn', async () => {
  const encodes = await page.evaluate(() => window.playground.statusTexts.filter((t) => t.startsWith('Image encoder')).length);
  await page.setInputFiles('#demo-sam .file-input', PHOTO);
  await page.waitForFunction(() => window.playground.demos.sam.image?.name === 'reference_output.png' &&
                                   window.playground.demos.sam.encoderMs, null, {timeout: 120000});
  await noErrors();
  const {width: w, height: h} = (await demoState(page, 'sam')).image;
  assert.deepEqual([w, h], [256, 256]);
  const runs = (await demoState(page, 'sam')).runs;
  await clickAt(170, 90, w, h);
  await waitRuns(runs + 1);
  let s = await demoState(page, 'sam');
  assert.deepEqual(s.points.slice(0, 2), [170 * 128 / w, 90 * 128 / h]);
  assert.deepEqual(s.labels, [1, -1], 'one point and a padding slot');
  // A box dragged over the cat's head replaces the point prompts that do not fit.
  const layer = page.locator('#demo-sam .sam-marks');
  const b = await layer.boundingBox();
  await page.mouse.move(b.x + b.width * 0.45, b.y + b.height * 0.15);
  await page.mouse.down();
  await page.mouse.move(b.x + b.width * 0.6, b.y + b.height * 0.4, {steps: 4});
  await page.mouse.move(b.x + b.width * 0.8, b.y + b.height * 0.7, {steps: 4});
  await page.mouse.up();
  await waitRuns(runs + 2);
  s = await demoState(page, 'sam');
  assert.deepEqual(s.labels, [2, 3], 'a box: its two corners');
  assert.equal(s.prompts.at(-1).type, 'box');
  assert.ok(s.points[0] < s.points[2] && s.points[1] < s.points[3], `corners ${s.points}`);
  // The overlay shows the chosen mask: its filled fraction is the mask's area at display size.
  const drawn = await page.evaluate(() => {
    const c = document.querySelector('#demo-sam .sam-overlay');
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let on = 0;
    for (let i = 3; i < d.length; i += 4) if (d[i] > 0) on++;
    return on / (c.width * c.height);
  });
  const fraction = s.masks.area / (w * h);
  assert.ok(Math.abs(drawn - fraction) < 0.03, `overlay ${drawn} vs mask ${fraction}`);
  assert.equal(await page.locator('#demo-sam .sam-choice').count(), 3);
  const encodesAfter = await page.evaluate(() => window.playground.statusTexts.filter((t) => t.startsWith('Image encoder')).length);
  assert.equal(encodesAfter, encodes + 1, 'the encoder ran once for the photo');
  await screenshot(page, 'sam');
});
