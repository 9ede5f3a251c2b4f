// The playground (web/playground/) in headless Chromium on SwiftShader for the
// browser_playground*.test.mjs files: the page served by scripts/serve.mjs, opened with
// URL parameters, driven through its UI (the photo buttons, "Test input", the model
// picker), and its results read from window.playground. Screenshots go to
// out/screenshots/playground_<name>.png.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {startPlaygroundServer} from '../../scripts/serve.mjs';
import {launchBrowser} from './browser_host.mjs';
import {fixturesDir, repoRoot} from './node_runtime.mjs';

export {fixturesDir, repoRoot};

// webgpu: false: a Chromium started without WebGPU (the page runs on the CPU).
export async function startPlayground({webgpu = true} = {}) {
  const server = await startPlaygroundServer();
  const browser = await launchBrowser({webgpu});
  const context = await browser.newContext({viewport: {width: 1280, height: 900}, deviceScaleFactor: 1});
  return {server, browser, context, close: async () => { await browser.close(); server.close(); }};
}

// A page of the playground at `query` ('?demo=depth'), its log kept for failures.
// init: a function run in the page before its scripts (page.addInitScript).
export async function openPlayground(pg, query = '', {init = null, waitReady = true} = {}) {
  const page = await pg.context.newPage();
  const log = [];
  page.on('console', (m) => log.push(`[page] ${m.text()}`));
  page.on('pageerror', (e) => log.push(`[pageerror] ${e.message}`));
  if (init) await page.addInitScript(init);
  page.log = log;
  await page.goto(`${pg.server.url}/web/playground/${query}`);
  if (waitReady) {
    await page.waitForFunction(() => window.playground && (window.playground.ready || window.playground.runtimeError),
                               null, {timeout: 60000});
    const error = await page.evaluate(() => window.playground.runtimeError);
    assert.equal(error, null, `the runtime did not start: ${error}\n${log.join('\n')}`);
  }
  return page;
}

export const demoState = (page, id) => page.evaluate((d) => window.playground.demos[d] || {}, id);

// Clicks `selector` in demo `id` and waits for its next finished run; fails with the
// page's messages if an error message appears instead.
export async function runThroughUI(page, id, selector, {timeout = 120000} = {}) {
  const before = (await demoState(page, id)).runs || 0;
  const errorsBefore = await page.evaluate(() => window.playground.messages.filter((m) => m.kind === 'error').length);
  await page.click(`#demo-${id} ${selector}`);
  await page.waitForFunction(([d, n, e]) => ((window.playground.demos[d] || {}).runs || 0) > n ||
                                            window.playground.messages.filter((m) => m.kind === 'error').length > e,
                             [id, before, errorsBefore], {timeout});
  const msgs = await page.evaluate(() => window.playground.messages);
  assert.equal(msgs.filter((m) => m.kind === 'error').length, errorsBefore,
               `the demo reported an error: ${JSON.stringify(msgs)}\n${page.log.join('\n')}`);
  return demoState(page, id);
}

// Outputs the demo published, as plain arrays: [{dtype, shape, data: number[]}].
export function publishedOutputs(page, id) {
  return page.evaluate((d) => window.playground.demos[d].outputs.map((o) => ({dtype: o.dtype, shape: o.shape,
                                                                            data: Array.from(o.data, Number)})), id);
}

export function readReference(rel) {
  const b = fs.readFileSync(path.join(fixturesDir, rel));
  return new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4);
}

// The fixtures' rule: |out - ref| <= atol + rtol |ref| elementwise. Returns the worst
// excess (<= 0: passes) and the largest difference.
export function compareToReference(got, want, {atol, rtol}) {
  assert.equal(got.length, want.length, `${got.length} values, the reference has ${want.length}`);
  let maxAbs = 0, worst = -Infinity, at = -1;
  for (let i = 0; i < want.length; i++) {
    const d = Math.abs(got[i] - want[i]);
    if (!(d <= Infinity)) return {maxAbs: NaN, worst: Infinity, at: i};
    if (d > maxAbs) maxAbs = d;
    const e = d - (atol + rtol * Math.abs(want[i]));
    if (e > worst) {
      worst = e;
      at = i;
    }
  }
  return {maxAbs, worst, at};
}

export async function screenshot(page, name) {
  const dir = path.join(repoRoot, 'out/screenshots');
  fs.mkdirSync(dir, {recursive: true});
  const file = path.join(dir, `playground_${name}.png`);
  await page.screenshot({path: file, fullPage: true});
  return file;
}

// The sample photos come from web/playground/photos.sh (Debian's python3-skimage).
export function requirePhotos() {
  for (const f of ['astronaut.png', 'chelsea.png', 'coffee.png']) {
    const here = [path.join(repoRoot, 'web/playground/photos', f), `/usr/lib/python3/dist-packages/skimage/data/${f}`];
    assert.ok(here.some((p) => fs.existsSync(p)), `no ${f}: run web/playground/photos.sh (setup.sh does)`);
  }
}
