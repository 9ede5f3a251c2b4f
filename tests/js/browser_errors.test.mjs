// Bad input through the JavaScript API in headless Chromium: clear rejections, and the
// page keeps working afterwards.
import assert from 'node:assert/strict';
import {after, before, test} from 'node:test';
import {ERROR_CASES} from './error_cases.mjs';
import {launchBrowser, openPage, startServer} from './browser_host.mjs';

let server, browser, page;
const pageLog = [];

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
  page = await openPage(browser, `${server.url}/tests/js/browser/harness.html`, (l) => pageLog.push(l));
  await page.waitForFunction(() => window.wick, null, {timeout: 120000});
  const error = await page.evaluate(() => window.wick.startError);
  assert.equal(error, undefined, `the page could not start Wick on WebGPU: ${error}`);
});

after(async () => {
  if (browser) await browser.close();
  if (server) server.close();
});

for (const name of Object.keys(ERROR_CASES)) {
  test(`error case: ${name} (Chromium)`, async () => {
    assert.equal(await page.evaluate((n) => window.wick.error(n), name), null, pageLog.slice(-5).join('\n'));
  });
}

test('the page still runs a fixture after every error case', async () => {
  const result = await page.evaluate(() => window.wick.run('models/cnn'));
  assert.deepEqual(result.failures, []);
  assert.equal(await page.evaluate(() => document.title), 'Wick test harness');
});
