#include "webgpu/strided_view.h"

namespace wick::webgpu::strided {

int64_t dim_size(const Dim& d) {
  int64_t n = 1;
  for (const Atom& a : d) n *= a.n;
  return n;
}

Dim simplify(const Dim& d) {
  Dim out;
  for (const Atom& a : d) {
    if (a.n == 1) continue;
    if (!out.empty() && out.back().s == a.s * a.n) out.back() = Atom{out.back().n * a.n, a.s};
    else out.push_back(a);
  }
  return out;
}

View contiguous(const std::vector<int64_t>& shape) {
  View v;
  v.dims.resize(shape.size());
  int64_t stride = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    if (shape[i] != 1) v.dims[i] = {Atom{shape[i], stride}};
    stride *= shape[i];
  }
  return v;
}

std::optional<View> reshape(const View& v, const std::vector<int64_t>& shape) {
  std::vector<Atom> atoms;
  for (const Dim& d : v.dims)
    for (const Atom& a : simplify(d)) atoms.push_back(a);
  View out;
  out.off = v.off;
  size_t next = 0;
  for (int64_t n : shape) {
    if (n <= 0) return std::nullopt;
    Dim d;
    int64_t need = n;
    while (need > 1) {
      if (next >= atoms.size()) return std::nullopt;
      Atom& a = atoms[next];
      if (a.n <= need) {
        if (need % a.n) return std::nullopt;
        d.push_back(a);
        need /= a.n;
        ++next;
      } else {
        if (a.n % need) return std::nullopt;
        d.push_back(Atom{need, a.s * (a.n / need)});
        a = Atom{a.n / need, a.s};
        need = 1;
      }
    }
    out.dims.push_back(d);
  }
  if (next != atoms.size()) return std::nullopt;
  return out;
}

std::optional<View> permute(const View& v, const std::vector<int64_t>& perm) {
  const int64_t r = static_cast<int64_t>(v.dims.size());
  if (static_cast<int64_t>(perm.size()) != r) return std::nullopt;
  View out;
  out.off = v.off;
  std::vector<bool> seen(static_cast<size_t>(r), false);
  for (int64_t p : perm) {
    if (p < 0) p += r;
    if (p < 0 || p >= r || seen[static_cast<size_t>(p)]) return std::nullopt;
    seen[static_cast<size_t>(p)] = true;
    out.dims.push_back(v.dims[static_cast<size_t>(p)]);
  }
  return out;
}

std::optional<View> inverse_permute(const View& v, const std::vector<int64_t>& perm) {
  const int64_t r = static_cast<int64_t>(v.dims.size());
  if (static_cast<int64_t>(perm.size()) != r) return std::nullopt;
  View out;
  out.off = v.off;
  out.dims.resize(static_cast<size_t>(r));
  std::vector<bool> seen(static_cast<size_t>(r), false);
  for (int64_t i = 0; i < r; ++i) {
    int64_t p = perm[static_cast<size_t>(i)];
    if (p < 0) p += r;
    if (p < 0 || p >= r || seen[static_cast<size_t>(p)]) return std::nullopt;
    seen[static_cast<size_t>(p)] = true;
    out.dims[static_cast<size_t>(p)] = v.dims[static_cast<size_t>(i)];
  }
  return out;
}

std::optional<View> expand(const View& v, const std::vector<int64_t>& sizes) {
  if (sizes.size() < v.dims.size()) return std::nullopt;
  View out;
  out.off = v.off;
  const size_t lead = sizes.size() - v.dims.size();
  for (size_t i = 0; i < sizes.size(); ++i) {
    const int64_t want = sizes[i];
    if (i < lead) {
      if (want < 1) return std::nullopt;
      out.dims.push_back(want == 1 ? Dim{} : Dim{Atom{want, 0}});
      continue;
    }
    const Dim& d = v.dims[i - lead];
    const int64_t have = dim_size(d);
    if (want == -1 || want == have) out.dims.push_back(d);
    else if (have == 1 && want > 1) out.dims.push_back(Dim{Atom{want, 0}});
    else return std::nullopt;
  }
  return out;
}

std::optional<int64_t> single_stride(const Dim& d) {
  const Dim s = simplify(d);
  if (s.empty()) return int64_t{0};
  if (s.size() == 1) return s[0].s;
  return std::nullopt;
}

}  // namespace wick::webgpu::strided
