// Occupancy probe: how many workgroups of WG invocations, SMEM vec4s of workgroup memory and
// NACC live vec4 registers does the GPU run at once? Invocation 0 of each workgroup counts
// the workgroups running (counters[0]) and keeps the largest count seen (counters[1]); the
// body is a chain of dependent shared-memory loads (latency-bound, long enough that every
// resident workgroup starts before the first one ends). peak / multiprocessors = workgroups
// per multiprocessor.
@group(0) @binding(0) var<storage, read_write> counters: array<atomic<u32>, 4>;
@group(0) @binding(1) var<storage, read_write> sink: array<vec4<f32>>;

override WG: u32 = 128u;
override SMEM: u32 = 128u;   // vec4s of workgroup memory (at least WG)
override ITERS: u32 = 2048u;
override NACC: u32 = 0u;     // live vec4 accumulators (0..32), updated every step

var<workgroup> tile: array<vec4<u32>, SMEM>;

// Named fields, not an array: only literal indices, so they stay in registers.
struct Acc {
  a0: vec4<f32>,
  a1: vec4<f32>,
  a2: vec4<f32>,
  a3: vec4<f32>,
  a4: vec4<f32>,
  a5: vec4<f32>,
  a6: vec4<f32>,
  a7: vec4<f32>,
  a8: vec4<f32>,
  a9: vec4<f32>,
  a10: vec4<f32>,
  a11: vec4<f32>,
  a12: vec4<f32>,
  a13: vec4<f32>,
  a14: vec4<f32>,
  a15: vec4<f32>,
  a16: vec4<f32>,
  a17: vec4<f32>,
  a18: vec4<f32>,
  a19: vec4<f32>,
  a20: vec4<f32>,
  a21: vec4<f32>,
  a22: vec4<f32>,
  a23: vec4<f32>,
  a24: vec4<f32>,
  a25: vec4<f32>,
  a26: vec4<f32>,
  a27: vec4<f32>,
  a28: vec4<f32>,
  a29: vec4<f32>,
  a30: vec4<f32>,
  a31: vec4<f32>,
}

@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wid: vec3<u32>) {
  if (li == 0u) {
    let now = atomicAdd(&counters[0], 1u) + 1u;
    atomicMax(&counters[1], now);
  }
  // Every vec4 points at another (a fixed odd stride through the whole array).
  for (var i = li; i < SMEM; i += WG) {
    let n = (i * 97u + 13u) % SMEM;
    tile[i] = vec4<u32>(n, n, n, n);
  }
  workgroupBarrier();
  var idx = li % SMEM;
  var r: Acc;
  for (var it = 0u; it < ITERS; it++) {
    idx = tile[idx].x;
    let x = vec4<f32>(f32(idx));
    if (NACC > 0u) { r.a0 = fma(r.a0, x, vec4<f32>(0.0)); }
    if (NACC > 1u) { r.a1 = fma(r.a1, x, vec4<f32>(1.0)); }
    if (NACC > 2u) { r.a2 = fma(r.a2, x, vec4<f32>(2.0)); }
    if (NACC > 3u) { r.a3 = fma(r.a3, x, vec4<f32>(3.0)); }
    if (NACC > 4u) { r.a4 = fma(r.a4, x, vec4<f32>(4.0)); }
    if (NACC > 5u) { r.a5 = fma(r.a5, x, vec4<f32>(5.0)); }
    if (NACC > 6u) { r.a6 = fma(r.a6, x, vec4<f32>(6.0)); }
    if (NACC > 7u) { r.a7 = fma(r.a7, x, vec4<f32>(7.0)); }
    if (NACC > 8u) { r.a8 = fma(r.a8, x, vec4<f32>(8.0)); }
    if (NACC > 9u) { r.a9 = fma(r.a9, x, vec4<f32>(9.0)); }
    if (NACC > 10u) { r.a10 = fma(r.a10, x, vec4<f32>(10.0)); }
    if (NACC > 11u) { r.a11 = fma(r.a11, x, vec4<f32>(11.0)); }
    if (NACC > 12u) { r.a12 = fma(r.a12, x, vec4<f32>(12.0)); }
    if (NACC > 13u) { r.a13 = fma(r.a13, x, vec4<f32>(13.0)); }
    if (NACC > 14u) { r.a14 = fma(r.a14, x, vec4<f32>(14.0)); }
    if (NACC > 15u) { r.a15 = fma(r.a15, x, vec4<f32>(15.0)); }
    if (NACC > 16u) { r.a16 = fma(r.a16, x, vec4<f32>(16.0)); }
    if (NACC > 17u) { r.a17 = fma(r.a17, x, vec4<f32>(17.0)); }
    if (NACC > 18u) { r.a18 = fma(r.a18, x, vec4<f32>(18.0)); }
    if (NACC > 19u) { r.a19 = fma(r.a19, x, vec4<f32>(19.0)); }
    if (NACC > 20u) { r.a20 = fma(r.a20, x, vec4<f32>(20.0)); }
    if (NACC > 21u) { r.a21 = fma(r.a21, x, vec4<f32>(21.0)); }
    if (NACC > 22u) { r.a22 = fma(r.a22, x, vec4<f32>(22.0)); }
    if (NACC > 23u) { r.a23 = fma(r.a23, x, vec4<f32>(23.0)); }
    if (NACC > 24u) { r.a24 = fma(r.a24, x, vec4<f32>(24.0)); }
    if (NACC > 25u) { r.a25 = fma(r.a25, x, vec4<f32>(25.0)); }
    if (NACC > 26u) { r.a26 = fma(r.a26, x, vec4<f32>(26.0)); }
    if (NACC > 27u) { r.a27 = fma(r.a27, x, vec4<f32>(27.0)); }
    if (NACC > 28u) { r.a28 = fma(r.a28, x, vec4<f32>(28.0)); }
    if (NACC > 29u) { r.a29 = fma(r.a29, x, vec4<f32>(29.0)); }
    if (NACC > 30u) { r.a30 = fma(r.a30, x, vec4<f32>(30.0)); }
    if (NACC > 31u) { r.a31 = fma(r.a31, x, vec4<f32>(31.0)); }
  }
  workgroupBarrier();
  if (li == 0u) { atomicSub(&counters[0], 1u); }
  var t = vec4<f32>(f32(idx));
  if (NACC > 0u) { t += r.a0; }
  if (NACC > 1u) { t += r.a1; }
  if (NACC > 2u) { t += r.a2; }
  if (NACC > 3u) { t += r.a3; }
  if (NACC > 4u) { t += r.a4; }
  if (NACC > 5u) { t += r.a5; }
  if (NACC > 6u) { t += r.a6; }
  if (NACC > 7u) { t += r.a7; }
  if (NACC > 8u) { t += r.a8; }
  if (NACC > 9u) { t += r.a9; }
  if (NACC > 10u) { t += r.a10; }
  if (NACC > 11u) { t += r.a11; }
  if (NACC > 12u) { t += r.a12; }
  if (NACC > 13u) { t += r.a13; }
  if (NACC > 14u) { t += r.a14; }
  if (NACC > 15u) { t += r.a15; }
  if (NACC > 16u) { t += r.a16; }
  if (NACC > 17u) { t += r.a17; }
  if (NACC > 18u) { t += r.a18; }
  if (NACC > 19u) { t += r.a19; }
  if (NACC > 20u) { t += r.a20; }
  if (NACC > 21u) { t += r.a21; }
  if (NACC > 22u) { t += r.a22; }
  if (NACC > 23u) { t += r.a23; }
  if (NACC > 24u) { t += r.a24; }
  if (NACC > 25u) { t += r.a25; }
  if (NACC > 26u) { t += r.a26; }
  if (NACC > 27u) { t += r.a27; }
  if (NACC > 28u) { t += r.a28; }
  if (NACC > 29u) { t += r.a29; }
  if (NACC > 30u) { t += r.a30; }
  if (NACC > 31u) { t += r.a31; }
  // Never true for the inputs given; keeps the chain and the accumulators alive.
  if (t.x == -1.0) { sink[wid.x * WG + li] = t; }
}
