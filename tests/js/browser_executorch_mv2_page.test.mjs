// A real client nobody here wrote: the image classifier page of executorch-examples
// (mv2/wasm: demo.html, demo.js, classes.js, kept unmodified in
// tests/js/third_party/executorch-examples/, see PROVENANCE.md), served with Wick's bundle
// where the page loads ExecuTorch's executorch_wasm_demo_lib.js, in headless Chromium on
// SwiftShader, with mobilenet_v3_small from the fixtures and a photo.
//
// The page picks files with window.showOpenFilePicker, which Playwright cannot answer: an
// init script stands in for the user's choice (the file the test names next), nothing else.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {after, before, test} from 'node:test';
import {launchBrowser, startServer} from './browser_host.mjs';
import {repoRoot} from './node_runtime.mjs';

const DIR = '/tests/js/third_party/executorch-examples/mv2_wasm';
const MODEL = '/fixtures/models/mobilenet_v3_small/model.pte';
const PHOTO = '/examples/esrgan/input.png';  // a real photo (a cat's face), 64x64; the page scales it to 224x224

let server = null;
let browser = null;
before(async () => {
  server = await startServer({aliases: {
    [`${DIR}/executorch_wasm_demo_lib.js`]: path.join(repoRoot, 'package/dist/wick.js'),
    [`${DIR}/wick.wasm`]: path.join(repoRoot, 'package/dist/wick.wasm'),
  }});
  browser = await launchBrowser();
});
after(async () => {
  if (browser) await browser.close();
  if (server) server.close();
});

// The page, with the file picker answered by the test, its errors collected.
async function openDemo(initScript = null) {
  const page = await browser.newPage();
  const log = [];
  const errors = [];
  page.on('console', (m) => log.push(`[page] ${m.text()}`));
  page.on('pageerror', (e) => { errors.push(e); log.push(`[pageerror] ${e.message}`); });
  await page.addInitScript(() => {
    window.showOpenFilePicker = async () => {
      const pick = window.__testPick;
      window.__testPick = null;
      if (!pick) throw new DOMException('the test picked no file', 'AbortError');
      const blob = await (await fetch(pick.url)).blob();
      return [{getFile: async () => new File([blob], pick.name, {type: blob.type})}];
    };
  });
  if (initScript) await page.addInitScript(initScript);
  await page.goto(`${server.url}${DIR}/demo.html`);
  // The page's own readiness: Module.onRuntimeInitialized ran (it wires the buttons).
  await page.waitForFunction(() => window.Module && window.Module.calledRun, null, {timeout: 60000});
  const pick = async (selector, url, name) => {
    await page.evaluate(([u, n]) => { window.__testPick = {url: u, name: n}; }, [url, name]);
    await page.click(selector);
  };
  return {page, log, errors, pick};
}

test('the unmodified mv2 page loads the program through the global Module and says why a WebGPU forward is not synchronous', async () => {
  const {page, log, errors, pick} = await openDemo();
  await pick('#upload_model_button', MODEL, 'mobilenet_v3_small.pte');
  await page.waitForFunction(() => /^Uploaded model|Error|Failed/.test(document.getElementById('model_text').textContent),
                             null, {timeout: 60000});
  assert.equal(await page.textContent('#model_text'), 'Uploaded model: mobilenet_v3_small.pte', log.join('\n'));
  assert.equal(await page.isDisabled('#upload_image_button'), false);

  await pick('#upload_image_button', PHOTO, 'cat.png');
  // mobilenet_v3_small is lowered to the Vulkan delegate: on WebGPU its forward is
  // asynchronous, and the page reads output[0].data at once. That must fail with a message
  // that says so and what to do, not "cannot read properties of undefined".
  const deadline = Date.now() + 60000;
  while (!errors.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  assert.equal(errors.length, 1, log.join('\n'));
  assert.match(errors[0].message, /Module\.execute\('forward'\) returned a Promise, not its outputs: the method runs on WebGPU.*await module\.forward.*Synchronous calls/);
  // The canvas shows the photo the page drew before its forward.
  const drawn = await page.evaluate(() => {
    const d = document.getElementById('canvas').getContext('2d').getImageData(0, 0, 224, 224).data;
    let sum = 0;
    for (let i = 0; i < d.length; i += 4) sum += d[i] + d[i + 1] + d[i + 2];
    return sum / (224 * 224 * 3);
  });
  assert.ok(drawn > 20 && drawn < 235, `mean pixel value ${drawn}: the photo was not drawn`);
  // (That the runtime keeps answering after calls made during a load is
  // concurrency_cases.mjs's job: a mobilenet forward on SwiftShader takes too long here.)
  const dir = path.join(repoRoot, 'out/screenshots');
  fs.mkdirSync(dir, {recursive: true});
  await page.screenshot({path: path.join(dir, 'executorch_mv2_page_webgpu.png'), fullPage: true});
  await page.close();
});

test('a bad program shows in the mv2 page\'s own error text (loading is lazy, loadMethod throws)', async () => {
  const {page, log, pick} = await openDemo();
  await pick('#upload_model_button', `${DIR}/demo.js`, 'not-a-model.pte');
  await page.waitForFunction(() => document.getElementById('model_text').textContent !== 'No model uploaded',
                             null, {timeout: 60000});
  assert.match(await page.textContent('#model_text'),
               /^Failed to load forward method: Error: Module\.loadMethod\('forward'\): InvalidProgram: .*not-a-model|^Failed to load forward method: Error: Module\.loadMethod\('forward'\): InvalidProgram/,
               log.join('\n'));
  await page.close();
});

test('with the one-line configuration `var Module = {backend: \'cpu\'}` the unmodified mv2 page classifies a photo', async () => {
  // The line a page adds before the library script: the Vulkan-lowered program then runs
  // on the CPU executor of VK00 graphs, synchronously, as the page expects.
  const {page, log, errors, pick} = await openDemo(() => { window.Module = {backend: 'cpu'}; });
  await pick('#upload_model_button', MODEL, 'mobilenet_v3_small.pte');
  await page.waitForFunction(() => document.getElementById('model_text').textContent !== 'No model uploaded',
                             null, {timeout: 60000});
  assert.equal(await page.textContent('#model_text'), 'Uploaded model: mobilenet_v3_small.pte', log.join('\n'));
  await pick('#upload_image_button', PHOTO, 'cat.png');
  await page.waitForFunction(() => document.getElementById('class_text').textContent !== '', null, {timeout: 60000})
    .catch(() => { throw new Error(`no class shown\n${log.join('\n')}`); });
  assert.deepEqual(errors, []);
  const shown = await page.textContent('#class_text');
  // The same program, through Wick in the same page: on the fixture's input it matches
  // PyTorch's output (the manifest's tolerance), and on the page's own pixels (the
  // canvas, preprocessed as demo.js does) its top class is the one the page shows.
  const check = await page.evaluate(async ([model]) => {
    const et = window.Module;
    const bytes = async (u) => new Uint8Array(await (await fetch(u)).arrayBuffer());
    const m = et.Module.load(await bytes(model));
    const x = new Float32Array((await bytes('/fixtures/models/mobilenet_v3_small/case0_input0.bin')).buffer);
    const ref = new Float32Array((await bytes('/fixtures/models/mobilenet_v3_small/case0_output0.bin')).buffer);
    const y = m.forward(et.Tensor.fromArray([1, 3, 224, 224], x))[0].data;
    let worst = 0;
    // The manifest's tolerance: abs(y - ref) <= 2e-3 + 2e-3 * abs(ref).
    for (let i = 0; i < ref.length; i++) worst = Math.max(worst, Math.abs(y[i] - ref[i]) - 2e-3 * Math.abs(ref[i]));
    const px = document.getElementById('canvas').getContext('2d').getImageData(0, 0, 224, 224).data;
    const chw = new Float32Array(3 * 224 * 224);
    for (let c = 0; c < 3; c++) for (let i = 0; i < 224 * 224; i++) chw[c * 224 * 224 + i] = px[4 * i + c] / 255;
    const logits = m.forward(et.Tensor.fromArray([1, 3, 224, 224], chw))[0].data;
    let top = 0;
    for (let i = 1; i < logits.length; i++) if (logits[i] > logits[top]) top = i;
    const sorted = Array.from(logits).sort((a, b) => b - a);
    return {worst, top: _IMAGENET_CATEGORIES[top], gap: sorted[0] - sorted[1], backend: et.delegateBackend};
  }, [MODEL]);
  assert.equal(check.backend, 'cpu');
  assert.ok(check.worst <= 2e-3, `fixture input: worst excess over atol+rtol*|ref| ${check.worst}`);
  assert.equal(shown, check.top, `gap between the top two logits: ${check.gap}`);
  const dir = path.join(repoRoot, 'out/screenshots');
  fs.mkdirSync(dir, {recursive: true});
  await page.screenshot({path: path.join(dir, 'executorch_mv2_page.png'), fullPage: true});
  await page.close();
});
