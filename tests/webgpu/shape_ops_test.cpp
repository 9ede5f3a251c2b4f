// Randomized tests of the shape/copy operators (ops/shape) against CPU references
// computed here with plain index math.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "dims_index.h"
#include "single_op.h"

namespace wick {
namespace {

using test::Dims;
using test::strides_of;
using test::unravel;

Dims random_shape(std::mt19937& rng, int rank, int max_size = 6) {
  std::uniform_int_distribution<int> u(1, max_size);
  Dims s(rank);
  for (auto& d : s) d = u(rng);
  return s;
}

// Runs `b` on the inputs and checks the single output's shape and values against
// `ref(flat index) -> value`.
template <class Ref>
void expect_output(test::VkGraphBuilder& b, const std::vector<Tensor>& inputs, const Dims& want_shape, Ref ref,
                   const std::string& what) {
  std::vector<Value> in;
  for (const Tensor& t : inputs) in.push_back(Value::make_tensor(t));
  auto r = b.run(in);
  ASSERT_TRUE(r.ok()) << what << ": " << r.status().to_string();
  const Tensor& got = (*r)[0].tensor;
  ASSERT_EQ(got.sizes, want_shape) << what;
  for (int64_t i = 0; i < got.numel(); ++i) ASSERT_EQ(test::at_f(got, i), ref(i)) << what << " at " << i;
}

TEST(WebGpuShapeOp, PermuteRandom) {
  std::mt19937 rng(11);
  for (int iter = 0; iter < 24; ++iter) {
    const int rank = 1 + iter % 6;
    Dims shape = random_shape(rng, rank, rank > 4 ? 4 : 7);
    std::vector<int64_t> perm(rank);
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    Dims out_shape(rank), perm_arg = perm;
    for (int i = 0; i < rank; ++i) {
      out_shape[i] = shape[perm[i]];
      if (iter % 2) perm_arg[i] -= rank;  // negative dims
    }
    ScalarType dt = iter % 3 == 0 ? ScalarType::kInt : ScalarType::kFloat;
    Tensor x = test::random_tensor(dt, shape, rng, -50, 50);
    test::VkGraphBuilder b;
    int xi = b.input(dt, shape);
    int out = b.tensor(dt, out_shape);
    b.op("aten.permute_copy.default", {xi, b.int_list(perm_arg), out});
    b.output(out);
    const Dims st = strides_of(shape);
    expect_output(b, {x}, out_shape, [&](int64_t i) {
      Dims c = unravel(i, out_shape);
      int64_t src = 0;
      for (int d = 0; d < rank; ++d) src += c[d] * st[perm[d]];
      return test::at_f(x, src);
    }, "permute " + shape_to_string(shape) + " by " + shape_to_string(perm));
  }
}

TEST(WebGpuShapeOp, SliceRandomIncludingNoneNegativeAndPastEnd) {
  std::mt19937 rng(5);
  for (int iter = 0; iter < 40; ++iter) {
    const int rank = 1 + iter % 4;
    Dims shape = random_shape(rng, rank, 9);
    std::uniform_int_distribution<int> ud(0, rank - 1);
    const int64_t d = ud(rng);
    const int64_t size = shape[d];
    std::uniform_int_distribution<int64_t> ui(-size - 2, size + 3);
    std::optional<int64_t> start, end;
    if (iter % 5 != 0) start = ui(rng);
    if (iter % 7 != 0) end = iter % 11 == 0 ? int64_t{1} << 40 : ui(rng);
    const int64_t step = 1 + iter % 3;
    int64_t s = start.value_or(0), e = end.value_or(size);
    if (s < 0) s += size;
    if (e < 0) e += size;
    s = std::clamp<int64_t>(s, 0, size);
    e = std::clamp<int64_t>(e, s, size);
    const int64_t len = (e - s + step - 1) / step;
    Dims out_shape = shape;
    out_shape[d] = len;
    Tensor x = test::random_tensor(ScalarType::kFloat, shape, rng);
    test::VkGraphBuilder b;
    int xi = b.input(ScalarType::kFloat, shape);
    Dims bound = shape;  // the output bound is the input's (a live slice is at most that)
    int out = b.tensor(ScalarType::kFloat, bound);
    auto arg = [&](std::optional<int64_t> v) { return v ? (iter % 2 ? b.symint(*v) : b.int_value(*v)) : b.none(); };
    if (iter % 2 && end && *end > (int64_t{1} << 30)) end = int64_t{1} << 30;  // SymInts are int32
    int sa = arg(start), ea = arg(end);
    b.op("aten.slice_copy.Tensor", {xi, b.int_value(iter % 2 ? d - rank : d), sa, ea, b.int_value(step), out});
    b.output(out);
    const Dims st = strides_of(shape);
    expect_output(b, {x}, out_shape, [&](int64_t i) {
      Dims c = unravel(i, out_shape);
      c[d] = s + c[d] * step;
      int64_t src = 0;
      for (int k = 0; k < rank; ++k) src += c[k] * st[k];
      return test::at_f(x, src);
    }, "slice " + shape_to_string(shape) + " dim " + std::to_string(d) + " " + std::to_string(s) + ":" +
           std::to_string(e) + ":" + std::to_string(step));
  }
}

TEST(WebGpuShapeOp, SelectRandom) {
  std::mt19937 rng(9);
  for (int iter = 0; iter < 20; ++iter) {
    const int rank = 1 + iter % 4;
    Dims shape = random_shape(rng, rank, 7);
    const int64_t d = iter % rank;
    std::uniform_int_distribution<int64_t> ui(-shape[d], shape[d] - 1);
    const int64_t index = ui(rng);
    Dims out_shape = shape;
    out_shape.erase(out_shape.begin() + d);
    Tensor x = test::random_tensor(ScalarType::kFloat, shape, rng);
    test::VkGraphBuilder b;
    int xi = b.input(ScalarType::kFloat, shape);
    int out = b.tensor(ScalarType::kFloat, out_shape);
    b.op("aten.select_copy.int", {xi, b.int_value(d - (iter % 2 ? rank : 0)),
                                  iter % 3 ? b.int_value(index) : b.symint(index), out});
    b.output(out);
    const Dims st = strides_of(shape);
    const int64_t idx = index < 0 ? index + shape[d] : index;
    expect_output(b, {x}, out_shape, [&](int64_t i) {
      Dims c = unravel(i, out_shape);
      c.insert(c.begin() + d, idx);
      int64_t src = 0;
      for (int k = 0; k < rank; ++k) src += c[k] * st[k];
      return test::at_f(x, src);
    }, "select " + shape_to_string(shape));
  }
}

TEST(WebGpuShapeOp, ExpandAndRepeat) {
  std::mt19937 rng(2);
  {
    Dims shape = {3, 1, 5}, size = {2, 3, -1, 5}, out_shape = {2, 3, 4, 5};
    size[2] = 4;
    size[1] = -1;
    Tensor x = test::random_tensor(ScalarType::kFloat, shape, rng);
    test::VkGraphBuilder b;
    int xi = b.input(ScalarType::kFloat, shape);
    int out = b.tensor(ScalarType::kFloat, out_shape);
    b.op("aten.expand_copy.default", {xi, b.int_list(size), b.bool_value(false), out});
    b.output(out);
    expect_output(b, {x}, out_shape, [&](int64_t i) {
      Dims c = unravel(i, out_shape);
      return test::at_f(x, c[1] * 5 + c[3]);
    }, "expand");
  }
  for (int iter = 0; iter < 12; ++iter) {
    const int rank = 1 + iter % 3;
    Dims shape = random_shape(rng, rank, 5);
    const int extra = iter % 2;
    Dims reps = random_shape(rng, rank + extra, 3);
    Dims padded(extra, 1);
    padded.insert(padded.end(), shape.begin(), shape.end());
    Dims out_shape(reps.size());
    for (size_t i = 0; i < reps.size(); ++i) out_shape[i] = padded[i] * reps[i];
    Tensor x = test::random_tensor(ScalarType::kInt, shape, rng, -100, 100);
    test::VkGraphBuilder b;
    int xi = b.input(ScalarType::kInt, shape);
    int out = b.tensor(ScalarType::kInt, out_shape);
    b.op("aten.repeat.default", {xi, b.int_list(reps), out});
    b.output(out);
    const Dims st = strides_of(padded);
    expect_output(b, {x}, out_shape, [&](int64_t i) {
      Dims c = unravel(i, out_shape);
      int64_t src = 0;
      for (size_t k = 0; k < c.size(); ++k) src += (c[k] % padded[k]) * st[k];
      return test::at_f(x, src);
    }, "repeat " + shape_to_string(shape) + " by " + shape_to_string(reps));
  }
}

TEST(WebGpuShapeOp, CatRandomDims) {
  std::mt19937 rng(4);
  for (int iter = 0; iter < 16; ++iter) {
    const int rank = 1 + iter % 4;
    Dims base = random_shape(rng, rank, 5);
    const int64_t d = iter % rank;
    const int pieces = 1 + iter % 4;
    std::vector<Tensor> ins;
    Dims out_shape = base;
    out_shape[d] = 0;
    test::VkGraphBuilder b;
    std::vector<int> ids;
    ScalarType dt = iter % 4 == 3 ? ScalarType::kInt : ScalarType::kFloat;
    std::uniform_int_distribution<int> us(1, 6);
    for (int k = 0; k < pieces; ++k) {
      Dims s = base;
      s[d] = us(rng);
      out_shape[d] += s[d];
      ins.push_back(test::random_tensor(dt, s, rng, -20, 20));
      ids.push_back(b.input(dt, s));
    }
    int out = b.tensor(dt, out_shape);
    b.op("aten.cat.default", {b.value_list(ids), b.int_value(iter % 2 ? d - rank : d), out});
    b.output(out);
    expect_output(b, ins, out_shape, [&](int64_t i) {
      Dims c = unravel(i, out_shape);
      for (const Tensor& t : ins) {
        if (c[d] < t.sizes[d]) {
          const Dims st = strides_of(t.sizes);
          int64_t src = 0;
          for (int k = 0; k < rank; ++k) src += c[k] * st[k];
          return test::at_f(t, src);
        }
        c[d] -= t.sizes[d];
      }
      return -1e9f;
    }, "cat dim " + std::to_string(d) + " into " + shape_to_string(out_shape));
  }
}

TEST(WebGpuShapeOp, SplitWithSizes) {
  std::mt19937 rng(8);
  Dims shape = {3, 9, 2};
  Dims sizes = {2, 0, 7};
  Tensor x = test::random_tensor(ScalarType::kFloat, shape, rng);
  test::VkGraphBuilder b;
  int xi = b.input(ScalarType::kFloat, shape);
  std::vector<int> outs;
  for (int64_t s : sizes) outs.push_back(b.tensor(ScalarType::kFloat, {3, s, 2}));
  b.op("aten.split_with_sizes_copy.default", {xi, b.int_list(sizes), b.int_value(-2), b.value_list(outs)});
  for (int o : outs) b.output(o);
  auto r = b.run({Value::make_tensor(x)});
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  int64_t off = 0;
  for (size_t k = 0; k < sizes.size(); ++k) {
    const Tensor& got = (*r)[k].tensor;
    ASSERT_EQ(got.sizes, (Dims{3, sizes[k], 2}));
    for (int64_t i = 0; i < got.numel(); ++i) {
      Dims c = unravel(i, got.sizes);
      ASSERT_EQ(test::at_f(got, i), test::at_f(x, c[0] * 18 + (c[1] + off) * 2 + c[2])) << k << " at " << i;
    }
    off += sizes[k];
  }
}

TEST(WebGpuShapeOp, ConstantPadPositiveAndNegative) {
  std::mt19937 rng(6);
  struct Case {
    Dims shape, pad;
  };
  const std::vector<Case> cases = {
      {{2, 3, 4}, {1, 2, 0, 1}}, {{5}, {3, 0}}, {{2, 3, 5}, {-1, 2, 1, 1, 0, 1}}, {{1, 2, 3, 4}, {2, -2}}};
  for (const Case& c : cases) {
    const int rank = static_cast<int>(c.shape.size());
    Dims out_shape = c.shape;
    std::vector<int64_t> before(rank, 0);
    for (size_t k = 0; k < c.pad.size() / 2; ++k) {
      out_shape[rank - 1 - k] += c.pad[2 * k] + c.pad[2 * k + 1];
      before[rank - 1 - k] = c.pad[2 * k];
    }
    Tensor x = test::random_tensor(ScalarType::kFloat, c.shape, rng);
    test::VkGraphBuilder b;
    int xi = b.input(ScalarType::kFloat, c.shape);
    int out = b.tensor(ScalarType::kFloat, out_shape);
    b.op("aten.constant_pad_nd.default", {xi, b.int_list(c.pad), b.double_value(1.5), out});
    b.output(out);
    const Dims st = strides_of(c.shape);
    expect_output(b, {x}, out_shape, [&](int64_t i) {
      Dims co = unravel(i, out_shape);
      int64_t src = 0;
      for (int k = 0; k < rank; ++k) {
        int64_t ic = co[k] - before[k];
        if (ic < 0 || ic >= c.shape[k]) return 1.5f;
        src += ic * st[k];
      }
      return test::at_f(x, src);
    }, "pad " + shape_to_string(c.shape) + " by " + shape_to_string(c.pad));
  }
}

TEST(WebGpuShapeOp, PixelShuffleWithBatchDims) {
  std::mt19937 rng(12);
  for (Dims shape : {Dims{1, 8, 3, 5}, Dims{2, 2, 9, 1, 3}, Dims{4, 2, 2}}) {
    const int64_t r = shape[shape.size() - 3] == 9 ? 3 : 2;
    const size_t rk = shape.size();
    const int64_t cin = shape[rk - 3], h = shape[rk - 2], w = shape[rk - 1], c = cin / (r * r);
    Dims out_shape(shape.begin(), shape.end() - 3);
    out_shape.insert(out_shape.end(), {c, h * r, w * r});
    Tensor x = test::random_tensor(ScalarType::kFloat, shape, rng);
    test::VkGraphBuilder b;
    int xi = b.input(ScalarType::kFloat, shape);
    int out = b.tensor(ScalarType::kFloat, out_shape);
    b.op("aten.pixel_shuffle.default", {xi, b.int_value(r), out});
    b.output(out);
    expect_output(b, {x}, out_shape, [&](int64_t i) {
      const int64_t ox = i % (w * r), oy = (i / (w * r)) % (h * r), oc = (i / (w * r * h * r)) % c;
      const int64_t batch = i / (w * r * h * r * c);
      const int64_t ic = oc * r * r + (oy % r) * r + (ox % r);
      return test::at_f(x, ((batch * cin + ic) * h + oy / r) * w + ox / r);
    }, "pixel_shuffle " + shape_to_string(shape));
  }
}

TEST(WebGpuShapeOp, FlatCopiesViewCloneSqueezeUnsqueeze) {
  std::mt19937 rng(1);
  Dims shape = {2, 1, 3, 1, 5};
  Tensor x = test::random_tensor(ScalarType::kFloat, shape, rng);
  auto same = [&](int64_t i) { return test::at_f(x, i); };
  {
    test::VkGraphBuilder b;
    int xi = b.input(ScalarType::kFloat, shape);
    int out = b.tensor(ScalarType::kFloat, {6, 5});
    b.op("aten.view_copy.default", {xi, b.int_list({-1, 5}), out});
    b.output(out);
    expect_output(b, {x}, {6, 5}, same, "view -1");
  }
  {
    test::VkGraphBuilder b;
    int xi = b.input(ScalarType::kFloat, shape);
    int out = b.tensor(ScalarType::kFloat, shape);
    b.op("aten.clone.default", {xi, b.none(), out});
    b.output(out);
    expect_output(b, {x}, shape, same, "clone");
  }
  {
    test::VkGraphBuilder b;
    int xi = b.input(ScalarType::kFloat, shape);
    int out = b.tensor(ScalarType::kFloat, {2, 3, 1, 5});
    b.op("aten.squeeze_copy.dims", {xi, b.int_list({1, -4 + 3 - 3}), out});  // dims 1 and -4 (= 1)
    b.output(out);
    expect_output(b, {x}, {2, 3, 1, 5}, same, "squeeze dims");
  }
  {
    test::VkGraphBuilder b;
    int xi = b.input(ScalarType::kFloat, shape);
    int out = b.tensor(ScalarType::kFloat, {2, 3, 5});
    b.op("aten.squeeze_copy.dims", {xi, b.int_list({1, -2}), out});
    b.output(out);
    expect_output(b, {x}, {2, 3, 5}, same, "squeeze two dims");
  }
  {
    test::VkGraphBuilder b;
    int xi = b.input(ScalarType::kFloat, shape);
    int out = b.tensor(ScalarType::kFloat, {2, 1, 3, 1, 5, 1});
    b.op("aten.unsqueeze_copy.default", {xi, b.int_value(-1), out});
    b.output(out);
    expect_output(b, {x}, {2, 1, 3, 1, 5, 1}, same, "unsqueeze -1");
  }
  {
    test::VkGraphBuilder b;
    int xi = b.input(ScalarType::kFloat, shape);
    int out = b.tensor(ScalarType::kFloat, {1, 2, 1, 3, 1, 5});
    b.op("aten.unsqueeze_copy.default", {xi, b.int_value(0), out});
    b.output(out);
    expect_output(b, {x}, {1, 2, 1, 3, 1, 5}, same, "unsqueeze 0");
  }
}

TEST(WebGpuShapeOp, DynamicShapesFollowTheLiveInput) {
  std::mt19937 rng(3);
  // Graph bounds [8, 6]; the live input is [3, 6].
  Tensor x = test::random_tensor(ScalarType::kFloat, {3, 6}, rng);
  Tensor y = test::random_tensor(ScalarType::kFloat, {2, 6}, rng);
  {
    test::VkGraphBuilder b;
    int xi = b.input(ScalarType::kFloat, {8, 6});
    int out = b.tensor(ScalarType::kFloat, {48});
    b.op("aten.view_copy.default", {xi, b.int_list({-1}), out});
    b.output(out);
    expect_output(b, {x}, {18}, [&](int64_t i) { return test::at_f(x, i); }, "dynamic view -1");
  }
  {
    // A static size list (the bound) absorbs the live element count in its leftmost dim.
    test::VkGraphBuilder b;
    int xi = b.input(ScalarType::kFloat, {8, 6});
    int out = b.tensor(ScalarType::kFloat, {16, 3});
    b.op("aten.view_copy.default", {xi, b.int_list({16, 3}), out});
    b.output(out);
    expect_output(b, {x}, {6, 3}, [&](int64_t i) { return test::at_f(x, i); }, "dynamic view static size");
  }
  {
    test::VkGraphBuilder b;
    int xi = b.input(ScalarType::kFloat, {8, 6});
    int yi = b.input(ScalarType::kFloat, {8, 6});
    int cat = b.tensor(ScalarType::kFloat, {16, 6});
    b.op("aten.cat.default", {b.value_list({xi, yi}), b.int_value(0), cat});
    int tr = b.tensor(ScalarType::kFloat, {6, 16});
    b.op("aten.permute_copy.default", {cat, b.int_list({1, 0}), tr});
    b.output(tr);
    expect_output(b, {x, y}, {6, 5}, [&](int64_t i) {
      const int64_t r = i % 5, c = i / 5;
      return r < 3 ? test::at_f(x, r * 6 + c) : test::at_f(y, (r - 3) * 6 + c);
    }, "dynamic cat + permute");
  }
}

TEST(WebGpuShapeOp, ToDimOrderCopyConverts) {
  std::mt19937 rng(10);
  Tensor x = test::random_tensor(ScalarType::kFloat, {4, 7}, rng, -5, 5);
  x.data_as<float>()[3] = 0.0f;
  {
    test::VkGraphBuilder b;
    int xi = b.input(ScalarType::kFloat, {4, 7});
    int out = b.tensor(ScalarType::kInt, {4, 7});
    b.op("dim_order_ops._to_dim_order_copy.default",
         {xi, b.none(), b.none(), b.none(), b.none(), b.bool_value(false), b.none(), out});
    b.output(out);
    expect_output(b, {x}, {4, 7}, [&](int64_t i) { return static_cast<float>(static_cast<int32_t>(x.data_as<float>()[i])); },
                  "float -> int");
  }
  {
    test::VkGraphBuilder b;
    int xi = b.input(ScalarType::kFloat, {4, 7});
    int out = b.tensor(ScalarType::kBool, {4, 7});
    b.op("dim_order_ops._to_dim_order_copy.default",
         {xi, b.none(), b.none(), b.none(), b.none(), b.bool_value(false), b.none(), out});
    b.output(out);
    expect_output(b, {x}, {4, 7}, [&](int64_t i) { return x.data_as<float>()[i] != 0 ? 1.0f : 0.0f; }, "float -> bool");
  }
  {
    Tensor xi_t = test::random_tensor(ScalarType::kInt, {3, 5}, rng, -100, 100);
    test::VkGraphBuilder b;
    int xi = b.input(ScalarType::kInt, {3, 5});
    int out = b.tensor(ScalarType::kFloat, {3, 5});
    b.op("dim_order_ops._to_dim_order_copy.default",
         {xi, b.none(), b.none(), b.none(), b.none(), b.bool_value(false), b.none(), out});
    b.output(out);
    expect_output(b, {xi_t}, {3, 5}, [&](int64_t i) { return test::at_f(xi_t, i); }, "int -> float");
  }
}

TEST(WebGpuShapeOp, FlipNegativeStrides) {
  std::mt19937 rng(13);
  Dims shape = {3, 4, 5};
  Tensor x = test::random_tensor(ScalarType::kFloat, shape, rng);
  test::VkGraphBuilder b;
  int xi = b.input(ScalarType::kFloat, shape);
  int out = b.tensor(ScalarType::kFloat, shape);
  b.op("aten.flip.default", {xi, b.int_list({0, -1}), out});
  b.output(out);
  expect_output(b, {x}, shape, [&](int64_t i) {
    Dims c = unravel(i, shape);
    return test::at_f(x, (2 - c[0]) * 20 + c[1] * 5 + (4 - c[2]));
  }, "flip");
}

TEST(WebGpuShapeOp, ErrorsNameTheOperator) {
  auto expect_error = [](test::VkGraphBuilder& b, std::vector<Tensor> inputs, const std::string& op) {
    std::vector<Value> in;
    for (auto& t : inputs) in.push_back(Value::make_tensor(t));
    auto r = b.run(in);
    ASSERT_FALSE(r.ok()) << op;
    EXPECT_NE(r.status().message().find(op), std::string::npos) << r.status().message();
  };
  Tensor x = Tensor::make_owned(ScalarType::kFloat, {2, 3});
  {
    test::VkGraphBuilder b;
    int xi = b.input(ScalarType::kFloat, {2, 3});
    int out = b.tensor(ScalarType::kFloat, {3, 2});
    b.op("aten.permute_copy.default", {xi, b.int_list({0, 0}), out});
    b.output(out);
    expect_error(b, {x}, "aten.permute_copy.default");
  }
  {
    test::VkGraphBuilder b;
    int xi = b.input(ScalarType::kFloat, {2, 3});
    int out = b.tensor(ScalarType::kFloat, {4, 2});
    b.op("aten.view_copy.default", {xi, b.int_list({4, -1}), out});
    b.output(out);
    expect_error(b, {x}, "aten.view_copy.default");
  }
  {
    test::VkGraphBuilder b;
    int xi = b.input(ScalarType::kFloat, {2, 3});
    int yi = b.input(ScalarType::kFloat, {2, 4});
    int out = b.tensor(ScalarType::kFloat, {4, 4});
    b.op("aten.cat.default", {b.value_list({xi, yi}), b.int_value(0), out});
    b.output(out);
    expect_error(b, {x, Tensor::make_owned(ScalarType::kFloat, {2, 4})}, "aten.cat.default");
  }
  {
    test::VkGraphBuilder b;
    int xi = b.input(ScalarType::kFloat, {2, 3});
    int out = b.tensor(ScalarType::kFloat, {3});
    b.op("aten.select_copy.int", {xi, b.int_value(0), b.int_value(2), out});
    b.output(out);
    expect_error(b, {x}, "aten.select_copy.int");
  }
  {
    test::VkGraphBuilder b;
    int xi = b.input(ScalarType::kFloat, {2, 3});
    int out = b.tensor(ScalarType::kFloat, {2, 3});
    b.op("aten.slice_copy.Tensor", {xi, b.int_value(1), b.none(), b.none(), b.int_value(0), out});
    b.output(out);
    expect_error(b, {x}, "aten.slice_copy.Tensor");
  }
}

}  // namespace
}  // namespace wick
