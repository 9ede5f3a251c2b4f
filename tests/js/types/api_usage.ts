// Compiled by tests/js/package_readme.test.mjs with `tsc --noEmit --strict`: the calls a
// program makes, against package/index.d.ts (imported as the package's name).
import createExecuTorch, {fetchVerified, type Tensor, type Value} from 'wick-webgpu';

export async function usage(bytes: Uint8Array): Promise<number[]> {
  const et = await createExecuTorch({gpu: null});
  const info = await et.initWebGPU();
  const summary: string = info.adapter.summary;
  const m = et.Module.load(bytes, {name: 'model.pte'});
  const meta = m.getMethodMeta(m.getMethods()[0]);
  const order: number[] = meta.inputTensorMeta[0]?.dimOrder ?? [];
  const half: Tensor = et.Tensor.fromArray([2], [1, 2], et.ScalarType.Half);
  const bits = half.rawData;
  const cl = et.Tensor.fromArray([1, 3, 2, 2], new Float32Array(12), 'float32', [0, 2, 3, 1], [12, 1, 6, 3]);
  const float = et.ScalarType.values[6];
  const tag = et.Tag.values[et.Tag.Tensor.value];
  const outputs: Value[] = await m.execute('forward', [cl, null, BigInt(3), 1.5, true]);
  const first = outputs[0];
  const again = await fetchVerified(new URL('https://example.com/model.pte'), {sha256: 'ab'.repeat(32), cache: false});
  if (first instanceof et.Tensor) return [...first.shape, ...first.strides, bits.length, order.length, again.length];
  return [summary.length, float.value, tag.value];
}
