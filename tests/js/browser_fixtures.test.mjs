// Every fixture through the JavaScript API in headless Chromium (WebGPU on SwiftShader),
// with the harness and tolerances of the Node run.
import assert from 'node:assert/strict';
import {after, before, test} from 'node:test';
import {launchBrowser, openPage, startServer} from './browser_host.mjs';
import {PIPELINES, listFixtures} from './fixture_harness.mjs';
import {fixtureFiles} from './node_runtime.mjs';

const fixtures = await listFixtures(fixtureFiles);
let server, browser, page;
const pageLog = [];

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
  page = await openPage(browser, `${server.url}/tests/js/browser/harness.html`, (l) => pageLog.push(l));
  await page.waitForFunction(() => window.wick, null, {timeout: 120000});
  const error = await page.evaluate(() => window.wick.startError);
  assert.equal(error, undefined, `the page could not start Wick on WebGPU: ${error}\n${pageLog.join('\n')}`);
});

after(async () => {
  if (browser) await browser.close();
  if (server) server.close();
});

test('the page found a WebGPU adapter', async () => {
  const summary = await page.evaluate(() => window.wick.gpu.adapter.summary);
  assert.match(summary, /swiftshader/i);
});

for (const rel of fixtures) {
  test(`fixture ${rel} (Chromium)`, async () => {
    const result = await page.evaluate((r) => window.wick.run(r), rel);
    assert.deepEqual(result.failures, [], `${rel}:\n  ${result.failures.join('\n  ')}\n${pageLog.slice(-5).join('\n')}`);
  });
}

for (const base of PIPELINES) {
  test(`pipeline ${base}: encoder -> decoder (Chromium)`, async () => {
    const result = await page.evaluate((b) => window.wick.pipeline(b), base);
    assert.deepEqual(result.failures, [], `${base}:\n  ${result.failures.join('\n  ')}`);
  });
}
