// The package as a Node application meets it: the host keeps its own error handling,
// WebGPU starts by itself on first use, messages name things helpfully, and hostile
// programs and C API calls give Errors (never a bare number or an abort).
import assert from 'node:assert/strict';
import {spawnSync} from 'node:child_process';
import path from 'node:path';
import {test} from 'node:test';
import {pathToFileURL} from 'node:url';
import {fixtureFiles, nodeRuntime, repoRoot} from './node_runtime.mjs';

const entry = pathToFileURL(path.join(repoRoot, 'package/index.mjs')).href;

function runChild(code, env = {}) {
  return spawnSync(process.execPath, ['--input-type=module', '-e', code],
                   {env: {...process.env, ...env}, encoding: 'utf8', timeout: 120000});
}

test("an uncaught error of the host application exits 1 with the host's own short message", () => {
  const r = runChild(`import {createExecuTorch} from '${entry}';
    await createExecuTorch();
    setTimeout(() => { throw new Error('the host app failed'); }, 10);`);
  assert.equal(r.status, 1, r.stderr.slice(0, 500));
  assert.match(r.stderr, /the host app failed/);
  assert.ok(r.stderr.length < 2000, `stderr is ${r.stderr.length} characters: ${r.stderr.slice(0, 300)}`);
  const rejected = runChild(`import {createExecuTorch} from '${entry}';
    await createExecuTorch();
    Promise.reject(new Error('an unhandled rejection'));`);
  assert.equal(rejected.status, 1);
  assert.ok(rejected.stderr.length < 2000, rejected.stderr.slice(0, 300));
  // Wick's own error, left unhandled: Node shows its source line, which must be a line.
  const own = runChild(`import {createExecuTorch} from '${entry}';
    const et = await createExecuTorch();
    et.Module.load(new Uint8Array(8)).getMethods();`);
  assert.equal(own.status, 1);
  assert.match(own.stderr, /Module\.getMethods: InvalidProgram: <bytes: 8 B>/);
  assert.ok(own.stderr.length < 3000, `stderr is ${own.stderr.length} characters: ${own.stderr.slice(0, 300)}`);
});

test('WebGPU starts on the first method that needs it, without initWebGPU', async () => {
  const {createExecuTorch} = await import(entry);
  const et = await createExecuTorch();  // in Node: Dawn's binding from npm 'webgpu'
  assert.equal(et.webgpu, null);
  const m = et.Module.load(await fixtureFiles.bytes('models/mlp/model.pte'));
  const x = new Float32Array((await fixtureFiles.bytes('models/mlp/case0_input0.bin')).slice().buffer);
  const ref = new Float32Array((await fixtureFiles.bytes('models/mlp/case0_output0.bin')).slice().buffer);
  const [y] = await m.forward([et.Tensor.fromArray([4, 64], x)]);
  assert.ok(et.webgpu && et.webgpu.adapter, 'et.webgpu is set after the lazy start');
  for (let i = 0; i < ref.length; i++) assert.ok(Math.abs(y.data[i] - ref[i]) <= 1e-3 + 1e-3 * Math.abs(ref[i]));
});

test('in Node without a Vulkan driver the error points at Dawn and the driver', () => {
  const r = runChild(`import {createExecuTorch} from '${entry}';
    const et = await createExecuTorch();
    try { await et.initWebGPU(); console.log('no error'); } catch (e) { console.log(e.message); }`,
                     {VK_ICD_FILENAMES: '/nonexistent/icd.json'});
  assert.equal(r.status, 0, r.stderr.slice(0, 500));
  assert.match(r.stdout, /Dawn's node binding \(npm 'webgpu'\) found no WebGPU adapter.*Vulkan driver/);
  assert.doesNotMatch(r.stdout, /browser/);
});

test('messages: byte modules are named, a missing file says so, values are shortened', async () => {
  const et = await nodeRuntime();
  const junk = new TextEncoder().encode('not a program at all');
  // Loading is lazy, as in ExecuTorch: the first use says what is wrong, with a code.
  assert.throws(() => et.Module.load(junk).getMethods(), /<bytes: 20 B>/);
  assert.throws(() => et.Module.load(junk, 'my-model.pte').loadMethod('forward'), (e) =>
    /my-model\.pte: not a \.pte/.test(e.message) && e.code === 'InvalidProgram' && e.errorCode === 0x23);
  assert.throws(() => et.Module.load(junk, {name: 'other.pte'}).getMethodMeta('forward'), /other\.pte/);
  assert.throws(() => et.Module.load('/no/such/file.pte').getMethods(), (e) => e.code === 'AccessFailed' &&
    /cannot read '\/no\/such\/file\.pte' from et\.FS: no such file or directory/.test(e.message));
  et.FS.mkdir('/a-directory');
  assert.throws(() => et.Module.load('/a-directory').forward([]), /is a directory/);
  const m = et.Module.load(await fixtureFiles.bytes('models/mlp/model.pte'));
  await assert.rejects(m.forward([new Float32Array(100000)]), (e) => {
    assert.match(e.message, /input 0 is not a Tensor: Float32Array\(100000\) \[0, 0, 0, 0, \.\.\.\]$/);
    return e.message.length < 200;
  });
  assert.throws(() => et.Tensor.zeros([2], new Float64Array(5000)), (e) => e.message.length < 200);
});

// A method name holding the byte 0xFF: error_cases.mjs ('a method name that is not UTF-8'),
// run by node_errors and browser_errors.

test('wick_method_set_tensor checks the shape, dtype and byte count before it allocates', async () => {
  const et = await nodeRuntime();
  const m = et.Module.load(await fixtureFiles.bytes('cpu/mlp_cpu/model.pte'));
  const h = await m._method('forward', 'test', m._meta('forward', 'test'));
  const call = (dtype, sizes, nbytes) => {
    const sizesPtr = et._malloc(4 * Math.max(sizes.length, 1));
    et.HEAP32.set(sizes, sizesPtr >> 2);
    const data = et._malloc(16);
    try {
      const ok = et._wick_method_set_tensor(h, 0, dtype, sizesPtr, sizes.length, data, nbytes);
      return ok ? 'ok' : et.UTF8ToString(et._wick_last_error());
    } finally {
      et._free(data);
      et._free(sizesPtr);
    }
  };
  // 2^31 * 2^31 * 2^31 floats: no allocation may be tried.
  assert.match(call(6, [2147483647, 2147483647, 2147483647], 16), /more bytes than memory holds/);
  assert.match(call(6, [65536, 65536], 16), /needs 17179869184 bytes, given 16/);
  assert.match(call(99, [4], 16), /dtype 99 is not a ScalarType/);
  assert.match(call(6, [2, -3], 16), /negative size/);
  assert.match(call(6, new Array(17).fill(1), 4), /rank 17 is out of range/);
  // The method still runs.
  const [y] = await m.forward([et.Tensor.zeros([4, 64])]);
  assert.deepEqual(y.shape, [4, 10]);
});
