// Every fixture through the JavaScript API in headless Chromium (WebGPU on SwiftShader),
// with the harness and tolerances of the Node run.
import assert from 'node:assert/strict';
import {test} from 'node:test';
import {useHarnessPage} from './browser_host.mjs';
import {PIPELINES, listFixtures} from './fixture_harness.mjs';
import {fixtureFiles} from './node_runtime.mjs';

const fixtures = await listFixtures(fixtureFiles);
const h = useHarnessPage({started: true});

test('the page found a WebGPU adapter', async () => {
  const summary = await h.page.evaluate(() => window.wick.gpu.adapter.summary);
  assert.match(summary, /swiftshader/i);
});

for (const rel of fixtures) {
  test(`fixture ${rel} (Chromium)`, async () => {
    const result = await h.page.evaluate((r) => window.wick.run(r), rel);
    assert.deepEqual(result.failures, [], `${rel}:\n  ${result.failures.join('\n  ')}\n${h.log.slice(-5).join('\n')}`);
  });
}

for (const base of PIPELINES) {
  test(`pipeline ${base}: encoder -> decoder (Chromium)`, async () => {
    const result = await h.page.evaluate((b) => window.wick.pipeline(b), base);
    assert.deepEqual(result.failures, [], `${base}:\n  ${result.failures.join('\n  ')}`);
  });
}
