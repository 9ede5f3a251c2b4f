// Concatenations built in place: the producers of a cat's inputs write straight into their
// slice of the cat's output buffer, so the cat copies nothing.
//
// A piece of `aten.cat` along dim d is one contiguous range of the output when every dim
// before d is 1 (batch-1 NCHW along channels): the piece can live at that offset of the
// output's buffer (a gpu::Buffer::view) if its byte offset is a multiple of
// minStorageBufferOffsetAlignment. Each value lives in one place, so a value that several
// cats take (RRDB's dense blocks concatenate x, x1, x2, ... again and again) is placed in
// one of them and copied into the others; a cat whose pieces all already sit side by side
// in one buffer (the smaller cats of a dense block: prefixes of the largest) becomes a view
// of that range and dispatches nothing. Cats are visited last to first so that the largest
// cat of a chain decides where its pieces live.
//
// WebGPU forbids one dispatch to bind a buffer both read-only and writable, and views share
// their buffer: an op that writes a placed value while reading another value of the same
// buffer (a dense-block conv reading the cat of x, x1 and writing x2 into the next slice)
// keeps its output in a buffer of its own, and the cat copies that piece (see `conflicts`).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace wick::webgpu {

struct CatPlanTensor {
  bool movable = false;        // a planned intermediate that may live inside another buffer
  int kind = 0;                // word kind: pieces and output must agree (else the copy converts)
  std::vector<int64_t> dims;   // its (static) shape
  // A view of value `view_of`'s words, `view_offset` elements in (GraphOptions::
  // joint_memory_plan: views and cats in one plan): it lives there already, so it is never
  // moved and this link is never undone; its input may move, taking it along.
  int32_t view_of = -1;
  int64_t view_offset = 0;
};

struct CatPlanOp {
  bool is_cat = false;
  std::vector<int32_t> pieces;  // cats: the inputs, in order
  int64_t dim = 0;              // cats: normalized concatenation dim
  int32_t out = -1;             // cats: the output
  // Every op: the tensors its dispatches read and write (a cat's own are ignored: its copies
  // stage through scratch when source and destination share a buffer; a view's output,
  // which nothing writes, is left out).
  std::vector<int32_t> reads, writes;
};

struct CatPlacement {
  // Per value id: the value whose buffer holds it and its element offset there; -1 for a
  // value that keeps a buffer of its own (and for every root: a value others live in).
  std::vector<int32_t> root;
  std::vector<int64_t> offset;
  size_t placed = 0;    // values living in another's buffer by a cat (views not counted)
  size_t evicted = 0;   // placements undone by the read/write conflict rule
};

// `align_words`: minStorageBufferOffsetAlignment in 4-byte words.
CatPlacement plan_cat_placement(const std::vector<CatPlanTensor>& tensors, const std::vector<CatPlanOp>& ops,
                                int64_t align_words);

}  // namespace wick::webgpu
