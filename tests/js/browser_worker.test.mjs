// The same bundle in Web Workers of headless Chromium: a module worker importing the ES
// entry, and a classic worker using importScripts. Both run on the worker's WebGPU.
import assert from 'node:assert/strict';
import {test} from 'node:test';
import {useHarnessPage} from './browser_host.mjs';

const h = useHarnessPage();

function inWorker(url, options, message) {
  return h.page.evaluate(({url, options, message}) => new Promise((resolve) => {
    const w = new Worker(url, options);
    w.onmessage = (e) => { resolve(e.data); w.terminate(); };
    w.onerror = (e) => resolve({error: `worker error: ${e.message}`});
    w.postMessage(message);
  }), {url, options, message});
}

test('a module worker runs a delegated fixture on WebGPU', async () => {
  const r = await inWorker('/tests/js/browser/worker.mjs', {type: 'module'}, 'models/cnn');
  assert.deepEqual(r.failures, []);
  assert.match(r.adapter, /swiftshader/i);
});

test('a classic worker loads the bundle with importScripts', async () => {
  const r = await inWorker('/tests/js/browser/classic_worker.js', {}, 'models/mlp');
  assert.equal(r.error, undefined, r.error);
  assert.deepEqual(r.shape, [4, 10]);
  assert.ok(r.worst <= 1e-3, `max abs error ${r.worst}`);
});
