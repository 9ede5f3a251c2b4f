// Times one ONNX model on onnxruntime-node (default: its WebGPU execution provider) the way
// `wick bench` times a .pte: median wall time of session.run() from a host input tensor to
// host output tensors (upload, every kernel, readback), after warm-up runs.
//
//   node ort_bench.mjs --model M.onnx --input X.bin:float32:1,3,224,224 [--input ...] [--ep webgpu|cpu]
//        [--runs 50] [--warmup 5] [--max-seconds 20] [--out-prefix P] [--profile-dir DIR]
//
// Inputs (raw little-endian float32 or int64) feed the session's inputs in order; with
// --out-prefix every output is written to P_I.bin in the session's output order.
//
// Prints one JSON line. Where the EP ran: with --profile-dir, one extra run is profiled by
// ORT and every kernel event's provider is counted ("providers"), so a CPU fallback of any
// node shows up as CPUExecutionProvider events; `nvidia-smi` GPU memory is read before the
// session exists and after the runs ("gpu_mem_mib"), where that tool is present.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

function parseArgs(argv) {
  const o = { ep: 'webgpu', runs: 50, warmup: 5, maxSeconds: 20, inputs: [] };
  for (let i = 0; i < argv.length; i += 2) {
    const k = argv[i], v = argv[i + 1];
    if (v === undefined) throw new Error(`${k} needs a value`);
    if (k === '--model') o.model = v;
    else if (k === '--input') {
      const [file, dtype, dims] = v.split(':');
      if (!dims) throw new Error(`--input ${v}: expected FILE:dtype:d0,d1,...`);
      o.inputs.push({ file, dtype, shape: dims.split(',').map(Number) });
    }
    else if (k === '--ep') o.ep = v;
    else if (k === '--runs') o.runs = Number(v);
    else if (k === '--warmup') o.warmup = Number(v);
    else if (k === '--max-seconds') o.maxSeconds = Number(v);
    else if (k === '--out-prefix') o.outPrefix = v;
    else if (k === '--profile-dir') o.profileDir = v;
    else throw new Error(`unknown argument ${k}`);
  }
  if (!o.model || !o.inputs.length) throw new Error('--model and --input are required');
  return o;
}

function gpuMemMiB() {
  try {
    const s = execFileSync('nvidia-smi', ['--query-gpu=memory.used', '--format=csv,noheader,nounits'],
                           { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    return Number(s.trim().split('\n')[0]);
  } catch {
    return null;
  }
}

// Kernel events of an ORT profile (a JSON array of trace events) counted per provider.
function countProviders(file) {
  const events = JSON.parse(fs.readFileSync(file, 'utf8'));
  const providers = {};
  for (const e of events) {
    if (e.cat !== 'Node' || !e.args || !e.args.provider) continue;
    if (!String(e.name).endsWith('_kernel_time')) continue;
    providers[e.args.provider] = (providers[e.args.provider] || 0) + 1;
  }
  return providers;
}

const median = (a) => { const s = [...a].sort((x, y) => x - y); return s[Math.floor(s.length / 2)]; };

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const ort = require(process.env.ORT_NODE_DIR || 'onnxruntime-node');
  const memBefore = gpuMemMiB();
  const opts = { executionProviders: [o.ep], graphOptimizationLevel: 'all', logSeverityLevel: 3 };
  let t = performance.now();
  const session = await ort.InferenceSession.create(o.model, opts);
  const createMs = performance.now() - t;
  if (session.inputNames.length !== o.inputs.length) {
    throw new Error(`the model has ${session.inputNames.length} inputs (${session.inputNames}), ${o.inputs.length} given`);
  }
  const feeds = {};
  o.inputs.forEach((inp, i) => {
    const raw = fs.readFileSync(inp.file);
    const copy = raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength);  // aligned for the typed array
    const data = inp.dtype === 'int64' ? new BigInt64Array(copy)
      : inp.dtype === 'float32' ? new Float32Array(copy) : null;
    if (!data) throw new Error(`--input ${inp.file}: dtype ${inp.dtype} (float32 or int64)`);
    feeds[session.inputNames[i]] = new ort.Tensor(inp.dtype, data, inp.shape);
  });
  let out;
  for (let i = 0; i < o.warmup; ++i) out = await session.run(feeds);
  const ms = [];
  const t0 = performance.now();
  for (let i = 0; i < o.runs; ++i) {
    t = performance.now();
    out = await session.run(feeds);
    ms.push(performance.now() - t);
    if ((performance.now() - t0) / 1000 > o.maxSeconds) break;
  }
  const memAfter = gpuMemMiB();
  session.outputNames.forEach((name, i) => {
    const y = out[name];
    if (o.outPrefix) fs.writeFileSync(`${o.outPrefix}_${i}.bin`, Buffer.from(y.data.buffer, y.data.byteOffset, y.data.byteLength));
  });
  let providers = null;
  if (o.profileDir) {
    // A second session with ORT's profiler on, run once after a warm-up run.
    fs.mkdirSync(o.profileDir, { recursive: true });
    const prefix = path.join(o.profileDir, path.basename(o.model, '.onnx') + `_${o.ep}`);
    const ps = await ort.InferenceSession.create(o.model, { ...opts, enableProfiling: true, profileFilePrefix: prefix });
    await ps.run(feeds);
    await ps.run(feeds);
    ps.endProfiling();
    await ps.release();
    const files = fs.readdirSync(o.profileDir).filter((f) => f.startsWith(path.basename(prefix)) && f.endsWith('.json'));
    if (files.length) providers = countProviders(path.join(o.profileDir, files.sort().at(-1)));
  }
  await session.release();
  const sorted = [...ms].sort((a, b) => a - b);
  console.log(JSON.stringify({
    tool: `onnxruntime-node ${ort.env.versions?.node ?? ''}`.trim(), ep: o.ep, onnx: o.model,
    median_ms: median(ms), min_ms: sorted[0], max_ms: sorted.at(-1), runs: ms.length, warmup: o.warmup,
    create_ms: createMs, output_shapes: session.outputNames.map((n) => out[n].dims), gpu_mem_mib: { before: memBefore, after: memAfter }, providers,
  }));
}

main().catch((e) => { console.error(`ort_bench: ${e.stack || e}`); process.exit(1); });
