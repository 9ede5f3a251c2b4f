// One word of a layout copy as `p.mode` asks (shape_copy and shape_copy_tiled): 0 raw,
// 1 f32->i32, 2 i32->f32, 3 f32->bool, 4 i32->bool.
fn convert(w: u32) -> u32 {
  switch p.mode {
    case 1u: { return bitcast<u32>(i32(bitcast<f32>(w))); }
    case 2u: { return bitcast<u32>(f32(bitcast<i32>(w))); }
    case 3u: { return select(0u, 1u, bitcast<f32>(w) != 0.0); }
    case 4u: { return select(0u, 1u, w != 0u); }
    default: { return w; }
  }
}
