// Builds small VK00 graphs in memory (with the flatbuffers builder for our VK00 schema)
// and runs them on the WebGPU delegate's Graph, for randomized per-operator tests in the
// spirit of llama.cpp's test-backend-ops. Fixtures remain the ground truth for whole
// programs; these tests cover shapes the fixtures do not.
//
//   test::VkGraphBuilder b;
//   int x = b.input(ScalarType::kFloat, {2, 3});
//   int y = b.tensor(ScalarType::kFloat, {2, 3});
//   b.op("aten.relu.default", {x, y});
//   b.output(y);
//   auto outs = b.run({x_value});   // Result<std::vector<Value>>
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "format/named_data.h"
#include "runtime/value.h"

namespace wick::test {

class VkGraphBuilder {
 public:
  // A graph input tensor (upper-bound shape). Tensors with the same mem_obj_id >= 0 share
  // one buffer, as in the exporter's memory plan.
  int input(ScalarType dtype, std::vector<int64_t> shape, int mem_obj_id = -1);
  // An intermediate or output tensor (its shape is the upper bound).
  int tensor(ScalarType dtype, std::vector<int64_t> shape, int mem_obj_id = -1);
  // A constant tensor whose bytes (in `dtype`) live in named data, as the exporter writes them.
  int constant(const Tensor& value);
  int int_value(int64_t v);
  int double_value(double v);
  int bool_value(bool v);
  int none();
  int string_value(std::string v);
  int int_list(std::vector<int64_t> v);
  int value_list(std::vector<int> ids);
  int symint(int64_t v = 0);
  void op(const std::string& name, std::vector<int> args);
  void output(int id);

  // The VH00 blob, as a delegate's `processed` bytes (constants stay in named data).
  std::vector<uint8_t> blob() const;
  // The constants' named data, for a DelegateInitContext of blob() (it reads this builder).
  std::unique_ptr<NamedDataMap> named_data() const;
  // Builds the blob, runs the graph once on the delegate with `inputs` (in input() order),
  // and returns the outputs resized to their live shapes.
  Result<std::vector<Value>> run(const std::vector<Value>& inputs);

  bool fuse = true;           // GraphOptions::fuse for run()
  bool fuse_chains = true;    // GraphOptions::fuse_chains for run()
  bool fuse_matmul_epilogue = true;  // GraphOptions::fuse_matmul_epilogue for run()
  bool specialize_matmul_epilogue = false;  // GraphOptions::specialize_matmul_epilogue for run()
  size_t matmul_epilogues = 0;       // after run(): Graph::matmul_epilogue_count
  bool alias_views = true;    // GraphOptions::alias_views for run()
  bool gpu_kernels = false;   // run() with GraphOptions::kernel_choice = kGpu (GPU kernel choice on SwiftShader)
  bool cpu = false;           // run() on the CPU executor of VK00 graphs (vkcpu::CpuGraph) instead
  bool cat_in_place = true;   // GraphOptions::cat_in_place for run()
  bool joint_memory_plan = true;  // GraphOptions::joint_memory_plan for run()
  bool range_views = true;    // GraphOptions::range_views for run()
  bool flash_attention = true;  // GraphOptions::flash_attention for run()
  int flash_splitkv = 0;        // GraphOptions::flash_splitkv for run() (n >= 2: n key splits)
  bool flash_prefetch = true;   // GraphOptions::flash_prefetch for run()
  uint32_t flash_tile_bq = 0, flash_tile_bkv = 0;  // GraphOptions::flash_tile_* for run()
  uint32_t flash_score_rows = 4;                   // GraphOptions::flash_score_rows for run()
  bool flash_score_chain = true;   // GraphOptions::flash_score_chain for run()
  bool join_qkv = true;           // GraphOptions::join_qkv for run()
  bool flash_subgroups = true;    // GraphOptions::flash_subgroups for run()
  size_t joined_linears = 0;      // after run(): Graph::joined_linear_count
  bool fixed_shapes = true;   // GraphOptions::fixed_shapes for run()
  // run() builds the graph again without in-place cats and fixed-shape kernels when an
  // input is below its upper bound, as WebGpuDelegate does (false: the graph's error).
  bool rebuild_for_smaller_inputs = true;
  uint32_t submit_first_chunk = 16;  // GraphOptions::submit_first_chunk for run()
  bool readback_staging = true;      // GraphOptions::readback_staging for run()
  bool readback_map_wait = true;     // GraphOptions::readback_map_wait for run()
  // Inputs of more calls of the same graph after run()'s own (a delegate is called many
  // times); their outputs land in later_outputs, one list per call.
  std::vector<std::vector<Value>> later_calls;
  std::vector<std::vector<Value>> later_outputs;
  std::vector<std::vector<std::string>> later_kernels;  // with profile: each later call's dispatch labels
  // With later_errors_continue, a later call that fails leaves its status in later_statuses
  // (one per later call) and empty outputs, and the calls go on; otherwise run() returns it.
  bool later_errors_continue = false;
  std::vector<Status> later_statuses;
  int conv_pw_gemm = -1;      // GraphOptions::conv_pw_gemm for run() (1: every pointwise conv as a GEMM)
  int matmul_splitk = 0;      // GraphOptions::matmul_splitk for run() (n >= 2: n splits wherever the 64x64 tile runs)
  bool norm_into_splitk = true;  // GraphOptions::norm_into_splitk for run()
  int conv_rm8 = 0;           // GraphOptions::conv_rm8 for run() (1: RM 8 wherever the channel tile is 32 or 64)
  uint32_t conv_splitk_fill = 0;  // GraphOptions::conv_splitk_fill for run() (0: the adapter's default)
  uint32_t gpu_multiprocessors = 0;  // GraphOptions::gpu_multiprocessors for run() (0: the adapter's, if known)
  bool conv_pw_tail = true;  // GraphOptions::conv_pw_tail for run()
  bool f16_weights = false;   // GraphOptions::f16_weights for run()
  bool subgroups = false;     // GraphOptions::subgroups for run() (the *_sg.wgsl row reductions)
  bool f16_arith = true;      // GraphOptions::f16_arith for run()
  size_t f16_weight_count = 0;  // after run(): Graph::f16_weight_count
  size_t dispatches = 0;      // after run(): the graph's recorded dispatches
  uint64_t view_alignment = 0;  // after run(): Graph::view_alignment (the device's storage offset alignment)
  std::string adapter;        // after run(): the device's adapter, for messages
  uint64_t planned_bytes = 0;  // after run(): Graph::planned_activation_bytes
  size_t cat_placed = 0, cat_not_copied = 0;  // after run(): Graph::cat_placed_count / cat_pieces_not_copied
  size_t submits = 0;         // after run(): command buffers of the execution
  // With `profile` (GraphOptions::profile), after run(): each dispatch's label
  // ("<op> <shader>") in the order they ran, to check which kernel an op chose.
  bool profile = false;
  std::vector<std::string> kernels;
  // Graph output index -> k: run() asks the graph for the top-k of that output's last row
  // (Graph::request_output_topk) and stores it in topk_results[output index].
  std::map<size_t, int> output_topk;
  std::map<size_t, TopK> topk_results;

 private:
  struct V;
  std::vector<std::shared_ptr<V>> values_;
  std::vector<std::pair<std::string, std::vector<int>>> ops_;
  std::vector<int> inputs_, outputs_;
  std::map<std::string, std::vector<uint8_t>> named_;
  int add(std::shared_ptr<V> v);
};

// Random tensors for op tests.
Tensor random_tensor(ScalarType dtype, std::vector<int64_t> shape, std::mt19937& rng, double lo = -2, double hi = 2);
float at_f(const Tensor& t, int64_t i);  // element i as float, any dtype
// How many of a profiled run's dispatch labels ("<op> <shader>", VkGraphBuilder::kernels)
// end in `shader`: which kernels an op chose.
size_t count_kernel(const std::vector<std::string>& kernels, const std::string& shader);
// Every float output of `got` within tol + tol * |want| of `want`'s (same count, same shapes);
// fails the test at the first element that is not (gtest's fatal assertions).
void expect_outputs_near(const std::vector<Value>& got, const std::vector<Value>& want, double tol,
                         const std::string& what);

// 4-bit values q[n * k] in [-8, 7] packed as linear_q4gsw takes its weight: uint8 [n, (k+1)/2],
// +8 offset, even k in the low nibble (a zero nibble pads odd k).
Tensor pack_q4gsw_weight(const std::vector<int>& q, int64_t n, int64_t k);

}  // namespace wick::test
