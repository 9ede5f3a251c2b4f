// In headless Chromium, a page that never calls initWebGPU (as pages written for
// ExecuTorch's bindings do not): the first forward of a WebGPU-delegated program opens
// the device on navigator.gpu, and the answer matches the PyTorch reference.
import assert from 'node:assert/strict';
import {test} from 'node:test';
import {useHarnessPage} from './browser_host.mjs';

const h = useHarnessPage();

test('WebGPU starts on the first forward without initWebGPU (Chromium)', async () => {
  const result = await h.page.evaluate(async () => {
    const {createExecuTorch} = await import('/package/index.mjs');
    const et = await createExecuTorch();
    const bytes = async (p) => new Uint8Array(await (await fetch(`/fixtures/${p}`)).arrayBuffer());
    const before = et.webgpu;
    const m = et.Module.load(await bytes('models/mlp/model.pte'), 'models/mlp');
    const x = new Float32Array((await bytes('models/mlp/case0_input0.bin')).buffer);
    const ref = new Float32Array((await bytes('models/mlp/case0_output0.bin')).buffer);
    const [y] = await m.forward([et.Tensor.fromArray([4, 64], x)]);
    let worst = 0;
    for (let i = 0; i < ref.length; i++) worst = Math.max(worst, Math.abs(y.data[i] - ref[i]) / (1 + Math.abs(ref[i])));
    return {before, after: !!(et.webgpu && et.webgpu.adapter), worst};
  });
  assert.equal(result.before, null);
  assert.equal(result.after, true, h.log.join('\n'));
  assert.ok(result.worst <= 1e-3, `worst relative error ${result.worst}`);
});
