// The ESRGAN page (web/esrgan) as a person uses it, in headless Chromium: it shows
// progress while the model loads, takes a picture from the file input, and draws the 4x
// upscale, which must match the reference (examples/esrgan/reference_output.png) to
// within 1/255 per channel; the download button saves that result as a PNG. A file that
// is no image fails in red with no result left on the page, and the next run (the sample
// button) clears the red. A dropped picture larger than the model's 64x64 goes through
// overlapping tiles with the progress moving tile by tile and within a tile, and a run can be cancelled
// between tiles. Screenshots are kept in out/screenshots/.
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
  await page.waitForFunction(() => window.esrgan?.ready || window.esrgan?.error, null, {timeout: 180000});
});

// Waits for the run after `runs` finished ones and returns its window.esrgan.last.
async function nextResult(runs) {
  await page.waitForFunction((n) => window.esrgan.runs > n, runs, {timeout: 180000});
  return page.evaluate(() => window.esrgan.last);
}

// Max and mean channel difference between the output canvas and reference_output.png.
function compareWithReference() {
  return page.evaluate(async () => {
    const ref = await createImageBitmap(await (await fetch('/examples/esrgan/reference_output.png')).blob(),
                                        {colorSpaceConversion: 'none', premultiplyAlpha: 'none'});
    const c = new OffscreenCanvas(ref.width, ref.height);
    const ctx = c.getContext('2d');
    ctx.drawImage(ref, 0, 0);
    const want = ctx.getImageData(0, 0, ref.width, ref.height).data;
    const out = document.getElementById('output');
    if (out.width !== ref.width || out.height !== ref.height) return {width: out.width, height: out.height};
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
}

// Drops a `width`x`height` picture (input.png stretched, as a PNG file) on the drop zone.
function dropPicture(width, height) {
  return page.evaluate(async ([w, h]) => {
    const src = await createImageBitmap(await (await fetch('/examples/esrgan/input.png')).blob());
    const c = new OffscreenCanvas(w, h);
    c.getContext('2d').drawImage(src, 0, 0, w, h);
    const file = new File([await c.convertToBlob({type: 'image/png'})], `photo${w}x${h}.png`, {type: 'image/png'});
    const dt = new DataTransfer();
    dt.items.add(file);
    const zone = document.getElementById('drop');
    zone.dispatchEvent(new DragEvent('dragover', {dataTransfer: dt, bubbles: true, cancelable: true}));
    zone.dispatchEvent(new DragEvent('drop', {dataTransfer: dt, bubbles: true, cancelable: true}));
  }, [width, height]);
}

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
  assert.equal(await page.isDisabled('#sample'), false);
  assert.equal(await page.isDisabled('#cancel'), true);
  assert.equal(await page.isDisabled('#file'), false);
});

test('a picked photo is upscaled 4x, matches the reference and downloads as a PNG', async () => {
  const runs = await page.evaluate(() => window.esrgan.runs);
  await page.setInputFiles('#file', path.join(repoRoot, 'examples/esrgan/input.png'));
  const last = await nextResult(runs);
  assert.equal(last.error, undefined, last.error);
  assert.deepEqual([last.width, last.height, last.tiles], [256, 256, 1]);
  const diff = await compareWithReference();
  assert.deepEqual([diff.width, diff.height], [256, 256]);
  assert.ok(diff.max <= 1, `max channel difference ${diff.max} (mean ${diff.mean})`);
  const dir = path.join(repoRoot, 'out/screenshots');
  fs.mkdirSync(dir, {recursive: true});
  await page.screenshot({path: path.join(dir, 'esrgan_page.png'), fullPage: true});
  assert.match(await page.textContent('#timing'), /64x64 -> 256x256 in \d+ ms/);
  assert.equal(await page.isDisabled('#download'), false);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download')]);
  assert.equal(download.suggestedFilename(), 'input_x4.png');
  const png = fs.readFileSync(await download.path());
  assert.equal(png.subarray(1, 4).toString(), 'PNG');
  assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [256, 256]);  // IHDR width, height
});

test('a file that is no image fails in red and leaves no result; the next run clears the red', async () => {
  let runs = await page.evaluate(() => window.esrgan.runs);
  const bad = path.join(repoRoot, 'out/not_an_image.png');
  fs.mkdirSync(path.dirname(bad), {recursive: true});
  fs.writeFileSync(bad, 'this is text, not a PNG\n');
  await page.setInputFiles('#file', bad);
  const failed = await nextResult(runs++);
  assert.match(failed.error ?? '', /not_an_image\.png is not an image/);
  assert.equal(await page.getAttribute('#status', 'class'), 'error');
  assert.equal(await page.evaluate(() => document.getElementById('output').width), 0, 'the old result is gone');
  assert.equal(await page.isDisabled('#download'), true);
  await page.click('#sample');
  const ok = await nextResult(runs++);
  assert.equal(ok.error, undefined, ok.error);
  assert.equal(await page.getAttribute('#status', 'class'), '', 'the error style is reset');
  assert.ok((await compareWithReference()).max <= 1);
});

test('a dropped larger picture is upscaled in overlapping tiles, with progress per tile', async () => {
  const runs = await page.evaluate(() => window.esrgan.runs);
  await page.evaluate(() => {
    window.progressValues = [];
    new MutationObserver(() => window.progressValues.push(document.getElementById('progress').value))
        .observe(document.getElementById('progress'), {attributes: true});
    window.statusTexts = [];
  });
  // Two tiles side by side (x at 0 and 36): each tile costs seconds on SwiftShader, and the
  // 2-D blend is covered by tests/js/tiling.test.mjs.
  await dropPicture(100, 64);
  const last = await nextResult(runs);
  assert.equal(last.error, undefined, last.error);
  assert.deepEqual([last.width, last.height, last.tiles], [400, 256, 2]);
  const texts = await page.evaluate(() => window.statusTexts);
  for (let i = 1; i <= 2; i++) assert.ok(texts.includes(`Upscaling tile ${i} of 2`), JSON.stringify(texts));
  const values = await page.evaluate(() => window.progressValues);
  assert.ok(values.includes(0.5), `progress values ${JSON.stringify(values)}`);
  // Within the second tile the bar moves by the first tile's time (it once sat at 0.5).
  assert.ok(values.some((v) => v > 0.5 && v < 1), `no progress within tile 2: ${JSON.stringify(values)}`);
  assert.match(await page.textContent('#timing'), /100x64 -> 400x256 in \d+ ms, 2 overlapping tiles/);
  await page.screenshot({path: path.join(repoRoot, 'out/screenshots/esrgan_page_tiled.png'), fullPage: true});
});

test('cancel stops a run between tiles and leaves no result', async () => {
  const runs = await page.evaluate(() => window.esrgan.runs);
  await page.evaluate(() => { window.statusTexts = []; });
  await dropPicture(100, 64);
  // The click lands while tile 1 runs (seconds on SwiftShader); the run stops before tile 2.
  await page.waitForFunction(() => window.statusTexts.includes('Upscaling tile 1 of 2'), null, {timeout: 180000});
  await page.click('#cancel');
  const last = await nextResult(runs);
  assert.deepEqual(last, {cancelled: true});
  assert.ok(!(await page.evaluate(() => window.statusTexts)).includes('Upscaling tile 2 of 2'));
  assert.match(await page.textContent('#status-text'), /^Cancelled/);
  assert.equal(await page.evaluate(() => document.getElementById('output').width), 0);
  assert.equal(await page.isDisabled('#download'), true);
  assert.equal(await page.isDisabled('#cancel'), true);
  assert.equal(await page.isDisabled('#file'), false);
});
