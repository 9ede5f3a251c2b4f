// A Chromium started without WebGPU (no --enable-unsafe-webgpu, no GPU process), as a
// visitor whose browser lacks it: the JS API's default backend ('auto') runs
// Vulkan-delegated fixtures on the CPU executor and says so, matching PyTorch; and the
// playground runs a demo on the CPU, says so in the page, and gives the reference's
// numbers; so does the ESRGAN page (web/esrgan/). Both pages are cross-origin isolated
// (scripts/serve.mjs sends COOP/COEP), so their CPU runs use Wasm threads and say how many
// (every core, at most 8: 2 on this machine and CI). Screenshot:
// out/screenshots/playground_no_webgpu.png.
import assert from 'node:assert/strict';
import {after, before, test} from 'node:test';
import {DEMOS} from '../../web/playground/registry.mjs';
import {compareToReference, openPlayground, publishedOutputs, readReference, runThroughUI, screenshot,
        startPlayground} from './playground_page.mjs';

let pg;
before(async () => { pg = await startPlayground({webgpu: false}); });
after(async () => { if (pg) await pg.close(); });

test("the JS API without WebGPU: 'auto' (the default) runs delegated fixtures on the CPU, as PyTorch does", async () => {
  const page = await pg.context.newPage();
  await page.goto(`${pg.server.url}/web/playground/README.md`);  // any page of the origin
  const r = await page.evaluate(async () => {
    const adapter = navigator.gpu ? await navigator.gpu.requestAdapter() : null;
    const {createExecuTorch} = await import('/package/index.mjs');
    const {runFixture} = await import('/tests/js/fixture_harness.mjs');
    const io = {text: async (rel) => (await fetch(`/fixtures/${rel}`)).text(),
                bytes: async (rel) => new Uint8Array(await (await fetch(`/fixtures/${rel}`)).arrayBuffer())};
    const et = await createExecuTorch();
    const results = [];
    for (const rel of ['models/cnn', 'models/mlp']) results.push(await runFixture(et, rel, io));
    return {adapter: !!adapter, backend: et.delegateBackend, webgpu: et.webgpu, results};
  });
  assert.equal(r.adapter, false, 'this Chromium has a WebGPU adapter: the test would prove nothing');
  assert.equal(r.backend, 'cpu');
  assert.equal(r.webgpu, null);
  for (const f of r.results) {
    assert.ok(f.cases >= 1, f.rel);
    assert.deepEqual(f.failures, [], f.rel);
  }
  await page.close();
});

test('the playground without WebGPU: it says it runs on the CPU, and the upscale demo matches its reference', async () => {
  const page = await openPlayground(pg, '?demo=upscale&option=realesrgan-tiny');
  const state = await page.evaluate(() => ({backend: window.playground.backend, noWebGPU: window.playground.noWebGPU,
                                            messages: window.playground.messages, threads: window.playground.threads,
                                            isolated: crossOriginIsolated, cores: navigator.hardwareConcurrency}));
  assert.equal(state.backend, 'cpu');
  assert.equal(state.isolated, true, 'scripts/serve.mjs did not make the page cross-origin isolated');
  const threads = Math.min(state.cores, 8);
  assert.ok(threads >= 2, `this machine offers ${state.cores} core(s): the threaded runtime would not be tried`);
  assert.equal(state.threads, threads, 'the worker did not run the threaded bundle (wick-threads.js) on every core');
  assert.match(state.noWebGPU, /navigator\.gpu is missing|no WebGPU adapter/);  // the worker's navigator may have gpu, with no adapter
  assert.equal(await page.textContent('#backend-chip'), `on the CPU, ${threads} threads (no WebGPU)`);
  assert.equal(await page.isVisible('#backend-chip'), true);
  assert.match(await page.textContent('#gpu-info'), new RegExp(`^Runs on the CPU \\(WebAssembly, ${threads} threads\\): no WebGPU here`));
  const msg = state.messages.find((m) => m.code === 'no-webgpu');
  assert.ok(msg, JSON.stringify(state.messages));
  assert.equal(msg.kind, 'warn');
  assert.match(msg.text, /does not offer WebGPU .*the models run on the CPU \(WebAssembly\)/);

  const opt = DEMOS.find((d) => d.id === 'upscale').options.find((o) => o.id === 'realesrgan-tiny');
  await runThroughUI(page, 'upscale', 'button.test-input', {timeout: 30000});
  const outputs = await publishedOutputs(page, 'upscale');
  assert.equal(outputs.length, opt.reference.outputs.length);
  outputs.forEach((o, i) => {
    const ref = opt.reference.outputs[i];
    assert.deepEqual(o.shape, ref.shape);
    const c = compareToReference(o.data, readReference(ref.url.slice('/fixtures/'.length)), opt.tolerance);
    assert.ok(c.worst <= 0, `output ${i}: max abs difference ${c.maxAbs} (tolerance ${JSON.stringify(opt.tolerance)})`);
  });
  // the pool's workers took part in that run (Wasm threads work on the served page)
  const threading = await page.evaluate(() => window.playground.threading());
  assert.equal(threading.variant, 'threads');
  assert.ok(threading.workerChunks > 0, JSON.stringify(threading));
  // the rest of the page works too: the storage panel lists the program
  await page.click('#cache-toggle');
  await page.waitForFunction(() => [...document.querySelectorAll('#cache-table tbody td.url')]
    .some((td) => td.textContent === '/fixtures/demos/realesrgan_tiny/model.pte'));
  await screenshot(page, 'no_webgpu');
  await page.close();
});

test('the ESRGAN page without WebGPU: ready on the CPU, and the photo upscaled as the reference', async () => {
  const page = await pg.context.newPage();
  await page.goto(`${pg.server.url}/web/esrgan/index.html`);
  await page.waitForFunction(() => window.esrgan?.ready || window.esrgan?.error, null, {timeout: 30000});
  assert.equal(await page.evaluate(() => window.esrgan.error), undefined);
  assert.equal(await page.evaluate(() => window.esrgan.backend), 'cpu');
  const {isolated, threads} = await page.evaluate(() => ({isolated: crossOriginIsolated,
                                                          threads: Math.min(navigator.hardwareConcurrency, 8)}));
  assert.equal(isolated, true, 'scripts/serve.mjs did not make the page cross-origin isolated');
  assert.equal(await page.evaluate(() => window.esrgan.threads), threads);
  assert.match(await page.textContent('#status-text'),
               new RegExp(`^Ready on the CPU \\(WebAssembly, ${threads} threads; this browser has no WebGPU\\)`));
  await page.click('#sample');
  await page.waitForFunction(() => window.esrgan.runs > 0, null, {timeout: 30000});
  const diff = await page.evaluate(async () => {
    const ref = await createImageBitmap(await (await fetch('/examples/esrgan/reference_output.png')).blob(),
                                        {colorSpaceConversion: 'none', premultiplyAlpha: 'none'});
    const c = new OffscreenCanvas(ref.width, ref.height);
    const g = c.getContext('2d');
    g.drawImage(ref, 0, 0);
    const want = g.getImageData(0, 0, ref.width, ref.height).data;
    const out = document.getElementById('output');
    if (out.width !== ref.width || out.height !== ref.height) return {size: [out.width, out.height]};
    const got = out.getContext('2d').getImageData(0, 0, out.width, out.height).data;
    let max = 0;
    for (let i = 0; i < want.length; i++) if (i % 4 !== 3) max = Math.max(max, Math.abs(want[i] - got[i]));
    return {size: [out.width, out.height], max, error: window.esrgan.last.error};
  });
  assert.equal(diff.error, undefined);
  assert.deepEqual(diff.size, [256, 256]);
  assert.ok(diff.max <= 1, `max channel difference from the reference ${diff.max}`);
  await page.close();
});

// Real weights on the CPU: Real-ESRGAN x4fast (examples/realesrgan_x4fast) upscales the
// bundled cat crop as wick_upscale did natively (cat_x4.png, whose program matched PyTorch
// to 4.3e-4 on 0..255), and the photo for the screenshot. (On SwiftShader's WebGPU one
// 64x64 tile of it takes ~30 s; on the CPU executor about a second.)
test('the playground upscales a photo with the real Real-ESRGAN x4fast weights, as wick_upscale does', async () => {
  const page = await openPlayground(pg, '?demo=upscale&option=realesrgan-x4fast');
  const state = await runThroughUI(page, 'upscale', 'button.thumb[data-name="cat face 64x64"]', {timeout: 60000});
  assert.deepEqual([state.width, state.height, state.tiles], [256, 256, 1]);
  const diff = await page.evaluate(async () => {
    const ref = await createImageBitmap(await (await fetch('/examples/realesrgan_x4fast/cat_x4.png')).blob(),
                                        {colorSpaceConversion: 'none', premultiplyAlpha: 'none'});
    const c = new OffscreenCanvas(ref.width, ref.height);
    const g = c.getContext('2d');
    g.drawImage(ref, 0, 0);
    const want = g.getImageData(0, 0, ref.width, ref.height).data;
    const out = document.querySelector('#demo-upscale canvas.after');
    if (out.width !== ref.width || out.height !== ref.height) return {size: [out.width, out.height]};
    const got = out.getContext('2d').getImageData(0, 0, out.width, out.height).data;
    let max = 0;
    for (let i = 0; i < want.length; i++) if (i % 4 !== 3) max = Math.max(max, Math.abs(want[i] - got[i]));
    return {size: [out.width, out.height], max};
  });
  assert.deepEqual(diff.size, [256, 256]);
  assert.ok(diff.max <= 1, `max channel difference from cat_x4.png ${diff.max}`);
  await page.click('#messages .msg[data-code="no-webgpu"] button');  // read; the chip still says CPU
  await page.fill('#demo-upscale .compare-slider', '30');
  await page.dispatchEvent('#demo-upscale .compare-slider', 'input');
  await screenshot(page, 'upscale_x4fast');
  await page.close();
});
