// Wasm threads in Node: createExecuTorch() picks the -pthread bundle (dist/wick-threads.js,
// its kernel pool on worker_threads) and every delegated fixture matches its reference on
// the CPU executor with 2 threads, the pool's worker having run part of the work; with
// threads: 1 the single-threaded bundle runs them alike. browser_threads.test.mjs does the
// same in Chromium with and without cross-origin isolation. About 10 s on 2 cores.
import assert from 'node:assert/strict';
import {test} from 'node:test';
import {createExecuTorch} from '../../package/index.mjs';
import {DELEGATED_GROUPS, listFixtures, runFixture} from './fixture_harness.mjs';
import {fixtureFiles} from './node_runtime.mjs';

const fixtures = await listFixtures(fixtureFiles, DELEGATED_GROUPS);
// The single-threaded bundle is checked on a few (node_cpu_fixtures.test.mjs runs them all).
const SAMPLE = ['models/cnn', 'models/mobilenet_v3_small', 'pretrained/esrgan_slim_x4', 'demos/llama_q4gsw_kv'];

let threaded = null;
const threadedRuntime = () => (threaded ??= createExecuTorch({backend: 'cpu', threads: 2}));

test('threads: 2 gives the -pthread bundle with 2 threads', async () => {
  const et = await threadedRuntime();
  const t = et.threading;
  assert.equal(t.variant, 'threads');
  assert.equal(t.threads, 2);
  assert.equal(t.reason, 'options.threads');
});

for (const rel of fixtures) {
  test(`fixture ${rel} (cpu backend, 2 threads)`, async () => {
    const et = await threadedRuntime();
    const result = await runFixture(et, rel, fixtureFiles);
    assert.equal(et.delegateBackend, 'cpu');
    assert.ok(result.cases >= 1, rel);
    assert.deepEqual(result.failures, [], `${rel}:\n  ${result.failures.join('\n  ')}`);
  });
}

test('the pool worker ran part of the kernels\' work', async () => {
  const et = await threadedRuntime();
  assert.ok(et.threading.workerChunks > 0, JSON.stringify(et.threading));
});

test('threads: 1 gives the single-threaded bundle, and the same answers', async () => {
  const et = await createExecuTorch({backend: 'cpu', threads: 1});
  assert.deepEqual(et.threading, {variant: 'single', threads: 1, reason: 'options.threads is 1', workerChunks: 0});
  for (const rel of SAMPLE) {
    const result = await runFixture(et, rel, fixtureFiles);
    assert.deepEqual(result.failures, [], `${rel}:\n  ${result.failures.join('\n  ')}`);
  }
});

test('a bad thread count is refused', async () => {
  await assert.rejects(createExecuTorch({threads: 0}), /threads must be an integer from 1 to 256, not 0/);
  await assert.rejects(createExecuTorch({threads: 2.5}), TypeError);
});

test("backend 'auto' without an adapter takes the threaded bundle, which refuses WebGPU with a reason", async () => {
  const et = await createExecuTorch({gpu: null});
  assert.equal(et.threading.variant, 'threads');
  await assert.rejects(et.initWebGPU(), (e) => e.code === 'NotSupported' &&
    /WebGPU is not in the threaded bundle.*threads: 1/.test(e.message));
});

test("backend 'webgpu' or a pinned wick.wasm keeps the single-threaded bundle", async () => {
  const {readFile} = await import('node:fs/promises');
  const {createHash} = await import('node:crypto');
  const sha = createHash('sha256').update(await readFile(new URL('../../package/dist/wick.wasm', import.meta.url))).digest('hex');
  const pinned = await createExecuTorch({backend: 'cpu', wasmSha256: sha});
  assert.equal(pinned.threading.variant, 'single');
  assert.match(pinned.threading.reason, /wasmSha256/);
  const gpu = await createExecuTorch({backend: 'webgpu', gpu: null});
  assert.equal(gpu.threading.variant, 'single');
});
