// Wasm threads in Chromium (started without WebGPU, so the delegates run on the CPU
// executor): a page served with COOP/COEP (cross-origin isolated) gets the -pthread
// bundle from createExecuTorch() and runs conv, transformer and LLM fixtures with more
// than one thread, the pool's workers taking part, matching their references; the same
// page without those headers gets the single-threaded bundle and one thread, with the
// same answers. About 10 s on 2 cores.
import assert from 'node:assert/strict';
import {after, before, test} from 'node:test';
import {CROSS_ORIGIN_ISOLATED, launchBrowser, openPage, startServer} from './browser_host.mjs';

const SAMPLE = ['models/cnn', 'models/mobilenet_v3_small', 'pretrained/esrgan_slim_x4', 'demos/llama_q4gsw_kv',
                'demos/whisper_tiny_encoder'];
let browser;
const servers = [];
const log = [];

before(async () => {
  browser = await launchBrowser({webgpu: false});
});
after(async () => {
  if (browser) await browser.close();
  for (const s of servers) s.close();
});

// Opens a page of a server with these headers, starts Wick with the default options,
// runs SAMPLE and returns {isolated, threading, results}.
async function runPage(headers) {
  const server = await startServer({headers});
  servers.push(server);
  const page = await openPage(browser, `${server.url}/fixtures/index.json`, (l) => log.push(l));
  try {
    return await page.evaluate(async (sample) => {
      const {createExecuTorch} = await import('/package/index.mjs');
      const harness = await import('/tests/js/fixture_harness.mjs');
      const io = {text: async (rel) => (await fetch(`/fixtures/${rel}`)).text(),
                  bytes: async (rel) => new Uint8Array(await (await fetch(`/fixtures/${rel}`)).arrayBuffer())};
      const et = await createExecuTorch();
      const results = {};
      for (const rel of sample) results[rel] = await harness.runFixture(et, rel, io);
      return {isolated: globalThis.crossOriginIsolated, cores: navigator.hardwareConcurrency,
              backend: et.delegateBackend, threading: et.threading, results};
    }, SAMPLE);
  } finally {
    await page.close();
  }
}

function assertMatches(run) {
  for (const rel of SAMPLE) {
    const r = run.results[rel];
    assert.ok(r.cases >= 1, rel);
    assert.deepEqual(r.failures, [], `${rel}:\n  ${r.failures.join('\n  ')}\n${log.slice(-5).join('\n')}`);
  }
}

test('cross-origin isolated page: the threaded bundle, more than one thread, references matched', async () => {
  const run = await runPage(CROSS_ORIGIN_ISOLATED);
  assert.equal(run.isolated, true);
  assert.ok(run.cores >= 2, `this machine shows ${run.cores} core(s): threads cannot be checked`);
  assert.equal(run.backend, 'cpu');
  assert.equal(run.threading.variant, 'threads', JSON.stringify(run.threading));
  assert.equal(run.threading.threads, Math.min(run.cores, 8));
  assert.ok(run.threading.workerChunks > 0, `the pool's workers ran nothing: ${JSON.stringify(run.threading)}`);
  assertMatches(run);
});

test('page without COOP/COEP: the single-threaded bundle, one thread, references matched', async () => {
  const run = await runPage({});
  assert.equal(run.isolated, false);
  assert.equal(run.threading.variant, 'single');
  assert.equal(run.threading.threads, 1);
  assert.equal(run.threading.workerChunks, 0);
  assert.match(run.threading.reason, /not cross-origin isolated/);
  assertMatches(run);
});
