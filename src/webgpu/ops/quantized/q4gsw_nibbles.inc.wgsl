// Unpacking of q4gsw weight words: 8 nibbles per u32, k ascending, even k in the low nibble
// of each byte, stored with a +8 offset (q in [0, 15] means q - 8).
const SHIFT_LO = vec4<u32>(0u, 4u, 8u, 12u);
const SHIFT_HI = vec4<u32>(16u, 20u, 24u, 28u);

// Dot product of one u32 word (8 nibbles, k ascending) with the 8 activations xa, xb.
fn word_dot(word: u32, xa: vec4<f32>, xb: vec4<f32>) -> f32 {
  let lo = vec4<f32>((vec4<u32>(word) >> SHIFT_LO) & vec4<u32>(0xfu)) - vec4<f32>(8.0);
  let hi = vec4<f32>((vec4<u32>(word) >> SHIFT_HI) & vec4<u32>(0xfu)) - vec4<f32>(8.0);
  return dot(xa, lo) + dot(xb, hi);
}

// One 32-activation chunk of x as eight named vec4s (not an array: one indexed in a loop
// goes to local memory where Dawn's robustness keeps the loop rolled, bench/kernels/robustness).
struct XChunk {
  x0: vec4<f32>, x1: vec4<f32>, x2: vec4<f32>, x3: vec4<f32>,
  x4: vec4<f32>, x5: vec4<f32>, x6: vec4<f32>, x7: vec4<f32>,
}

// One 16-byte weight chunk (32 nibbles) against a chunk of x.
fn chunk_dot(q: vec4<u32>, xv: XChunk) -> f32 {
  return word_dot(q.x, xv.x0, xv.x1) + word_dot(q.y, xv.x2, xv.x3) + word_dot(q.z, xv.x4, xv.x5) +
         word_dot(q.w, xv.x6, xv.x7);
}
