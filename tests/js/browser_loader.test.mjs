// fetchVerified in headless Chromium, where verified downloads go to the Cache API.
import assert from 'node:assert/strict';
import {test} from 'node:test';
import {useHarnessPage} from './browser_host.mjs';
import {LOADER_CASES} from './loader_cases.mjs';

// The hit counts live in this process; the page asks for them through a binding.
const h = useHarnessPage({setup: (h) => h.page.exposeFunction('serverHits', (p) => h.server.hits.get(p) || 0)});

for (const name of Object.keys(LOADER_CASES)) {
  test(`loader: ${name} (Chromium)`, async () => {
    const result = await h.page.evaluate(async ({name, base}) => {
      const wick = await import('/package/index.mjs');
      const {LOADER_CASES} = await import('/tests/js/loader_cases.mjs');
      return LOADER_CASES[name](wick, base, (p) => window.serverHits(p)).catch((e) => String(e));
    }, {name, base: h.server.url});
    assert.equal(result, null);
  });
}
