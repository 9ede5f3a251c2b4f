// The JavaScript API's own surface, in Node: tensor factories and dtypes, metadata, the
// Emscripten file system, BigInt inputs and outputs.
import assert from 'node:assert/strict';
import {test} from 'node:test';
import {fixtureFiles, nodeRuntime} from './node_runtime.mjs';

test('Tensor factories give the dtype, shape and values asked for', async () => {
  const et = await nodeRuntime();
  const z = et.Tensor.zeros([2, 3]);
  assert.equal(z.dtype, et.ScalarType.Float);
  assert.deepEqual(z.shape, [2, 3]);
  assert.deepEqual(Array.from(z.data), [0, 0, 0, 0, 0, 0]);
  const o = et.Tensor.ones([2], et.ScalarType.Long);
  assert.ok(o.data instanceof BigInt64Array);
  assert.deepEqual(Array.from(o.data), [BigInt(1), BigInt(1)]);
  const f = et.Tensor.full([3], BigInt(7));
  assert.equal(f.dtype, et.ScalarType.Long);
  const b = et.Tensor.fromArray([2], [true, false]);
  assert.equal(b.dtype, et.ScalarType.Bool);
  assert.deepEqual(Array.from(b.data), [1, 0]);
  const l = et.Tensor.fromArray([2], [BigInt(-5), BigInt(2) ** BigInt(40)]);
  assert.equal(l.data[1], BigInt(2) ** BigInt(40));
  assert.equal(et.Tensor.fromArray([2, 2], new Float64Array([1, 2, 3, 4])).dtype, et.ScalarType.Double);
  assert.throws(() => et.Tensor.fromArray([4], [1, 2]), /required 4 elements, given 2/);
  assert.throws(() => et.Tensor.zeros([2, -1]), /sizes\[1\] = -1 is not a size/);
  assert.throws(() => et.Tensor.zeros([2], 'complex64'), /unsupported dtype/);
  z.delete();
  assert.throws(() => z.data, /deleted/);
});

test('getMethodMeta and methodNames describe the program', async () => {
  const et = await nodeRuntime();
  const m = et.Module.load(await fixtureFiles.bytes('models/llama_et_kv/model.pte'));
  assert.deepEqual(m.methodNames, ['forward']);
  const meta = m.getMethodMeta('forward');
  assert.equal(meta.name, 'forward');
  assert.deepEqual(meta.inputTags.map((t) => t.name), ['Tensor', 'Tensor']);
  assert.deepEqual(meta.inputTensorMeta.map((t) => t.sizes), [[1, 1], [1]]);
  assert.deepEqual(meta.inputTensorMeta.map((t) => t.scalarType), [et.ScalarType.Long, et.ScalarType.Long]);
  assert.deepEqual(meta.outputTensorMeta[0].sizes, [1, 512]);
  assert.ok(meta.backends.includes('VulkanBackend'));
  assert.ok(meta.operators.some((op) => op.startsWith('aten::index_put')), meta.operators.join(', '));
  assert.ok(meta.memoryPlannedBufferSizes.every((s) => typeof s === 'bigint'));
  m.delete();
});

test('a program loads from a path in et.FS', async () => {
  const et = await nodeRuntime();
  et.FS.writeFile('/argmax.pte', await fixtureFiles.bytes('ops/argmax/model.pte'));
  const m = et.Module.load('/argmax.pte');
  const manifest = JSON.parse(await fixtureFiles.text('ops/argmax/manifest.json'));
  const x = new Float32Array((await fixtureFiles.bytes(`ops/argmax/${manifest.cases[0].inputs[0].file}`)).slice().buffer);
  const [y] = await m.forward([et.Tensor.fromArray([2, 8, 33], x)]);
  const ref = new BigInt64Array((await fixtureFiles.bytes(`ops/argmax/${manifest.cases[0].outputs[0].file}`)).slice().buffer);
  assert.equal(y.dtype, et.ScalarType.Long);
  assert.deepEqual(Array.from(y.data), Array.from(ref));
  assert.throws(() => et.Module.load('/no/such/file.pte').getMethods(), /Module.getMethods: cannot read '\/no\/such\/file.pte' from et.FS/);
});

test('int64 inputs go in as BigInt64Array and a stateful method keeps its cache', async () => {
  const et = await nodeRuntime();
  const m = et.Module.load(await fixtureFiles.bytes('models/llama_et_kv/model.pte'));
  const manifest = JSON.parse(await fixtureFiles.text('models/llama_et_kv/manifest.json'));
  const last = [];
  for (const kase of manifest.cases) {
    const inputs = [];
    for (const t of kase.inputs) {
      inputs.push(et.Tensor.fromArray(t.shape, new BigInt64Array((await fixtureFiles.bytes(`models/llama_et_kv/${t.file}`)).slice().buffer)));
    }
    const [logits] = await m.forward(inputs);
    last.push(logits);
  }
  // Step outputs differ (the cache moved on) and all are still readable.
  assert.notDeepEqual(Array.from(last[0].data.slice(0, 8)), Array.from(last[2].data.slice(0, 8)));
  assert.equal(last[0].data.length, 512);
});
