// Every delegated fixture (groups ops, models, demos, pretrained, and the repository's op
// fixtures in tests/fixtures/ops, as node_cpu_fixtures.test.mjs runs them in Node) and both
// two-program pipelines through the JavaScript API in a headless Chromium started without WebGPU, as a
// visitor whose browser lacks it: the default backend ('auto') finds no adapter and serves
// the Vulkan delegates on the CPU executor of VK00 graphs (the Wasm bundle's src/vkcpu),
// with the harness and tolerances of the WebGPU runs (browser_fixtures.test.mjs). One
// page and one runtime for the file, as a visitor would hold. About 6 s of Wasm on 2 cores.
import assert from 'node:assert/strict';
import {after, before, test} from 'node:test';
import {launchBrowser, openPage, startServer} from './browser_host.mjs';
import {DELEGATED_GROUPS, PIPELINES, listFixtures} from './fixture_harness.mjs';
import {fixtureFiles, listRepoOpFixtures} from './node_runtime.mjs';

const fixtures = await listFixtures(fixtureFiles, DELEGATED_GROUPS);
const repoOps = listRepoOpFixtures();
let server, browser, page;
const log = [];

before(async () => {
  server = await startServer();
  browser = await launchBrowser({webgpu: false});
  // Any page of the origin will do for the imports below: the fixture index, shown as JSON.
  page = await openPage(browser, `${server.url}/fixtures/index.json`, (l) => log.push(l));
  await page.evaluate(async () => {
    const {createExecuTorch} = await import('/package/index.mjs');
    const harness = await import('/tests/js/fixture_harness.mjs');
    // The shared fixtures at /fixtures/, the repository's op fixtures at /tests/fixtures/.
    const files = (root) => ({
      text: async (rel) => (await fetch(`${root}${rel}`)).text(),
      bytes: async (rel) => new Uint8Array(await (await fetch(`${root}${rel}`)).arrayBuffer())});
    const io = files('/fixtures/'), repoIo = files('/tests/fixtures/');
    const et = await createExecuTorch();
    const adapter = navigator.gpu ? await navigator.gpu.requestAdapter() : null;
    window.cpuFixtures = {
      adapter: !!adapter,
      state: () => ({backend: et.delegateBackend, webgpu: et.webgpu}),
      run: (rel) => harness.runFixture(et, rel, io),
      runRepoOp: (name) => harness.runFixture(et, `ops/${name}`, repoIo),
      pipeline: (base) => harness.runPipeline(et, base, io),
    };
  });
});
after(async () => {
  if (browser) await browser.close();
  if (server) server.close();
});

test('this Chromium has no WebGPU adapter (else the runs below would prove nothing)', async () => {
  assert.equal(await page.evaluate(() => window.cpuFixtures.adapter), false);
  assert.ok(fixtures.length >= 92, `only ${fixtures.length} fixtures found`);
  assert.ok(repoOps.length >= 32 && repoOps.includes('llama_8da4w_q4emb'), `only ${repoOps.length} op fixtures in tests/fixtures/ops`);
});

for (const rel of fixtures) {
  test(`fixture ${rel} (Chromium without WebGPU, backend auto -> cpu)`, async () => {
    const result = await page.evaluate((r) => window.cpuFixtures.run(r), rel);
    assert.deepEqual(await page.evaluate(() => window.cpuFixtures.state()), {backend: 'cpu', webgpu: null});
    assert.ok(result.cases >= 1, rel);
    assert.deepEqual(result.failures, [], `${rel}:\n  ${result.failures.join('\n  ')}\n${log.slice(-5).join('\n')}`);
  });
}

for (const name of repoOps) {
  test(`op fixture ${name} (Chromium without WebGPU, backend auto -> cpu)`, async () => {
    const result = await page.evaluate((n) => window.cpuFixtures.runRepoOp(n), name);
    assert.deepEqual(await page.evaluate(() => window.cpuFixtures.state()), {backend: 'cpu', webgpu: null});
    assert.ok(result.cases >= 1, name);
    assert.deepEqual(result.failures, [], `${name}:\n  ${result.failures.join('\n  ')}\n${log.slice(-5).join('\n')}`);
  });
}

for (const base of PIPELINES) {
  test(`pipeline ${base}: encoder -> decoder (Chromium without WebGPU)`, async () => {
    const result = await page.evaluate((b) => window.cpuFixtures.pipeline(b), base);
    assert.deepEqual(result.failures, [], `${base}:\n  ${result.failures.join('\n  ')}`);
  });
}
