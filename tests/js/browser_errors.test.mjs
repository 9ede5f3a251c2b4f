// Bad input through the JavaScript API in headless Chromium: clear rejections, and the
// page keeps working afterwards.
import assert from 'node:assert/strict';
import {test} from 'node:test';
import {ERROR_CASES} from './error_cases.mjs';
import {useHarnessPage} from './browser_host.mjs';

const h = useHarnessPage({started: true});

for (const name of Object.keys(ERROR_CASES)) {
  test(`error case: ${name} (Chromium)`, async () => {
    assert.equal(await h.page.evaluate((n) => window.wick.error(n), name), null, h.log.slice(-5).join('\n'));
  });
}

test('the page still runs a fixture after every error case', async () => {
  const result = await h.page.evaluate(() => window.wick.run('models/cnn'));
  assert.deepEqual(result.failures, []);
  assert.equal(await h.page.evaluate(() => document.title), 'Wick test harness');
});
