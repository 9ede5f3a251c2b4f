// One 4-bit value of a packed uint8 weight bound as `w: array<u32>` (4 bytes per word, the
// includer declares `w`): byte `byte_index`, its high nibble when `high`, stored with a +8
// offset (q in [0, 15] means q - 8). q4gsw puts even k in the low nibble; qcs4w and
// embedding_q4gsw without is_linear_weight put even k in the high one.
fn nibble(byte_index: u32, high: bool) -> f32 {
  let word = w[byte_index >> 2u];
  let b = (word >> (8u * (byte_index & 3u))) & 0xffu;
  var q = b & 0xfu;
  if (high) { q = b >> 4u; }
  return f32(q) - 8.0;
}
