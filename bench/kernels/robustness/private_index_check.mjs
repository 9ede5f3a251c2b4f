// Which shipped kernels index a function-scope or private array with a run-time index
// once Dawn's robustness passes have run: the SPIR-V that Dawn's Node binding (npm
// `webgpu`, the Dawn of a current browser) hands the driver, read back with its
// `dump_shaders` toggle.
//
// Why it matters (bench/kernels/robustness/README.md): with robustness on (every browser),
// Tint adds a guard counter to every loop (core.PreventInfiniteLoops) and clamps every
// run-time index. A driver that cannot see a loop's trip count leaves the loop rolled, and
// one run-time index into a register array puts the whole array in local memory: on the
// H200 under dawn.node the f32 matmul tile ran 10x slower than with `disable_robustness`.
// A kernel whose register arrays are indexed only by literals (or constants after the
// pipeline's overrides are applied) does not depend on the driver unrolling anything.
//
//   VK_ICD_FILENAMES=/usr/share/vulkan/icd.d/lvp_icd.json \
//     node bench/kernels/robustness/private_index_check.mjs [--only NAME_SUBSTRING] [--all]
//
// Prints one line per kernel and pipeline-constant set: the register arrays and how many of
// their accesses take a run-time index. Exit status 1 when a kernel listed as clean
// (`clean: true` below) has any, or when a pipeline fails to build. --all: every other shipped
// shader too, at its default constants (build failures there are reported, not counted).
import {spawnSync} from 'node:child_process';
import {fileURLToPath} from 'node:url';
import fs from 'node:fs';
import path from 'node:path';
import {repoRoot, shippedWgsl} from '../wgsl_expand.mjs';

const args = process.argv.slice(2);
const value = (name, dflt) => (args.indexOf(name) >= 0 ? args[args.indexOf(name) + 1] : dflt);

// The shipped kernels worth checking: the ones with register arrays in their hot loops, at
// the pipeline constants register.cpp uses. `clean`: expected free of run-time indices.
// `sharedMax`: the most live shared-memory accesses robustness may clamp (the counts of
// 2026-12-08, when the GEMM tiles', the implicit-GEMM convs' and the flash attention's hot
// loops lost theirs: README, "Indices Tint can bound"); an index in those loops that Tint's
// range analysis cannot bound again pushes the count past it.
const T128 = {BM: 128, BN: 128, BK: 8, RM: 8, RN: 8};
const T128x64 = {BM: 128, BN: 64, BK: 8, RM: 8, RN: 8};
const T64 = {BM: 64, BN: 64, BK: 16, RM: 4, RN: 4};
const KERNELS = [
  {shader: 'matmul/matmul_large_vec4', consts: {...T128, trans_b: 1}, clean: true, sharedMax: 9},
  {shader: 'matmul/matmul_large_vec4', consts: {...T128x64, trans_b: 1}, clean: true, sharedMax: 9},
  {shader: 'matmul/matmul_large_vec4', consts: {...T64, trans_b: 0}, clean: true, sharedMax: 9},
  // Split-K (register.cpp's splitk_factor): the 64x64 kernel storing raw sums, then the reduce.
  {shader: 'matmul/matmul_large_vec4', consts: {...T64, trans_b: 1, KS: 4}, clean: true, sharedMax: 9},
  {shader: 'matmul/matmul_splitk_reduce', consts: {KS: 4}, clean: true},
  {shader: 'matmul/matmul_splitk_reduce_ln', consts: {KS: 2, WG: 128, VPT: 1}, clean: true},
  {shader: 'matmul/matmul_splitk_reduce_ln', consts: {KS: 4, WG: 256, VPT: 4, RES_IN_LN: 1}, clean: true},
  {shader: 'matmul/matmul_large_vec4_f16w', consts: {...T128, trans_b: 1}, clean: true},
  {shader: 'matmul/matmul_large', consts: {BM: 64, BN: 64, BK: 16, RM: 8, RN: 4, trans_b: 0}, clean: true},
  {shader: 'matmul/matmul_large_vec4_f16math', consts: {...T128}, f16: true, clean: true},
  {shader: 'conv/conv2d_pw_gemm', consts: {BM: 128, BN: 128, BK: 8, RM: 8, RN: 8}, clean: true},
  {shader: 'conv/conv2d_pw_gemm', consts: {BM: 32, BN: 128, BK: 8, RM: 4, RN: 8}, clean: true},
  {shader: 'conv/conv2d_pw_gemm_vec4', consts: {BM: 64, BN: 64, BK: 16, RM: 4, RN: 4}, clean: true, sharedMax: 9},
  {shader: 'conv/conv2d_pw_gemm_vec4', consts: {BM: 64, BN: 64, BK: 16, RM: 4, RN: 4, KS: 4}, clean: true},
  {shader: 'conv/conv2d_igemm', consts: {}, sharedMax: 2},
  {shader: 'conv/conv2d_transposed_gemm', consts: {}, sharedMax: 2},
  {shader: 'conv/conv2d_transposed_phase', consts: {}, sharedMax: 2},
  // flash_attention_dispatch.cpp's pick for head dim 64 within 32 KiB of workgroup storage.
  {shader: 'attention/flash_attention', consts: {D: 64, BQ: 48, BKV: 32}},
  // Split over keys (flash_splitkv.h): the split kernel, then the combine.
  {shader: 'attention/flash_attention', consts: {D: 64, BQ: 48, BKV: 32, KVS: 2}},
  {shader: 'attention/flash_attention_combine', consts: {D: 64, KVS: 2}},
  // The (64, 32) tile with its prefetch (PF 2 at head dim 32: the H100's (64, 32) at head dim 64
  // needs more than lavapipe's 32 KiB), the FMA-chain scores (default since 2026-12-05), and
  // the subgroup row maxima's kernel with P beside K (flash_attention_dispatch.cpp's P_AT).
  {shader: 'attention/flash_attention', consts: {D: 32, BQ: 64, BKV: 32}, clean: true, sharedMax: 11},
  {shader: 'attention/flash_attention', consts: {D: 32, BQ: 64, BKV: 32, SCORE_CHAIN: 1, KVS: 2}, clean: true},
  {shader: 'attention/flash_attention_sg', consts: {D: 32, BQ: 64, BKV: 32, SCORE_CHAIN: 1, P_AT: 32 * 9}, clean: true, sharedMax: 6},
  {shader: 'quantized/q4gsw_gemm', consts: {}},
  {shader: 'matmul/matmul_tiled', consts: {}},
  {shader: 'norm/row_norm_rows', consts: {}},
  {shader: 'reduce/reduce_rows', consts: {}},
];

// Child: build each pipeline of a JSON list with dump_shaders on, one device for all (a
// child per pipeline spent most of its time starting Node and the device). Dawn prints each
// pipeline's SPIR-V to stdout in order, between the markers written here (synchronously, so
// that they interleave with Dawn's output in order).
if (args[0] === '--child') {
  const list = JSON.parse(args[1]);
  const mark = (line) => fs.writeSync(1, `\n${line}\n`);
  const {create} = await import(process.env.WICK_WEBGPU_MODULE || 'webgpu');
  const gpu = create(['enable-dawn-features=dump_shaders']);
  globalThis.keepGpu = gpu;  // dawn.node crashes once its GPU object is collected
  const adapter = await gpu.requestAdapter();
  if (!adapter) { mark('@@NOADAPTER'); process.exit(2); }
  const features = ['shader-f16', 'subgroups'].filter((f) => adapter.features.has(f));
  const device = await adapter.requestDevice({requiredFeatures: features, requiredLimits: {
    maxComputeWorkgroupStorageSize: adapter.limits.maxComputeWorkgroupStorageSize,
    maxStorageBuffersPerShaderStage: adapter.limits.maxStorageBuffersPerShaderStage}});
  for (let i = 0; i < list.length; ++i) {
    const k = list[i];
    mark(`@@BEGIN ${i}`);
    if (k.f16 && !features.includes('shader-f16')) { mark(`@@RESULT ${i} skipped: no shader-f16`); continue; }
    device.pushErrorScope('validation');
    const module = device.createShaderModule({code: shippedWgsl(k.shader)});
    device.createComputePipeline({layout: 'auto', compute: {module, entryPoint: 'main', constants: k.consts}});
    const err = await device.popErrorScope();
    mark(`@@RESULT ${i} ${err ? `failed: ${err.message.split('\n')[0]}` : 'built'}`);
  }
  process.exit(0);
}

// The SPIR-V disassembly's register arrays (Function / Private arrays) and, for each, its
// access chains whose first index is not a constant (%uint_N, %int_N or an OpConstant id).
function runTimeIndices(spirv) {
  const lines = spirv.split('\n');
  const constants = new Set();
  const arrays = new Map();  // id -> {type, dynamic, total}
  const ptrTypes = new Map();
  for (const line of lines) {
    let m = line.match(/^\s*(%\S+) = OpConstant(?:Composite|True|False|Null)?\b/);
    if (m) constants.add(m[1]);
    m = line.match(/^\s*(%\S+) = OpTypePointer (Function|Private) (%_arr_\S+)/);
    if (m) ptrTypes.set(m[1], m[3]);
    m = line.match(/^\s*(%\S+) = OpVariable (%\S+) (Function|Private)/);
    if (m && ptrTypes.has(m[2])) arrays.set(m[1], {type: ptrTypes.get(m[2]), dynamic: 0, total: 0});
  }
  const isConst = (id) => constants.has(id) || /^%u?int_\d+$/.test(id);
  for (const line of lines) {
    const m = line.match(/OpAccessChain \S+ (%\S+) (%\S+)/);
    if (!m || !arrays.has(m[1])) continue;
    const a = arrays.get(m[1]);
    a.total++;
    if (!isConst(m[2])) a.dynamic++;
  }
  return arrays;
}

// The workgroup (shared-memory) arrays' access chains, and how many of them take an index
// that robustness clamped: an index defined by a UMin (Tint's clamp against the array's last
// element; the shipped shaders put no min() of their own into a workgroup index). Tint leaves
// out the clamp where its range analysis bounds the index (constants, lid / li, loop indices
// with constant bounds, + and *: not %, /, &, >>, select or a function's parameters), so a
// hot loop's shared reads are best indexed that way (README, "Indices Tint can bound").
function clampedSharedIndices(spirv) {
  const lines = spirv.split('\n');
  const clamps = new Set();
  const shared = new Set();
  const ptrTypes = new Set();
  for (const line of lines) {
    let m = line.match(/^\s*(%\S+) = OpExtInst %uint %\S+ UMin /);
    if (m) clamps.add(m[1]);
    m = line.match(/^\s*(%\S+) = OpTypePointer Workgroup /);
    if (m) ptrTypes.add(m[1]);
    m = line.match(/^\s*(%\S+) = OpVariable (%\S+) Workgroup/);
    if (m && ptrTypes.has(m[2])) shared.add(m[1]);
  }
  // Code behind a branch on a constant that the pipeline's overrides made false (`if (RO >
  // 4u)` at RO 4, say) never runs: it is skipped, from the branch's target to its merge block.
  let total = 0, clamped = 0, merge = null, deadUntil = null, deadFrom = null;
  for (const line of lines) {
    let m = line.match(/OpSelectionMerge (%\S+)/);
    if (m) { merge = m[1]; continue; }
    m = line.match(/OpBranchConditional %(true|false) (%\S+) (%\S+)/);
    if (m && deadUntil === null) {
      const [taken, dead] = m[1] === 'true' ? [m[2], m[3]] : [m[3], m[2]];
      if (taken === merge) { deadFrom = dead; deadUntil = merge; }
      continue;
    }
    m = line.match(/^\s*(%\S+) = OpLabel/);
    if (m) {
      if (m[1] === deadUntil) { deadUntil = null; deadFrom = null; }
      else if (m[1] === deadFrom) deadFrom = 'in';
      continue;
    }
    if (deadFrom === 'in') continue;
    m = line.match(/OpAccessChain \S+ (%\S+) (.*)$/);
    if (!m || !shared.has(m[1])) continue;
    total++;
    if (m[2].split(/\s+/).some((id) => clamps.has(id))) clamped++;
  }
  return {total, clamped};
}

const only = value('--only', '');
if (args.includes('--all')) {
  const listed = new Set(KERNELS.map((k) => k.shader));
  const ops = path.join(repoRoot, 'src/webgpu/ops');
  for (const dir of fs.readdirSync(ops).sort()) {
    if (!fs.statSync(path.join(ops, dir)).isDirectory()) continue;
    for (const f of fs.readdirSync(path.join(ops, dir)).sort()) {
      const shader = `${dir}/${f.replace(/\.wgsl$/, '')}`;
      if (f.endsWith('.wgsl') && !f.endsWith('.inc.wgsl') && !listed.has(shader)) KERNELS.push({shader, consts: {}, extra: true});
    }
  }
}
const chosen = KERNELS.filter((k) => !only || `${k.shader} ${JSON.stringify(k.consts)}`.includes(only));
const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', JSON.stringify(chosen)],
                    {encoding: 'utf8', maxBuffer: 1 << 30});
// The child's output, cut at its markers: part i is kernel i's dump and result.
const parts = new Map();
for (const chunk of r.stdout.split('\n@@BEGIN ').slice(1)) {
  const nl = chunk.indexOf('\n');
  parts.set(Number(chunk.slice(0, nl)), chunk.slice(nl + 1));
}
if (!parts.size) console.log(`no pipeline built (child exit ${r.status}):\n${r.stdout.slice(-1000)}\n${r.stderr.slice(-2000)}`);
let bad = parts.size ? 0 : 1;
chosen.forEach((k, i) => {
  const label = `${k.shader} ${JSON.stringify(k.consts)}`;
  const out = parts.get(i) || '';
  const result = (out.match(/^@@RESULT \d+ (.*)$/m) || [null, `no result (child exit ${r.status})`])[1];
  if (result !== 'built') {
    console.log(`${label}: ${result}`);
    if (!result.startsWith('skipped') && !k.extra) bad++;
    return;
  }
  // The pipeline's SPIR-V is the last disassembly printed (the module's own comes first).
  const dumps = out.split('/* Dumped SPIRV disassembly */');
  const arrays = runTimeIndices(dumps[dumps.length - 1]);
  const summary = [...arrays.values()].map((a) => `${a.type.replace('%_arr_', '')} ${a.dynamic}/${a.total}`);
  const dynamic = [...arrays.values()].reduce((s, a) => s + a.dynamic, 0);
  const verdict = dynamic === 0 ? 'clean' : `${dynamic} run-time indices`;
  const fail = k.clean && dynamic > 0;
  if (fail) bad++;
  const sh = clampedSharedIndices(dumps[dumps.length - 1]);
  const shFail = k.sharedMax !== undefined && sh.clamped > k.sharedMax;
  if (shFail) bad++;
  console.log(`${shFail ? `FAIL shared accesses clamped ${sh.clamped} > ${k.sharedMax}: ` : ''}` +`${fail ? 'FAIL ' : ''}${label}: ${verdict}  [register arrays, run-time/all accesses: ${summary.join(', ') || 'none'}]` +
              `  [live shared accesses clamped/all: ${sh.clamped}/${sh.total}]`);
});
process.exit(bad ? 1 : 0);
