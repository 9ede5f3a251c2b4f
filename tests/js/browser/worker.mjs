// A module worker running Wick on the worker's own WebGPU: loads a fixture program,
// runs case 0, and posts back the harness result (tests/js/browser_worker.test.mjs).
import {createExecuTorch} from '/package/index.mjs';
import {runFixture} from '/tests/js/fixture_harness.mjs';

const io = {
  text: async (rel) => (await fetch(`/fixtures/${rel}`)).text(),
  bytes: async (rel) => new Uint8Array(await (await fetch(`/fixtures/${rel}`)).arrayBuffer()),
};

self.onmessage = async ({data: rel}) => {
  try {
    const et = await createExecuTorch();
    const gpu = await et.initWebGPU();
    const result = await runFixture(et, rel, io);
    self.postMessage({adapter: gpu.adapter.summary, ...result});
  } catch (e) {
    self.postMessage({rel, failures: [`worker: ${String(e && e.message || e)}`]});
  }
};
