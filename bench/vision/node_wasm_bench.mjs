// One exported model through Wick's Wasm bundle in Node on Dawn's node binding (npm
// `webgpu`): what a browser page gets (the same WGSL through a current Dawn, robustness on),
// next to the native CLI that h200.sh times. Issue 11: the native Dawn and dawn.node compile
// the same kernels differently (bench/kernels/robustness/README.md).
//
//   node bench/vision/node_wasm_bench.mjs MODEL.pte [--input FILE:dtype:d0,d1,...]...
//        [--seconds S] [--no-robustness] [--check OUT0.bin] [--out-prefix P] [--backend webgpu|cpu]
//
// Inputs as `wick run` takes them (input_specs.py prints them from an export's meta.json);
// without --input, zeros of the declared shapes. --no-robustness creates the GPU object with
// `disable_robustness` (a Node application can; a browser cannot). --check: the first
// output's max |diff| against a raw float32 file (an export's eager reference); --out-prefix:
// each output's raw bytes to P_I.bin (compare.py --meta reads them); --backend cpu: the CPU
// executor of the delegates (no GPU), which tells a Wasm-only fault from a GPU-path one. Prints a line with the
// median and min of forward() from input tensors to output tensors and the run count, then
// the same as one JSON line (tool wick_wasm or wick_wasm_norobust) for results.jsonl.
import fs from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const model = args[0];
const all = (name) => args.flatMap((a, i) => (a === name ? [args[i + 1]] : []));
const value = (name, dflt) => (args.includes(name) ? args[args.indexOf(name) + 1] : dflt);
const seconds = Number(value('--seconds', 2));
const robust = !args.includes('--no-robustness');
if (!model || !fs.existsSync(model)) {
  console.error('usage: node_wasm_bench.mjs MODEL.pte [--input FILE:dtype:shape]... [--seconds S] [--no-robustness] [--check OUT0.bin]');
  process.exit(2);
}

const pkg = process.env.WICK_PACKAGE || path.resolve(here, '../../package/index.mjs');
const {createExecuTorch} = await import(pkg);
const {create} = await import(process.env.WICK_WEBGPU_MODULE || 'webgpu');
const toggles = ['vulkan_enable_f16_on_nvidia', ...(robust ? [] : ['disable_robustness'])];
const gpu = create([`enable-dawn-features=${toggles.join(',')}`]);
globalThis.keepGpu = gpu;  // dawn.node crashes once its GPU object is collected

// The WICK_* switches of this process (docs/gpu.md's table) reach the runtime's getenv()
// through Emscripten's ENV, so an env A/B (bench/vision/env_ab.sh's settings) works in Wasm too.
const wickEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('WICK_')));
const backend = value('--backend', 'webgpu');
const et = await createExecuTorch({preRun: [(M) => Object.assign(M.ENV, wickEnv)], backend});
if (backend !== 'cpu') await et.initWebGPU({gpu});
const m = et.Module.load(new Uint8Array(fs.readFileSync(model)));
await m.loadMethod('forward');

// A file's bytes in an ArrayBuffer of their own (Node may hand a slice of a shared pool).
const readWhole = (file) => { const b = fs.readFileSync(file); return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength); };
const arrays = {float32: Float32Array, int64: BigInt64Array, int32: Int32Array, bool: Uint8Array, uint8: Uint8Array};
let inputs;
const specs = all('--input');
if (specs.length) {
  inputs = specs.map((spec) => {
    const [file, dtype, shape] = spec.split(':');
    const T = arrays[dtype];
    if (!T) throw new Error(`--input ${spec}: dtype ${dtype} not handled here`);
    const data = new T(readWhole(file));
    return et.Tensor.fromArray(shape.split(',').map(Number), data, dtype);
  });
} else {
  inputs = m.getMethodMeta('forward').inputTensorMeta.map((t) => et.Tensor.zeros(t.sizes, t.dtype));
}

let out = await m.forward(inputs);  // the first call: pipelines, staging, first touches
const times = [];
const t0 = performance.now();
do {
  const t = performance.now();
  out = await m.forward(inputs);
  times.push(performance.now() - t);
} while (performance.now() - t0 < seconds * 1000 || times.length < 3);
times.sort((a, b) => a - b);
let check = '';
const ref = value('--check', '');
if (ref) {
  const want = new Float32Array(readWhole(ref));
  const got = out[0].data;
  let d = 0;
  for (let i = 0; i < want.length; ++i) d = Math.max(d, Math.abs(got[i] - want[i]));
  check = ` max|diff| vs ${path.basename(ref)} ${d.toExponential(2)} (${got.length} vs ${want.length} values)`;
}
const prefix = value('--out-prefix', '');
if (prefix) {
  out.forEach((t, i) => {
    const d = t.data;
    fs.writeFileSync(`${prefix}_${i}.bin`, new Uint8Array(d.buffer, d.byteOffset, d.byteLength));
  });
}
const median = times[times.length >> 1];
console.log(`${path.basename(path.dirname(model))} wasm/node robustness ${robust ? 'on' : 'off'}: median ` +
            `${median.toFixed(3)} ms, min ${times[0].toFixed(3)} ms over ${times.length} runs${check}`);
console.log(JSON.stringify({tool: robust ? 'wick_wasm' : 'wick_wasm_norobust', median_ms: median, min_ms: times[0],
                            runs: times.length}));
process.exit(0);
