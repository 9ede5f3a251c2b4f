// Method::request_output_topk: the k best entries of an output's last row, from the
// delegate that writes the output when it can compute them (WebGPU: only k pairs come
// back instead of the row), else on the host after each execute().
#include <algorithm>
#include <string>

#include "runtime/method_impl.h"
#include "runtime/topk_order.h"

namespace wick {

namespace {

// The top-k of `t`'s last row, in runtime/topk_order.h's order.
Status host_topk(const Tensor& t, int k, TopK& out, const std::string& where) {
  if (t.dtype != ScalarType::kFloat) return Status(ErrorCode::kNotSupported, where + ": top-k needs a float32 output");
  if (t.dim() < 1 || t.sizes.back() < 1) return Status(ErrorCode::kInvalidArgument, where + ": top-k of an empty row");
  const int64_t n = t.sizes.back();
  const float* row = t.data_as<float>() + (t.numel() - n);
  std::vector<TopKCandidate> cand(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) cand[static_cast<size_t>(i)] = {row[i], static_cast<int32_t>(i)};
  keep_best(cand, static_cast<size_t>(k));
  out = to_topk(cand);
  return {};
}

}  // namespace

Status Method::request_output_topk(size_t index, int k) {
  Impl& m = *impl_;
  const std::string where = m.where + ": output " + std::to_string(index);
  if (index >= m.outputs.size()) return Status(ErrorCode::kInvalidArgument, where + " does not exist");
  if (k < 0 || k > kMaxTopK)
    return Status(ErrorCode::kInvalidArgument, where + ": top-k needs k in 1.." + std::to_string(kMaxTopK) + " (0 stops), got " +
                                                   std::to_string(k));
  m.topk.resize(m.outputs.size());
  Impl::TopKRequest& r = m.topk[index];
  if (r.delegate) WICK_RETURN_IF_ERROR(r.delegate->request_output_topk(r.delegate_args, m.outputs[index], 0));
  r = Impl::TopKRequest{};
  r.k = k;
  if (k == 0) return {};
  // The last delegate call that lists the value among its arguments writes it.
  const int32_t value = m.outputs[index];
  for (const auto& chain : m.chains)
    for (const Instruction& in : chain)
      if (in.kind == Instruction::kDelegate && std::find(in.args.begin(), in.args.end(), value) != in.args.end()) {
        r.delegate = m.delegates[static_cast<size_t>(in.a)].get();
        r.delegate_args = in.args;
      }
  if (r.delegate) {
    Status s = r.delegate->request_output_topk(r.delegate_args, value, k);
    if (s.code() == ErrorCode::kNotSupported || s.code() == ErrorCode::kNotFound) {
      r.delegate = nullptr;  // an input of that delegate, or it cannot: the host does it
      r.delegate_args.clear();
    } else if (!s.ok()) {
      return s.with_context(where);
    }
  }
  return {};
}

Result<const TopK*> Method::output_topk(size_t index) const {
  const Impl& m = *impl_;
  if (index >= m.topk.size() || m.topk[index].k == 0)
    return Status(ErrorCode::kInvalidArgument, m.where + ": output " + std::to_string(index) +
                                                   ": no top-k was requested (Method::request_output_topk)");
  const Impl::TopKRequest& r = m.topk[index];
  if (r.delegate) {
    const TopK* t = r.delegate->output_topk(r.delegate_args, m.outputs[index]);
    if (!t) return Status(ErrorCode::kInvalidArgument, m.where + ": output " + std::to_string(index) + ": no top-k yet (execute first)");
    return t;
  }
  return &r.host;
}

bool Method::output_topk_on_device(size_t index) const {
  return index < impl_->topk.size() && impl_->topk[index].k > 0 && impl_->topk[index].delegate != nullptr;
}

Status finish_output_topk(Method::Impl& m) {
  for (size_t i = 0; i < m.topk.size(); ++i) {
    Method::Impl::TopKRequest& r = m.topk[i];
    if (r.k == 0 || r.delegate) continue;
    const Value& v = m.values.values[static_cast<size_t>(m.outputs[i])];
    const std::string where = m.where + ": output " + std::to_string(i);
    if (!v.is_tensor()) return Status(ErrorCode::kNotSupported, where + ": top-k of a non-tensor output");
    WICK_RETURN_IF_ERROR(host_topk(v.tensor, r.k, r.host, where));
  }
  return {};
}

}  // namespace wick
