// One signed byte of an int8 constant bound as `w: array<u32>` (4 bytes per word, the
// includer declares `w`), sign-extended.
fn weight_i8(byte_index: u32) -> i32 {
  let word = w[byte_index >> 2u];
  return bitcast<i32>(word << (24u - 8u * (byte_index & 3u))) >> 24u;
}
