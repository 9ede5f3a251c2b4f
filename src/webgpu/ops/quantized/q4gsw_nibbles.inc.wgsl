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
