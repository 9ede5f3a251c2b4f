// A page written as ExecuTorch's README says (tests/js/browser/executorch_style.html): a
// global `var Module = {onRuntimeInitialized}` before Wick's bundle in a classic <script>,
// then the API used synchronously, as ExecuTorch's CPU build allows, on a program without
// delegates (cpu/mlp_cpu). Its output must match the PyTorch reference.
import assert from 'node:assert/strict';
import {after, before, test} from 'node:test';
import {launchBrowser, openPage, startServer} from './browser_host.mjs';

let server = null;
let browser = null;
before(async () => {
  server = await startServer();
  browser = await launchBrowser();
});
after(async () => {
  if (browser) await browser.close();
  if (server) server.close();
});

test('global Module with onRuntimeInitialized, synchronous load/forward on a CPU program (Chromium)', async () => {
  const log = [];
  const page = await openPage(browser, `${server.url}/tests/js/browser/executorch_style.html`, (l) => log.push(l));
  await page.waitForFunction(() => window.result, null, {timeout: 60000});
  const r = await page.evaluate(() => window.result);
  assert.ok(r.sameObject && r.hasFactory, JSON.stringify(r));
  assert.equal(r.isArray, true);
  assert.deepEqual(r.sizes, [4, 10]);
  for (let i = 0; i < r.ref.length; i++) {
    assert.ok(Math.abs(r.y[i] - r.ref[i]) <= 1e-3 + 1e-3 * Math.abs(r.ref[i]), `output ${i}: ${r.y[i]} vs ${r.ref[i]}\n${log.join('\n')}`);
  }
  assert.equal(r.wrong.code, 'InvalidProgram');
  assert.equal(r.wrong.errorCode, 0x23);
  assert.match(r.wrong.message, /^Module\.loadMethod\('forward'\): InvalidProgram: <bytes: 16 B>/);
});
