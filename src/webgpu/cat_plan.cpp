#include "webgpu/cat_plan.h"

#include <utility>

namespace wick::webgpu {

namespace {

int64_t numel(const std::vector<int64_t>& dims, size_t from = 0, size_t to = SIZE_MAX) {
  int64_t n = 1;
  for (size_t i = from; i < dims.size() && i < to; ++i) n *= dims[i];
  return n;
}

struct Places {
  std::vector<int32_t> parent;  // the value this one lives in (-1: none)
  std::vector<int64_t> off;     // element offset in the parent

  // The outermost value `v` lives in, and v's offset there.
  std::pair<int32_t, int64_t> resolve(int32_t v) const {
    int64_t o = 0;
    while (parent[static_cast<size_t>(v)] >= 0) {
      o += off[static_cast<size_t>(v)];
      v = parent[static_cast<size_t>(v)];
    }
    return {v, o};
  }
};

}  // namespace

CatPlacement plan_cat_placement(const std::vector<CatPlanTensor>& tensors, const std::vector<CatPlanOp>& ops,
                                int64_t align_words) {
  const size_t n = tensors.size();
  auto valid = [&](int32_t id) { return id >= 0 && static_cast<size_t>(id) < n; };
  Places p{std::vector<int32_t>(n, -1), std::vector<int64_t>(n, 0)};
  std::vector<bool> fixed(n, false);  // a view's link
  for (size_t v = 0; v < n; ++v)
    if (valid(tensors[v].view_of) && tensors[v].view_of != static_cast<int32_t>(v)) {
      p.parent[v] = tensors[v].view_of;
      p.off[v] = tensors[v].view_offset;
      fixed[v] = true;
    }
  CatPlacement result;
  if (align_words <= 0) align_words = 1;

  for (size_t i = ops.size(); i-- > 0;) {
    const CatPlanOp& op = ops[i];
    if (!op.is_cat || !valid(op.out) || op.pieces.empty()) continue;
    const int32_t out = op.out;
    const CatPlanTensor& o = tensors[static_cast<size_t>(out)];
    if (!o.movable || op.dim < 0 || static_cast<size_t>(op.dim) >= o.dims.size()) continue;
    // Pieces are contiguous ranges only when every dim before `dim` is 1.
    if (numel(o.dims, 0, static_cast<size_t>(op.dim)) != 1) continue;
    std::vector<int64_t> offs;
    int64_t total = 0;
    bool shapes_ok = true;
    for (int32_t piece : op.pieces) {
      if (!valid(piece) || tensors[static_cast<size_t>(piece)].dims.size() != o.dims.size()) {
        shapes_ok = false;
        break;
      }
      const std::vector<int64_t>& d = tensors[static_cast<size_t>(piece)].dims;
      for (size_t k = 0; k < d.size(); ++k)
        if (static_cast<int64_t>(k) != op.dim && d[k] != o.dims[k]) shapes_ok = false;
      offs.push_back(total);
      total += numel(d);
    }
    if (!shapes_ok || total != numel(o.dims)) continue;

    const auto [out_root, base] = p.resolve(out);
    if (out_root == out) {
      // A cat whose pieces already sit side by side in one buffer (placed by a later cat)
      // is that range: it becomes a view there and copies nothing.
      bool side_by_side = true;
      int32_t root0 = -1;
      int64_t base0 = 0;
      for (size_t k = 0; k < op.pieces.size() && side_by_side; ++k) {
        const auto [r, off] = p.resolve(op.pieces[k]);
        if (r == op.pieces[k]) side_by_side = false;  // not placed anywhere
        else if (k == 0) root0 = r, base0 = off;
        else side_by_side = r == root0 && off == base0 + offs[k];
      }
      if (side_by_side && root0 != out && tensors[static_cast<size_t>(root0)].kind == o.kind && base0 % align_words == 0) {
        p.parent[static_cast<size_t>(out)] = root0;
        p.off[static_cast<size_t>(out)] = base0;
        continue;
      }
    }
    // Otherwise each piece not living anywhere yet moves into its slice of the output.
    for (size_t k = 0; k < op.pieces.size(); ++k) {
      const int32_t piece = op.pieces[k];
      const CatPlanTensor& t = tensors[static_cast<size_t>(piece)];
      if (!t.movable || t.kind != o.kind || piece == out || p.parent[static_cast<size_t>(piece)] >= 0) continue;
      if (out_root == piece) continue;  // the output already lives inside this piece
      if ((base + offs[k]) % align_words != 0) continue;  // the binding offset would be unaligned
      p.parent[static_cast<size_t>(piece)] = out;
      p.off[static_cast<size_t>(piece)] = offs[k];
    }
  }

  // An op writing a placed value while reading another value of the same buffer would bind
  // that buffer read-only and writable at once: the written value goes back to its own.
  for (bool changed = true; changed;) {
    changed = false;
    for (const CatPlanOp& op : ops) {
      if (op.is_cat) continue;
      for (int32_t w : op.writes) {
        if (!valid(w)) continue;
        const int32_t root = p.resolve(w).first;
        for (int32_t r : op.reads) {
          if (r == w || !valid(r) || p.resolve(r).first != root) continue;
          // Undo the written value's placement, or (when it is the root others live in) the
          // read one's: the nearest cat link on the way to the root (views stay views).
          auto cat_link = [&](int32_t v) {
            while (v >= 0 && fixed[static_cast<size_t>(v)]) v = p.parent[static_cast<size_t>(v)];
            return v;
          };
          int32_t undo = cat_link(w);
          const bool from_w = undo >= 0 && p.parent[static_cast<size_t>(undo)] >= 0;
          if (!from_w) undo = cat_link(r);
          if (undo < 0 || p.parent[static_cast<size_t>(undo)] < 0) continue;
          p.parent[static_cast<size_t>(undo)] = -1;
          p.off[static_cast<size_t>(undo)] = 0;
          ++result.evicted;
          changed = true;
          if (from_w) break;
        }
      }
    }
  }

  result.root.assign(n, -1);
  result.offset.assign(n, 0);
  for (size_t v = 0; v < n; ++v) {
    if (p.parent[v] < 0) continue;
    const auto [r, off] = p.resolve(static_cast<int32_t>(v));
    result.root[v] = r;
    result.offset[v] = off;
    if (!fixed[v]) ++result.placed;
  }
  return result;
}

}  // namespace wick::webgpu
