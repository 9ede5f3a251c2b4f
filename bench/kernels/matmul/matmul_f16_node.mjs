// The f16 linears in Node on Dawn's node binding (npm `webgpu`), the one Dawn here with the
// adapter toggle vulkan_enable_f16_on_nvidia (the pinned native Dawn turns shader-f16 off on
// NVIDIA's Vulkan driver): whether shader-f16 appears with the toggle (without: --no-toggle),
// then c = x @ w^T + b on the real-size linears through the shipped kernels' research files:
//   f32       v8_tiled_vec4_db.wgsl        f32 weights (the shipped matmul_large_vec4)
//   f32lit    v8 with fma_literal = 1     FMAs by literal index (bench v31; robustness test)
//   unpack    v23_tiled_vec4_f16w.wgsl     f16 weights, f32 math (matmul_large_vec4_f16w)
//   f16math   v26_tiled_vec4_f16math.wgsl  f16 arithmetic (matmul_large_vec4_f16math; shader-f16)
//   f16bk16   v26 with BK 16 (v29)         longer f16 sums
//   f16tiles  v26 with f16_math = false (v30): f16 tiles, f32 math
//   f32ship   src/webgpu/ops/matmul/matmul_large_vec4.wgsl as shipped (includes expanded,
//             epilogue off): register arrays by literal index only (bench/kernels/robustness)
//   f16ship   src/webgpu/ops/matmul/matmul_large_vec4_f16math.wgsl as shipped (shader-f16)
// at the tile register.cpp picks for the shape (128x128 from 512 tiles, 128x64 from 256 tiles
// of 128x64, else 64x64). Each result is checked on sampled rows against a CPU reference
// (double accumulation, f32 inputs): relative L2 printed, < 5e-3 required. Times: GPU
// timestamps per dispatch (median), else wall time of a submit of REPS dispatches.
//
//   VK_ICD_FILENAMES=... node bench/kernels/matmul/matmul_f16_node.mjs [--quick] [--no-toggle]
//       [--probe] [--cases SUBSTRING] [--kernels f32,f32ship,...] [--reps N] [--extra-toggles T1,T2]
// --quick: the edge cases only (lavapipe, SwiftShader). Exit status 1 on a wrong result.
import fs from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {shippedWgsl} from '../wgsl_expand.mjs';

const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
const value = (name, dflt) => (args.indexOf(name) >= 0 ? args[args.indexOf(name) + 1] : dflt);
const quick = flag('--quick');
const filter = value('--cases', '');
const reps = Number(value('--reps', 10));
const dir = process.env.WICK_KERNEL_BENCH_DIR
  ? path.join(process.env.WICK_KERNEL_BENCH_DIR, 'matmul') : path.dirname(fileURLToPath(import.meta.url));
const {create, globals} = await import(process.env.WICK_WEBGPU_MODULE || 'webgpu');
const {GPUBufferUsage, GPUMapMode} = globals;

// Exact timestamps: Dawn rounds them to 100 us unless this toggle is off.
const EXACT_TIMES = 'disable-dawn-features=timestamp_quantization';

// One Dawn instance per process (two in one process stalled or aborted dawn.node here):
// with the toggle unless --no-toggle; --probe reports the adapter and exits.
const extra = value('--extra-toggles', '');  // more Dawn toggles (comma-separated) to enable
const enabled = [...(flag('--no-toggle') ? [] : ['vulkan_enable_f16_on_nvidia']), ...(extra ? extra.split(',') : [])];
const flags = [EXACT_TIMES, ...(enabled.length ? [`enable-dawn-features=${enabled.join(',')}`] : [])];
const gpu = create(flags);
globalThis.wickBenchGpu = gpu;  // kept for the process: dawn.node crashes once its GPU object is collected
const adapter = await gpu.requestAdapter({powerPreference: 'high-performance'});
if (!adapter) { console.log('no WebGPU adapter'); process.exit(1); }
const info = adapter.info || {};
console.log(`adapter: ${`${info.vendor} ${info.architecture} ${info.device || ''} ${info.description || ''}`.replace(/\s+/g, ' ').trim()}`);
const hasF16 = adapter.features.has('shader-f16');
const hasTs = adapter.features.has('timestamp-query');
console.log(`  toggles [${enabled.join(', ')}]: shader-f16 ${hasF16 ? 'yes' : 'no'}, ` +
            `timestamp-query ${hasTs ? 'yes' : 'no'}`);
console.log(`  features: ${[...adapter.features].sort().join(' ')}`);
if (flag('--probe')) process.exit(0);
const device = await adapter.requestDevice({
  requiredFeatures: [hasF16 && 'shader-f16', hasTs && 'timestamp-query'].filter(Boolean),
  requiredLimits: {maxStorageBufferBindingSize: adapter.limits.maxStorageBufferBindingSize,
                   maxBufferSize: adapter.limits.maxBufferSize},
});
device.addEventListener('uncapturederror', (e) => console.log(`uncaptured error: ${e.error.message}`));

const CASES = [
  ['edge linear  [131,68]x[132,68]^T+b', 131, 68, 132, true, false],
  ['odd linear   [77,36]x[44,36]^T', 77, 36, 44, false, false],
  ['vit qkv      [1370,384]x[1152,384]^T+b', 1370, 384, 1152, true, true],
  ['vit proj     [1370,384]x[384,384]^T+b', 1370, 384, 384, true, true],
  ['vit fc1      [1370,384]x[1536,384]^T+b', 1370, 384, 1536, true, true],
  ['vit fc2      [1370,1536]x[384,1536]^T+b', 1370, 1536, 384, true, true],
  ['whisper q    [1500,512]x[512,512]^T+b', 1500, 512, 512, true, true],
  ['whisper fc1  [1500,512]x[2048,512]^T+b', 1500, 512, 2048, true, true],
  ['whisper fc2  [1500,2048]x[512,2048]^T+b', 1500, 2048, 512, true, true],
  ['probe linear [4096,4096]x[4096,4096]^T', 4096, 4096, 4096, false, true],
];
const KERNELS = [
  {name: 'f32', file: 'v8_tiled_vec4_db.wgsl', weights: 'f32', consts: {trans_b: 1}},
  {name: 'f32lit', file: 'v8_tiled_vec4_db.wgsl', weights: 'f32', consts: {trans_b: 1, fma_literal: 1}},
  {name: 'unpack', file: 'v23_tiled_vec4_f16w.wgsl', weights: 'f16', consts: {trans_b: 1}},
  {name: 'f16math', file: 'v26_tiled_vec4_f16math.wgsl', weights: 'f16', f16: true, consts: {f16_math: 1}},
  {name: 'f16bk16', file: 'v26_tiled_vec4_f16math.wgsl', weights: 'f16', f16: true, consts: {f16_math: 1}, bk: 16},
  {name: 'f16tiles', file: 'v26_tiled_vec4_f16math.wgsl', weights: 'f16', f16: true, consts: {f16_math: 0}},
  {name: 'f32ship', shipped: 'matmul/matmul_large_vec4', weights: 'f32', consts: {trans_b: 1}},
  {name: 'f16ship', shipped: 'matmul/matmul_large_vec4_f16math', weights: 'f16', f16: true, consts: {}},
];
const only = value('--kernels', '');  // comma-separated kernel names (default: all)
// register.cpp's tile choice (bench v8 / v15 / v12).
function tileFor(m, n) {
  const rows128 = Math.ceil(m / 128);
  if (rows128 * Math.ceil(n / 128) >= 512) return {BM: 128, BN: 128, BK: 8, RM: 8, RN: 8};
  if (rows128 * Math.ceil(n / 64) >= 256) return {BM: 128, BN: 64, BK: 8, RM: 8, RN: 8};
  return {BM: 64, BN: 64, BK: 16, RM: 4, RN: 4};
}

let seed = 1;
function randoms(n) {  // uniform [-1, 1), reproducible
  const out = new Float32Array(n);
  for (let i = 0; i < n; ++i) {
    seed = (seed * 1103515245 + 12345) >>> 0;
    out[i] = (seed / 2 ** 32) * 2 - 1;
  }
  return out;
}
// IEEE half bits of an f32 (round to nearest even), as the kernels' packed weights hold them.
const f32buf = new Float32Array(1), u32buf = new Uint32Array(f32buf.buffer);
function toHalf(x) {
  f32buf[0] = x;
  const b = u32buf[0], sign = (b >>> 16) & 0x8000, exp = (b >>> 23) & 0xff, mant = b & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  const e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    const m = mant | 0x800000, shift = 14 - e;
    let h = m >>> shift;
    const rem = m & ((1 << shift) - 1), half = 1 << (shift - 1);
    if (rem > half || (rem === half && (h & 1))) h++;
    return sign | h;
  }
  let h = (e << 10) | (mant >>> 13);
  const rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem === 0x1000 && (h & 1))) h++;
  return sign | h;
}
function storage(data, usage = 0) {
  const size = Math.max(16, Math.ceil(data.byteLength / 16) * 16);
  const buf = device.createBuffer({size, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC | usage});
  device.queue.writeBuffer(buf, 0, data.buffer, data.byteOffset, data.byteLength);
  return buf;
}
async function readBack(buf, bytes) {
  const staging = device.createBuffer({size: bytes, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST});
  const enc = device.createCommandEncoder();
  enc.copyBufferToBuffer(buf, 0, staging, 0, bytes);
  device.queue.submit([enc.finish()]);
  await staging.mapAsync(GPUMapMode.READ);
  const out = new Float32Array(staging.getMappedRange().slice(0));
  staging.unmap();
  staging.destroy();
  return out;
}
const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];

let failures = 0;
for (const [name, m, k, n, withBias, large] of CASES) {
  if ((quick && large) || (filter && !name.includes(filter))) continue;
  const x = randoms(m * k), w = randoms(n * k), bias = randoms(n);
  const wHalf = new Uint16Array(w.length);
  for (let i = 0; i < w.length; ++i) wHalf[i] = toHalf(w[i]);
  const rows = [];
  for (let i = 0; i < m; i += Math.max(1, Math.floor(m / 24))) rows.push(i);
  rows.push(m - 1);
  const ref = new Map();
  for (const i of rows) {
    const r = new Float64Array(n);
    for (let j = 0; j < n; ++j) {
      let s = withBias ? bias[j] : 0;
      for (let q = 0; q < k; ++q) s += x[i * k + q] * w[j * k + q];
      r[j] = s;
    }
    ref.set(i, r);
  }
  // The research kernels' 64-byte Params; the shipped ones read 80 (epi = res_mode = 0 and
  // the epilogue's coefficients: no epilogue), the same first 64 bytes.
  const params = new ArrayBuffer(80), pu = new Uint32Array(params), pf = new Float32Array(params);
  pu.set([m, n, k, 1, m * k, 0, m * n, withBias ? 1 : 0, 0, 1, 0, 0]);
  pf[12] = 1, pf[13] = 1;
  const pbuf = device.createBuffer({size: 80, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST});
  device.queue.writeBuffer(pbuf, 0, params);
  const bufs = {a: storage(x), w32: storage(w), w16: storage(wHalf), bias: storage(bias),
                c: storage(new Float32Array(m * n)), unused: storage(new Float32Array(4))};
  const gflop = (2 * m * n * k) / 1e9;
  console.log(`\n${name}  (${gflop.toFixed(3)} GFLOP)`);
  for (const kern of KERNELS) {
    if (only && !only.split(',').includes(kern.name)) continue;
    if (kern.f16 && !hasF16) { console.log(`  ${kern.name.padEnd(9)} skipped: no shader-f16`); continue; }
    const tile = {...tileFor(m, n), ...(kern.bk ? {BK: kern.bk} : {})};
    const code = kern.shipped ? shippedWgsl(kern.shipped) : fs.readFileSync(path.join(dir, kern.file), 'utf8');
    const module = device.createShaderModule({code});
    device.pushErrorScope('validation');
    const pipeline = device.createComputePipeline({layout: 'auto',
      compute: {module, entryPoint: 'main', constants: {...tile, ...kern.consts}}});
    const bindGroup = device.createBindGroup({layout: pipeline.getBindGroupLayout(0), entries: [
      {binding: 0, resource: {buffer: bufs.a}}, {binding: 1, resource: {buffer: kern.weights === 'f16' ? bufs.w16 : bufs.w32}},
      {binding: 2, resource: {buffer: bufs.bias}}, {binding: 3, resource: {buffer: bufs.c}},
      {binding: 4, resource: {buffer: pbuf}},
      // The shipped kernels' epilogue operands (residual, column), unread with epi = 0.
      ...(kern.shipped ? [5, 6].map((binding) => ({binding, resource: {buffer: bufs.unused}})) : [])]});
    const bad = await device.popErrorScope();
    if (bad) { console.log(`  ${kern.name.padEnd(9)} FAILED to build: ${bad.message}`); ++failures; continue; }
    const groups = [Math.ceil(n / tile.BN), Math.ceil(m / tile.BM), 1];
    const querySet = hasTs ? device.createQuerySet({type: 'timestamp', count: 2 * reps}) : null;
    const resolve = hasTs ? device.createBuffer({size: 16 * reps, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC}) : null;
    const submit = (count, timed) => {
      const enc = device.createCommandEncoder();
      for (let i = 0; i < count; ++i) {
        const pass = enc.beginComputePass(timed ? {timestampWrites: {querySet, beginningOfPassWriteIndex: 2 * i, endOfPassWriteIndex: 2 * i + 1}} : {});
        pass.setPipeline(pipeline);
        pass.setBindGroup(0, bindGroup);
        pass.dispatchWorkgroups(...groups);
        pass.end();
      }
      if (timed) enc.resolveQuerySet(querySet, 0, 2 * count, resolve, 0);
      device.queue.submit([enc.finish()]);
      return device.queue.onSubmittedWorkDone();
    };
    device.queue.writeBuffer(bufs.c, 0, new Float32Array(m * n).fill(NaN));
    await submit(1, false);
    const got = await readBack(bufs.c, m * n * 4);
    let num = 0, den = 0, unwritten = 0;
    for (const [i, r] of ref) {
      for (let j = 0; j < n; ++j) {
        const g = got[i * n + j];
        if (Number.isNaN(g)) ++unwritten;
        num += (g - r[j]) ** 2;
        den += r[j] ** 2;
      }
    }
    const err = Math.sqrt(num / den);
    const ok = !unwritten && err < 5e-3;
    failures += ok ? 0 : 1;
    const wall = [];
    for (let r = 0; r < 3; ++r) {
      const t0 = performance.now();
      await submit(reps, false);
      wall.push(((performance.now() - t0) * 1e3) / reps);
    }
    let gpuUs = null;
    if (hasTs) {
      await submit(reps, true);
      const ts = new BigUint64Array((await (async () => {
        const staging = device.createBuffer({size: 16 * reps, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST});
        const enc = device.createCommandEncoder();
        enc.copyBufferToBuffer(resolve, 0, staging, 0, 16 * reps);
        device.queue.submit([enc.finish()]);
        await staging.mapAsync(GPUMapMode.READ);
        const copy = staging.getMappedRange().slice(0);
        staging.unmap();
        return copy;
      })()));
      const per = [];
      for (let i = 0; i < reps; ++i) per.push(Number(ts[2 * i + 1] - ts[2 * i]) / 1e3);
      gpuUs = median(per);
    }
    const t = gpuUs ?? median(wall);
    console.log(`  ${kern.name.padEnd(9)} tile ${tile.BM}x${tile.BN} BK ${String(tile.BK).padEnd(2)} err(vs f32) ${err.toExponential(1)} ` +
                `${ok ? 'ok  ' : unwritten ? 'FAIL(unwritten)' : 'FAIL'} gpu ${gpuUs === null ? '-' : gpuUs.toFixed(1)} us  ` +
                `wall ${median(wall).toFixed(1)} us  ${(gflop / t * 1e3).toFixed(2)} TFLOP/s`);
    querySet?.destroy();
    resolve?.destroy();
  }
  for (const b of Object.values(bufs)) b.destroy();
  pbuf.destroy();
}
console.log(`\n${failures} failure(s)`);
process.exit(failures ? 1 : 0);
