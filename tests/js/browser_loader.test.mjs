// fetchVerified in headless Chromium, where verified downloads go to the Cache API.
import assert from 'node:assert/strict';
import {after, before, test} from 'node:test';
import {launchBrowser, openPage, startServer} from './browser_host.mjs';
import {LOADER_CASES} from './loader_cases.mjs';

let server, browser, page;
before(async () => {
  server = await startServer();
  browser = await launchBrowser();
  page = await openPage(browser, `${server.url}/tests/js/browser/harness.html`);
  // The hit counts live in this process; the page asks for them through a binding.
  await page.exposeFunction('serverHits', (p) => server.hits.get(p) || 0);
});
after(async () => {
  if (browser) await browser.close();
  if (server) server.close();
});

for (const name of Object.keys(LOADER_CASES)) {
  test(`loader: ${name} (Chromium)`, async () => {
    const result = await page.evaluate(async ({name, base}) => {
      const wick = await import('/package/index.mjs');
      const {LOADER_CASES} = await import('/tests/js/loader_cases.mjs');
      return LOADER_CASES[name](wick, base, (p) => window.serverHits(p)).catch((e) => String(e));
    }, {name, base: server.url});
    assert.equal(result, null);
  });
}
