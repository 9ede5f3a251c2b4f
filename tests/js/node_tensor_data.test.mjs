// Tensor data through the JavaScript API in Node: float16 values (against CPython's
// IEEE half packing, struct 'e'), dtypes inferred from typed arrays, dim orders and
// strides (validated as ExecuTorch's bindings do, and a channels-last input giving the
// PyTorch reference), ScalarType.values and Tag.values.
import assert from 'node:assert/strict';
import {execFileSync} from 'node:child_process';
import {test} from 'node:test';
import {fixtureFiles, nodeRuntime} from './node_runtime.mjs';

// Bits of the nearest half to each value, from CPython (round half to even).
function pythonHalfBits(values) {
  const script = 'import json,struct,sys\n' +
      'print(json.dumps([struct.unpack("<H", struct.pack("<e", v))[0] if abs(v) < 65520 else (0xfc00 if v < 0 else 0x7c00) for v in json.load(sys.stdin)]))';
  return JSON.parse(execFileSync('python3', ['-c', script], {input: JSON.stringify(values)}).toString());
}

test('float16 tensors hold the nearest half of each number, and data reads back values', async () => {
  const et = await nodeRuntime();
  const t = et.Tensor.fromArray([2], [1, 2], 'float16');
  assert.deepEqual(Array.from(t.rawData), [0x3c00, 0x4000]);
  assert.ok(t.data instanceof Float32Array);
  assert.deepEqual(Array.from(t.data), [1, 2]);
  // Ties at every exponent, subnormals, the overflow edge, and random values.
  const values = [0, 0.1, -0.1, 1 / 3, 65504, 65519.99, 1e-8, 2 ** -24, 2 ** -25, 3 * 2 ** -26, 2 ** -14,
                  2049, 2051, 1 + 2 ** -11, 1 + 3 * 2 ** -11, -1.5e-5, 1000.25, 4097, 12345.678];
  let seed = 7;
  for (let i = 0; i < 2000; i++) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    values.push((seed / 2147483648 - 0.5) * 2 ** ((i % 40) - 24));
  }
  const h = et.Tensor.fromArray([values.length], values, et.ScalarType.Half);
  assert.deepEqual(Array.from(h.rawData), pythonHalfBits(values));
  assert.deepEqual(Array.from(et.Tensor.fromArray([2], [70000, -Infinity], 'float16').rawData), [0x7c00, 0xfc00]);
  // Every half survives data -> fromArray unchanged; full and ones convert too.
  const bits = new Uint16Array(0x7c00);
  for (let i = 0; i < bits.length; i++) bits[i] = i;
  const all = et.Tensor.fromArray([bits.length], bits, 'float16');  // a Uint16Array given as Half: the bits
  assert.deepEqual(Array.from(et.Tensor.fromArray([bits.length], all.data, 'float16').rawData), Array.from(bits));
  assert.deepEqual(Array.from(et.Tensor.full([1], 0.5, 'float16').rawData), [0x3800]);
  assert.deepEqual(Array.from(et.Tensor.ones([1], 'float16').rawData), [0x3c00]);
});

test('typed arrays give their own dtype; a Uint16Array without a dtype is refused', async () => {
  const et = await nodeRuntime();
  assert.equal(et.Tensor.fromArray([1], new Int16Array(1)).dtype, et.ScalarType.Short);
  assert.equal(et.Tensor.fromArray([1], new Int8Array(1)).dtype, et.ScalarType.Char);
  assert.equal(et.Tensor.fromArray([1], new Uint8Array(1)).dtype, et.ScalarType.Byte);
  assert.equal(et.Tensor.fromArray([1], new Int32Array(1)).dtype, et.ScalarType.Int);
  assert.throws(() => et.Tensor.fromArray([2], new Uint16Array([1, 2])), /Uint16Array has no dtype of its own.*float16/);
  assert.throws(() => et.Tensor.fromArray([1], new Uint32Array(1)), /Uint32Array has no matching dtype/);
});

test('ScalarType.values and Tag.values map numbers to members, as embind enums do', async () => {
  const et = await nodeRuntime();
  assert.equal(et.ScalarType.values[6], et.ScalarType.Float);
  assert.equal(et.ScalarType.values[4], et.ScalarType.Long);
  assert.equal(et.ScalarType.values[5], et.ScalarType.Half);
  assert.equal(et.Tag.values[1], et.Tag.Tensor);
  assert.equal(et.Tag.values[11], et.Tag.ListOptionalTensor);
  for (const [name, member] of Object.entries(et.ScalarType)) assert.equal(member.name, name);  // values not enumerated
  assert.equal(Object.keys(et.Tag.values).length, 12);
});

test('dimOrder and strides are validated and kept', async () => {
  const et = await nodeRuntime();
  const data = new Float32Array(24);
  const cl = et.Tensor.fromArray([1, 2, 3, 4], data, 'float32', [0, 2, 3, 1]);
  assert.deepEqual(cl.dimOrder, [0, 2, 3, 1]);
  assert.deepEqual(cl.strides, [24, 1, 8, 2]);
  // Strides alone give the dim order; size-1 dimensions may have any stride.
  assert.deepEqual(et.Tensor.fromArray([1, 2, 3, 4], data, 'float32', [], [99, 1, 8, 2]).dimOrder, [0, 2, 3, 1]);
  assert.deepEqual(et.Tensor.fromArray([2, 3], data, 'float32').dimOrder, [0, 1]);
  assert.throws(() => et.Tensor.fromArray([2, 3], data, 'float32', [0]), /dim_order size must match sizes/);
  assert.throws(() => et.Tensor.fromArray([2, 3], data, 'float32', [0, 0]), /not a permutation/);
  assert.throws(() => et.Tensor.fromArray([2, 3], data, 'float32', [0, 2]), /not a permutation/);
  assert.throws(() => et.Tensor.fromArray([2, 3], data, 'float32', [], [3]), /strides size must match sizes/);
  assert.throws(() => et.Tensor.fromArray([2, 3], data, 'float32', [0, 1], [1, 2]), /invalid strides for dim 0/);
  assert.throws(() => et.Tensor.fromArray([2, 3], data, 'float32', [0, 1], [4, 1]), /invalid strides for dim 0/);
});

test('a channels-last input gives the same answer as the contiguous one (PyTorch reference)', async () => {
  const et = await nodeRuntime();
  const m = et.Module.load(await fixtureFiles.bytes('models/cnn/model.pte'), 'models/cnn');
  assert.deepEqual(m.getMethodMeta('forward').inputTensorMeta[0].dimOrder, [0, 1, 2, 3]);
  const x = new Float32Array((await fixtureFiles.bytes('models/cnn/case0_input0.bin')).slice().buffer);
  const ref = new Float32Array((await fixtureFiles.bytes('models/cnn/case0_output0.bin')).slice().buffer);
  const [C, H, W] = [3, 32, 32];
  const nhwc = new Float32Array(x.length);  // the same tensor, stored channels-last
  for (let c = 0; c < C; c++) for (let h = 0; h < H; h++) for (let w = 0; w < W; w++) nhwc[(h * W + w) * C + c] = x[(c * H + h) * W + w];
  const [y] = await m.forward([et.Tensor.fromArray([1, C, H, W], nhwc, 'float32', [0, 2, 3, 1])]);
  for (let i = 0; i < ref.length; i++) {
    assert.ok(Math.abs(y.data[i] - ref[i]) <= 1e-3 + 1e-3 * Math.abs(ref[i]), `output ${i}: ${y.data[i]} vs ${ref[i]}`);
  }
});
