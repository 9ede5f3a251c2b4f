// What gather.wgsl and index_rows.wgsl share: their bindings (the includer declares its
// `struct Params`), one thread per output word (`total` of them, per_element.inc.wgsl) and
// the report of an out-of-range index. Words are copied as-is, so any
// 32-bit element type works.
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read> index: array<i32>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;
@group(0) @binding(3) var<uniform> p: Params;
@group(0) @binding(4) var<storage, read_write> flags: array<atomic<i32>, 2>;

fn element_count() -> u32 { return p.total; }

// Output word o of an index outside the source: 0. When `count`, the index (as given) is also
// counted in flags[0] and kept in flags[1], which the host reads back after the run when the
// indices were computed on the GPU (register.cpp).
fn out_of_range(o: u32, given: i32, count: bool) {
  out[o] = 0u;
  if (count) {
    atomicAdd(&flags[0], 1);
    atomicStore(&flags[1], given);
  }
}
