// Calls made while others are in flight, in headless Chromium on WebGPU (SwiftShader),
// with WebGPU started lazily by the first load (as a page that never calls initWebGPU):
// every call settles, the answers match the reference, the page keeps working
// (concurrency_cases.mjs).
import assert from 'node:assert/strict';
import {test} from 'node:test';
import {useHarnessPage} from './browser_host.mjs';

const h = useHarnessPage();

test('load, getMethodMeta, forward and execute from timers during a load and a forward all settle (Chromium)', async () => {
  const r = await h.page.evaluate(async () => {
    const {createExecuTorch} = await import('/package/index.mjs');
    const {concurrentCalls} = await import('/tests/js/concurrency_cases.mjs');
    const io = {
      text: async (rel) => (await fetch(`/fixtures/${rel}`)).text(),
      bytes: async (rel) => new Uint8Array(await (await fetch(`/fixtures/${rel}`)).arrayBuffer()),
    };
    const et = await createExecuTorch();
    const before = et.webgpu;
    const why = await concurrentCalls(et, io);
    return {before, why, after: !!(et.webgpu && et.webgpu.adapter)};
  });
  assert.equal(r.before, null);
  assert.equal(r.why, null, h.log.slice(-5).join('\n'));
  assert.equal(r.after, true);
});
