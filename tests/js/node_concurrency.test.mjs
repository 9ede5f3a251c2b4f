// Calls made while others are in flight, in Node on dawn.node, with WebGPU started lazily
// by the first load (as a page that never calls initWebGPU): every call settles, the
// answers match the reference, the runtime keeps working (concurrency_cases.mjs).
import assert from 'node:assert/strict';
import {test} from 'node:test';
import {createExecuTorch} from '../../package/index.mjs';
import {concurrentCalls} from './concurrency_cases.mjs';
import {fixtureFiles} from './node_runtime.mjs';

test('load, getMethodMeta, forward and execute from timers during a load and a forward all settle (Node)', async () => {
  const et = await createExecuTorch();
  assert.equal(et.webgpu, null);
  assert.equal(await concurrentCalls(et, fixtureFiles), null);
  assert.ok(et.webgpu && et.webgpu.adapter);
});
