// A demo's self-check: its program run on the fixture case's inputs, and the outputs
// compared with the PyTorch references stored beside the program, with the fixture's
// rule |out - ref| <= atol + rtol |ref| elementwise. Used by the "Check against the
// reference" buttons of the SAM, Whisper and chat demos (and read by their tests).

const ARRAYS = {float32: Float32Array, int64: BigInt64Array, int32: Int32Array, uint8: Uint8Array, bool: Uint8Array};

// A reference tensor file ({url, dtype, shape}) as {dtype, shape, data}.
export async function fetchTensor({url, dtype, shape}, signal) {
  const response = await fetch(url, {signal});
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  const Type = ARRAYS[dtype];
  if (!Type) throw new Error(`${url}: dtype ${dtype} is not handled`);
  const bytes = await response.arrayBuffer();
  const numel = shape.reduce((a, b) => a * b, 1);
  if (bytes.byteLength !== numel * Type.BYTES_PER_ELEMENT) {
    throw new Error(`${url}: ${bytes.byteLength} bytes, expected ${numel} x ${dtype} for shape [${shape}]`);
  }
  return {dtype, shape, data: new Type(bytes)};
}

// {maxAbs, worstExcess, ok, count}: worstExcess is max(|d| - (atol + rtol |ref|)), <= 0 when ok.
export function compare(got, want, {atol = 1e-3, rtol = 1e-3} = {}) {
  if (got.length !== want.length) return {ok: false, maxAbs: Infinity, worstExcess: Infinity, count: got.length};
  let maxAbs = 0, worstExcess = -Infinity;
  for (let i = 0; i < got.length; i++) {
    const d = Math.abs(Number(got[i]) - Number(want[i]));
    if (!(d === d)) return {ok: false, maxAbs: NaN, worstExcess: Infinity, count: got.length};
    if (d > maxAbs) maxAbs = d;
    const e = d - (atol + rtol * Math.abs(Number(want[i])));
    if (e > worstExcess) worstExcess = e;
  }
  return {ok: worstExcess <= 0, maxAbs, worstExcess, count: got.length};
}

// A copy of a tensor {dtype, shape, data}: model.run transfers its inputs' buffers, so a
// tensor passed to several runs is copied for each.
export function copyTensor(t) {
  return {dtype: t.dtype, shape: t.shape.slice(), data: t.data.slice()};
}

// One line for the page: "pred_masks: max |diff| 2.1e-6 (atol 1e-3, rtol 1e-3) ✓".
export function describe(name, result, tol) {
  const mark = result.ok ? '\u2713 within' : '\u2717 outside';
  return `${name}: max |diff| ${result.maxAbs.toExponential(1)}, ${mark} atol ${tol.atol} + rtol ${tol.rtol}`;
}
