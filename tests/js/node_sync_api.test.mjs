// Synchronous callers (pages written for ExecuTorch's CPU build), in Node: a program
// without delegates runs synchronously and its outputs also work with await; a WebGPU
// program's Promise, read as its outputs, says what to do; errors carry codes.
import assert from 'node:assert/strict';
import {test} from 'node:test';
import {fixtureFiles, nodeRuntime} from './node_runtime.mjs';

async function mlp(dir) {
  const x = new Float32Array((await fixtureFiles.bytes(`${dir}/case0_input0.bin`)).slice().buffer);
  const ref = new Float32Array((await fixtureFiles.bytes(`${dir}/case0_output0.bin`)).slice().buffer);
  return {bytes: await fixtureFiles.bytes(`${dir}/model.pte`), x, ref};
}
const near = (y, ref) => ref.every((r, i) => Math.abs(y[i] - r) <= 1e-3 + 1e-3 * Math.abs(r));

test('a program without delegates runs synchronously; its outputs are an Array that await and then also take', async () => {
  const et = await nodeRuntime();
  const {bytes, x, ref} = await mlp('cpu/mlp_cpu');
  const m = et.Module.load(bytes);
  assert.equal(m.getMethodMeta('forward').runsOnGpu, false);
  const out = m.forward(et.Tensor.fromArray([4, 64], x));
  assert.ok(Array.isArray(out));
  assert.ok(near(out[0].data, ref));
  const awaited = await out;
  assert.ok(Array.isArray(awaited) && awaited[0] === out[0] && typeof awaited.then === 'undefined');
  assert.ok(near((await m.execute('forward', [et.Tensor.fromArray([4, 64], x)]).then((o) => o[0])).data, ref));
  // Errors of a synchronous call are thrown, with a code.
  assert.throws(() => m.forward([]), (e) => e.code === 'InvalidArgument' && e.errorCode === 0x12 &&
    /Module\.execute\('forward'\): expected 1 input, got 0/.test(e.message));
  assert.throws(() => m.forward(['x']), (e) => e instanceof TypeError && e.code === 'InvalidArgument');
  m.delete();
});

test("a WebGPU program's Promise, used as its outputs, throws a message that says to await it", async () => {
  const et = await nodeRuntime();
  const {bytes, x, ref} = await mlp('models/mlp');
  const m = et.Module.load(bytes);
  assert.equal(m.getMethodMeta('forward').runsOnGpu, true);
  const pending = m.forward([et.Tensor.fromArray([4, 64], x)]);
  assert.ok(pending instanceof Promise);
  assert.throws(() => pending[0].data, (e) => e.code === 'AsyncResult' &&
    /returned a Promise, not its outputs: the method runs on WebGPU.*await module\.forward/.test(e.message));
  assert.throws(() => { const [y] = pending; return y; }, /returned a Promise/);
  const [y] = await pending;
  assert.ok(near(y.data, ref));
  // Rejections carry codes too.
  await assert.rejects(m.forward([et.Tensor.zeros([3, 64])]), (e) => e.code === 'InvalidArgument' && /shape/.test(e.message));
  assert.throws(() => m.etdump(), (e) => e.code === 'NotSupported' && e.errorCode === 0x10 && /ETDump/.test(e.message));
  assert.throws(() => et.Tensor.zeros([2, -1]), (e) => e.code === 'InvalidArgument');
  m.delete();
  assert.throws(() => m.getMethods(), (e) => e.code === 'InvalidState' && /deleted/.test(e.message));
});

test("backend 'cpu': a Vulkan-lowered program runs synchronously on the CPU executor; a bad backend name is an error", async () => {
  const {createExecuTorch} = await import('../../package/index.mjs');
  const et = await createExecuTorch({backend: 'cpu', gpu: null});
  const {bytes, x, ref} = await mlp('models/mlp');
  const m = et.Module.load(bytes);
  assert.equal(et.delegateBackend, null);
  assert.equal(m.getMethodMeta('forward').runsOnGpu, false);
  assert.equal(et.delegateBackend, 'cpu');
  const out = m.forward(et.Tensor.fromArray([4, 64], x));
  assert.ok(Array.isArray(out) && near(out[0].data, ref));
  assert.equal(et.webgpu, null);
  const bad = await createExecuTorch({backend: 'vulkan', gpu: null});
  const b = bad.Module.load(bytes);
  await assert.rejects(b.forward(bad.Tensor.fromArray([4, 64], x)), (e) => e.code === 'InvalidArgument' &&
    /backend must be 'webgpu', 'cpu' or 'auto', not "vulkan"/.test(e.message));
});

test("backend 'auto' without any GPU falls back to the CPU executor: the first run waits for the choice, later ones are synchronous", async () => {
  const {createExecuTorch} = await import('../../package/index.mjs');
  const et = await createExecuTorch({backend: 'auto', gpu: null});
  const {bytes, x, ref} = await mlp('models/mlp');
  const m = et.Module.load(bytes);
  const first = m.forward(et.Tensor.fromArray([4, 64], x));
  assert.ok(first instanceof Promise);
  assert.ok(near((await first)[0].data, ref));
  assert.equal(et.delegateBackend, 'cpu');
  const second = m.forward(et.Tensor.fromArray([4, 64], x));
  assert.ok(Array.isArray(second) && near(second[0].data, ref));
});
