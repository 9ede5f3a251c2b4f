// Runs the shared fixtures (../shared/fixtures) through Wick's JavaScript API and
// compares with their PyTorch references, exactly as the native tests do
// (tests/webgpu/delegate_fixtures_test.cpp): the manifest's tolerance
// |out - ref| <= atol + rtol * |ref| elementwise, ints and bools exact, stateful
// fixtures' cases in order on one module, and an ill-conditioned fixture (its own fp32
// and fp64 references differ by more than 100 * atol) held to shapes, dtypes and
// finiteness only.
//
// Host-neutral: `io` reads fixture files ({text(rel), bytes(rel)}), from the file system
// in Node and over HTTP in the browser (tests/js/browser/fixtures.html).

export const FIXTURE_GROUPS = ['cpu', 'ops_undelegated', 'ops', 'models', 'demos', 'pretrained'];
// The groups whose programs all hold VulkanBackend delegates (the CPU executor's runs).
export const DELEGATED_GROUPS = ['ops', 'models', 'demos', 'pretrained'];

const TYPED = {float32: Float32Array, int64: BigInt64Array, bool: Uint8Array, int32: Int32Array,
               float64: Float64Array, uint8: Uint8Array, int8: Int8Array, int16: Int16Array};

export async function listFixtures(io, groups = FIXTURE_GROUPS) {
  const index = JSON.parse(await io.text('index.json'));
  return index.fixtures.filter((f) => groups.includes(f.group)).map((f) => f.path);
}

function typedView(bytes, dtype, where) {
  const T = TYPED[dtype];
  if (!T) throw new Error(`${where}: dtype ${dtype} is not handled by the harness`);
  // A copy, so the view is aligned whatever the source buffer's offset.
  const copy = bytes.slice();
  return new T(copy.buffer, 0, copy.byteLength / T.BYTES_PER_ELEMENT);
}

// A fixture tensor file (a manifest entry {file, dtype, shape}) as a Wick tensor.
async function tensorFromFile(et, io, rel, t) {
  const dtype = {float32: et.ScalarType.Float, int64: et.ScalarType.Long, bool: et.ScalarType.Bool,
                 int32: et.ScalarType.Int}[t.dtype];
  return et.Tensor.fromArray(t.shape, typedView(await io.bytes(`${rel}/${t.file}`), t.dtype, rel), dtype);
}

function dtypeName(t) {
  return {Float: 'float32', Long: 'int64', Bool: 'bool', Int: 'int32', Double: 'float64',
          Byte: 'uint8', Char: 'int8', Short: 'int16'}[t.dtype.name];
}

// The first failure as a message, or null.
export function compareTensor(got, ref, refData, atol, rtol, finiteOnly) {
  if (!got || typeof got !== 'object' || !('data' in got)) return `expected a tensor, got ${String(got)}`;
  if (dtypeName(got) !== ref.dtype) return `dtype ${dtypeName(got)} != reference ${ref.dtype}`;
  if (JSON.stringify(got.shape) !== JSON.stringify(ref.shape)) {
    return `shape [${got.shape}] != reference [${ref.shape}]`;
  }
  const data = got.data;
  const exact = !ref.dtype.startsWith('float');
  let bad = 0, first = -1, worst = 0;
  for (let i = 0; i < refData.length; i++) {
    const a = Number(data[i]), b = Number(refData[i]);
    let ok;
    if (finiteOnly) ok = Number.isFinite(a);
    else if (exact) ok = a === b;
    else ok = Math.abs(a - b) <= atol + rtol * Math.abs(b) || (Number.isNaN(a) && Number.isNaN(b));
    if (!finiteOnly && !Number.isNaN(a - b)) worst = Math.max(worst, Math.abs(a - b));
    if (!ok) {
      if (first < 0) first = i;
      bad++;
    }
  }
  if (!bad) return null;
  return `${bad} of ${refData.length} elements off (first at ${first}: ${Number(data[first])} vs ` +
         `${Number(refData[first])}), max abs err ${worst}, atol ${atol}, rtol ${rtol}` +
         (finiteOnly ? ' (finiteness only)' : '');
}

// The outputs of a pipeline's encoder fixture, per runtime: et -> Map(`${rel}#${case}` ->
// outputs), kept by runFixture for a case whose outputs matched the reference, and taken
// (once) by runPipeline instead of running the encoder again on the same inputs. The
// Whisper encoder is the slowest fixture on SwiftShader, and a file that runs every
// fixture and then the pipelines ran it twice. The decoder still gets what Wick computed.
const encoderOutputs = new WeakMap();

function keepsEncoderOutputs(rel) { return PIPELINES.some((base) => rel === `${base}_encoder`); }

// Resolves to {rel, cases, failures: [message...]}; never rejects for a fixture failure.
export async function runFixture(et, rel, io) {
  const failures = [];
  const manifest = JSON.parse(await io.text(`${rel}/manifest.json`));
  const method = manifest.method || 'forward';
  const {atol = 1e-3, rtol = 1e-3} = manifest.tolerance || {};
  const fp32VsFp64 = manifest.reference && typeof manifest.reference.max_abs_err_fp32_vs_fp64 === 'number'
                         ? manifest.reference.max_abs_err_fp32_vs_fp64 : 0;
  const finiteOnly = fp32VsFp64 > 100 * atol;
  let module;
  try {
    module = et.Module.load(await io.bytes(`${rel}/${manifest.program || 'model.pte'}`));
    await module.loadMethod(method);
    for (let c = 0; c < manifest.cases.length; c++) {
      const kase = manifest.cases[c];
      const inputs = [];
      for (const t of kase.inputs) inputs.push(await tensorFromFile(et, io, rel, t));
      const outputs = await module.execute(method, inputs);
      if (outputs.length !== kase.outputs.length) {
        failures.push(`case ${c}: ${outputs.length} outputs, reference has ${kase.outputs.length}`);
        continue;
      }
      const before = failures.length;
      for (let o = 0; o < outputs.length; o++) {
        const ref = kase.outputs[o];
        const refData = typedView(await io.bytes(`${rel}/${ref.file}`), ref.dtype, `${rel} case ${c}`);
        const why = compareTensor(outputs[o], ref, refData, atol, rtol, finiteOnly);
        if (why) failures.push(`case ${c} output ${o}: ${why}`);
      }
      if (failures.length === before && keepsEncoderOutputs(rel)) {
        if (!encoderOutputs.has(et)) encoderOutputs.set(et, new Map());
        encoderOutputs.get(et).set(`${rel}#${c}`, outputs);
      }
    }
  } catch (e) {
    failures.push(String((e && e.message) || e));
  } finally {
    if (module) module.delete();
  }
  return {rel, cases: manifest.cases.length, failures};
}

// Two-program pipelines (SAM2, Whisper): the decoder runs on the encoder's outputs as
// Wick computed them. Decoder inputs whose bytes equal an encoder reference output (same
// sha256 prefix in the manifests) are taken from the encoder. As
// tests/webgpu/pipeline_fixtures_test.cpp does natively. The encoder's outputs are those
// runFixture kept for the same case when the encoder fixture ran first on this runtime
// (fixture files run every fixture before the pipelines); otherwise the encoder runs here.
export const PIPELINES = ['demos/sam2_tiny', 'demos/whisper_tiny'];

export async function runPipeline(et, base, io) {
  const failures = [];
  const load = async (rel) => JSON.parse(await io.text(`${rel}/manifest.json`));
  const [em, dm] = [await load(`${base}_encoder`), await load(`${base}_decoder`)];
  const modules = [];
  try {
    const enc = et.Module.load(await io.bytes(`${base}_encoder/model.pte`));
    const dec = et.Module.load(await io.bytes(`${base}_decoder/model.pte`));
    modules.push(enc, dec);
    for (let c = 0; c < dm.cases.length; c++) {
      const kept = encoderOutputs.get(et);
      let encoded = kept && kept.get(`${base}_encoder#${c}`);
      if (encoded) {
        kept.delete(`${base}_encoder#${c}`);
      } else {
        const encIn = [];
        for (const t of em.cases[c].inputs) encIn.push(await tensorFromFile(et, io, `${base}_encoder`, t));
        encoded = await enc.forward(encIn);
      }
      const byHash = new Map(em.cases[c].outputs.map((o, i) => [o.sha256_prefix, i]));
      const decIn = [];
      let linked = 0;
      for (const t of dm.cases[c].inputs) {
        if (byHash.has(t.sha256_prefix)) {
          decIn.push(encoded[byHash.get(t.sha256_prefix)]);
          linked++;
        } else {
          decIn.push(await tensorFromFile(et, io, `${base}_decoder`, t));
        }
      }
      if (!linked) failures.push(`case ${c}: no decoder input is an encoder output`);
      const outputs = await dec.forward(decIn);
      const {atol = 1e-3, rtol = 1e-3} = dm.tolerance || {};
      for (let o = 0; o < outputs.length; o++) {
        const ref = dm.cases[c].outputs[o];
        const refData = typedView(await io.bytes(`${base}_decoder/${ref.file}`), ref.dtype, base);
        const why = compareTensor(outputs[o], ref, refData, atol, rtol, false);
        if (why) failures.push(`case ${c} decoder output ${o}: ${why}`);
      }
    }
  } catch (e) {
    failures.push(String((e && e.message) || e));
  } finally {
    modules.forEach((m) => m.delete());
  }
  return {rel: base, failures};
}
