// createExecuTorch({f16Weights: true}) (a Wick extension) in Node on Mesa's lavapipe, which
// has shader-f16 (SwiftShader does not): the exported Linear(64 -> 32) fixture (x [4, 64])
// runs with its weight stored as f16 and f16 arithmetic, within f16 rounding of PyTorch's
// output and visibly apart from the f32 run. Fails, never skips, where the adapter lacks
// shader-f16 (setup.sh installs lavapipe; scripts/env.sh names it WICK_LAVAPIPE_ICD).
// Also: WICK_F16=1 set in Module.ENV before the runtime starts gives the same f16 run (the
// WICK_* switches reach getenv() in Wasm too).
import assert from 'node:assert/strict';
import {test} from 'node:test';

// Before dawn.node opens the Vulkan loader (node_runtime.mjs creates its GPU object on import).
process.env.VK_ICD_FILENAMES = process.env.WICK_LAVAPIPE_ICD || '/usr/share/vulkan/icd.d/lvp_icd.json';
const {gpu, fixtureFiles} = await import('./node_runtime.mjs');
const {createExecuTorch} = await import('../../package/index.mjs');

// env: WICK_* variables set in the runtime's environment before it starts (Module.ENV).
async function runLinear(f16Weights, env) {
  const preRun = env ? {preRun: [(M) => Object.assign(M.ENV, env)]} : {};
  const et = await createExecuTorch({gpu, threads: 1, backend: 'webgpu', f16Weights, ...preRun});
  const info = await et.initWebGPU({gpu});
  const manifest = JSON.parse(await fixtureFiles.text('ops/linear/manifest.json'));
  const c = manifest.cases[0];
  const x = new Float32Array((await fixtureFiles.bytes(`ops/linear/${c.inputs[0].file}`)).slice().buffer);
  const ref = new Float32Array((await fixtureFiles.bytes(`ops/linear/${c.outputs[0].file}`)).slice().buffer);
  const m = et.Module.load(await fixtureFiles.bytes('ops/linear/model.pte'));
  const [y] = await m.forward([et.Tensor.fromArray(c.inputs[0].shape, x)]);
  return {info, got: Float32Array.from(y.data), ref};
}

function relL2(a, b) {
  let num = 0, den = 0;
  for (let i = 0; i < b.length; ++i) {
    num += (a[i] - b[i]) ** 2;
    den += b[i] ** 2;
  }
  return Math.sqrt(num / den);
}

test('f16Weights: f16 arithmetic on an adapter with shader-f16, close to PyTorch', async () => {
  const f16 = await runLinear(true);
  assert.ok(f16.info.features.includes('shader-f16'),
            `${f16.info.adapter.summary} has no shader-f16 (features: ${f16.info.features.join(' ')}); ` +
            'this test needs Mesa\'s lavapipe (WICK_LAVAPIPE_ICD)');
  const f32 = await runLinear(false);
  assert.equal(f16.got.length, f16.ref.length);
  // K = 64 products: f16 rounding of x and w (2^-11 each) and f16 sums within a K tile.
  const err16 = relL2(f16.got, f16.ref), err32 = relL2(f32.got, f32.ref);
  assert.ok(err16 < 2e-3, `f16: relative L2 ${err16} from PyTorch's output`);
  assert.ok(err32 < 1e-5, `f32: relative L2 ${err32} from PyTorch's output`);
  // The f16 run must show f16 rounding: the option reached the delegate.
  assert.ok(relL2(f16.got, f32.got) > 1e-5, `f16 and f32 runs agree to ${relL2(f16.got, f32.got)}: was f16Weights applied?`);
});

test('Module.ENV reaches the runtime: WICK_F16=1 set before start gives the f16 run', async () => {
  // The same switch as `wick --f16` / WICK_F16=1 natively, here through Emscripten's ENV
  // (bench/vision/node_wasm_bench.mjs passes a process's WICK_* variables this way).
  const viaEnv = await runLinear(false, {WICK_F16: '1'});
  const f32 = await runLinear(false);
  const f16 = await runLinear(true);
  assert.ok(relL2(viaEnv.got, f32.got) > 1e-5, `WICK_F16=1 through ENV left the f32 result (${relL2(viaEnv.got, f32.got)})`);
  assert.ok(relL2(viaEnv.got, f16.got) < 1e-7, `WICK_F16=1 through ENV differs from f16Weights: true (${relL2(viaEnv.got, f16.got)})`);
});

test('f16Weights must be a boolean', async () => {
  const et = await createExecuTorch({gpu, threads: 1, backend: 'webgpu', f16Weights: 'yes'});
  await assert.rejects(et.initWebGPU({gpu}), (e) => e.code === 'InvalidArgument' && /f16Weights must be true or false/.test(e.message));
});
