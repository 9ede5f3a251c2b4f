// The ESRGAN page (web/esrgan) as a person uses it, in headless Chromium: it shows
// progress while the model loads, takes a picture from the file input, and draws the 4x
// upscale, which must match the reference (examples/esrgan/reference_output.png) to
// within 1/255 per channel. A screenshot is kept in out/screenshots/.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {after, before, test} from 'node:test';
import {launchBrowser, openPage, startServer} from './browser_host.mjs';
import {repoRoot} from './node_runtime.mjs';

let server, browser, page;
const pageLog = [];

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
  page = await browser.newPage();
  page.on('console', (m) => pageLog.push(`[page] ${m.text()}`));
  page.on('pageerror', (e) => pageLog.push(`[pageerror] ${e.message}`));
  // Every text the status line shows, to check that loading reported progress.
  await page.addInitScript(() => {
    window.statusTexts = [];
    document.addEventListener('DOMContentLoaded', () => {
      const el = document.getElementById('status-text');
      new MutationObserver(() => window.statusTexts.push(el.textContent))
          .observe(el, {childList: true, characterData: true, subtree: true});
    });
  });
  await page.goto(`${server.url}/web/esrgan/index.html`);
  await page.waitForFunction(() => window.esrgan, null, {timeout: 180000});
});

after(async () => {
  if (browser) await browser.close();
  if (server) server.close();
});

test('the page loads the model on WebGPU, showing progress', async () => {
  const state = await page.evaluate(() => window.esrgan);
  assert.equal(state.ready, true, `page failed: ${state.error}\n${pageLog.join('\n')}`);
  const texts = await page.evaluate(() => window.statusTexts);
  assert.ok(texts.some((t) => /^Loading the model: \d+\.\d MiB$/.test(t)), `status texts: ${JSON.stringify(texts)}`);
  assert.ok(texts.some((t) => /^Ready on .*swiftshader/i.test(t)), `status texts: ${JSON.stringify(texts)}`);
  assert.equal(await page.isDisabled('#file'), false);
});

test('a picked photo is upscaled 4x and matches the reference', async () => {
  await page.setInputFiles('#file', path.join(repoRoot, 'examples/esrgan/input.png'));
  await page.waitForFunction(() => window.esrgan.last, null, {timeout: 180000});
  const last = await page.evaluate(() => window.esrgan.last);
  assert.equal(last.error, undefined, last.error);
  assert.deepEqual([last.width, last.height], [256, 256]);
  const diff = await page.evaluate(async () => {
    const ref = await createImageBitmap(await (await fetch('/examples/esrgan/reference_output.png')).blob(),
                                        {colorSpaceConversion: 'none', premultiplyAlpha: 'none'});
    const c = new OffscreenCanvas(ref.width, ref.height);
    const ctx = c.getContext('2d');
    ctx.drawImage(ref, 0, 0);
    const want = ctx.getImageData(0, 0, ref.width, ref.height).data;
    const out = document.getElementById('output');
    const got = out.getContext('2d').getImageData(0, 0, out.width, out.height).data;
    let max = 0, sum = 0;
    for (let i = 0; i < want.length; i++) {
      if (i % 4 === 3) continue;
      const d = Math.abs(want[i] - got[i]);
      max = Math.max(max, d);
      sum += d;
    }
    return {width: ref.width, height: ref.height, max, mean: sum / (want.length * 3 / 4)};
  });
  assert.deepEqual([diff.width, diff.height], [256, 256]);
  assert.ok(diff.max <= 1, `max channel difference ${diff.max} (mean ${diff.mean})`);
  const dir = path.join(repoRoot, 'out/screenshots');
  fs.mkdirSync(dir, {recursive: true});
  await page.screenshot({path: path.join(dir, 'esrgan_page.png'), fullPage: true});
  assert.match(await page.textContent('#timing'), /64x64 -> 256x256 in \d+ ms/);
});
