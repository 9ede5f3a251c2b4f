// Coordinates of a flat index into a row-major tensor whose last dimensions are [.., C, H, W]
// (NCHW, or any [outer, H, W] planes): W varies fastest.

struct PlaneCoord { x: u32, y: u32, plane: u32 }

// Flat index i over planes of h rows by w columns.
fn plane_coords(i: u32, h: u32, w: u32) -> PlaneCoord {
  let t = i / w;
  return PlaneCoord(i % w, t % h, t / h);
}

struct NchwCoord { x: u32, y: u32, c: u32, n: u32 }

// Flat index i of an [N, c, h, w] tensor.
fn nchw_coords(i: u32, c: u32, h: u32, w: u32) -> NchwCoord {
  let q = plane_coords(i, h, w);
  return NchwCoord(q.x, q.y, q.plane % c, q.plane / c);
}
