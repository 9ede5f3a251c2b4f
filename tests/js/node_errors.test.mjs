// Bad input through the JavaScript API in Node: clear rejections, and the module works after.
import assert from 'node:assert/strict';
import {test} from 'node:test';
import {ERROR_CASES} from './error_cases.mjs';
import {fixtureFiles, nodeRuntime} from './node_runtime.mjs';

for (const [name, check] of Object.entries(ERROR_CASES)) {
  test(`error case: ${name}`, async () => {
    assert.equal(await check(await nodeRuntime(), fixtureFiles), null);
  });
}

test('initWebGPU without any GPU rejects with a message', async () => {
  const {createExecuTorch} = await import('../../package/index.mjs');
  // No navigator.gpu, and npm 'webgpu' declined. threads: 1, since without an adapter
  // the default is the threaded bundle, which has no WebGPU (node_threads.test.mjs).
  const et = await createExecuTorch({gpu: null, threads: 1});
  await assert.rejects(et.initWebGPU(), /no WebGPU adapter found.*navigator\.gpu is missing/);
  // CPU programs still run without WebGPU.
  const m = et.Module.load(await fixtureFiles.bytes('cpu/mlp_cpu/model.pte'));
  const [y] = await m.forward([et.Tensor.zeros([4, 64])]);
  assert.deepEqual(y.shape, [4, 10]);
});
