// A VK00 plan (vkgraph/vk_plan.h) made runnable on WebGPU.
//
// Every tensor lives in a storage buffer sized for its maximum (serialized) shape, one
// 32-bit word per element: f32 for floating dtypes, i32 for integers and bools (int64
// narrowed, as the exporter's downcast_64_bit intends). Host data is converted on
// upload and readback. The tensors the exporter planned as shareable (mem_obj_id >= 0)
// are planned again by Wick (memory_plan.h), so that views share their input's buffer and
// cost no dispatch; with GraphOptions::alias_views off, tensors with the same mem_obj_id
// share one buffer (the exporter's liveness plan). Only packed quantized weights keep
// their raw bytes.
//
// Ops are built once, in chain order. Each op records its dispatches and a `prepare`
// step; before every execution all prepare steps run in order (current shapes flow
// from inputs to outputs, params uniforms and workgroup counts are rewritten where
// they changed), then every dispatch is encoded into one command buffer and submitted.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <tuple>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"
#include "format/named_data.h"
#include "gpu/buffer.h"
#include "gpu/command.h"
#include "gpu/device.h"
#include "gpu/pipeline.h"
#include "gpu/upload_staging.h"
#include "runtime/value.h"
#include "vkgraph/vk_plan.h"
#include "webgpu/attention_fusion.h"
#include "webgpu/llm_fusion.h"
#include "webgpu/output_topk.h"
#include "webgpu/qkv_fusion.h"

namespace wick::webgpu {

struct ConvFusionPlan;
class Graph;
ConvFusionPlan plan_conv_fusions(const vkgraph::Plan& plan, const Graph& graph);  // fusion.h
struct ElementwiseChain;
std::map<size_t, ElementwiseChain> plan_elementwise_chains(const vkgraph::Plan& plan, const Graph& graph);  // chain_fusion.h
struct MatmulFusionPlan;
MatmulFusionPlan plan_matmul_epilogues(const vkgraph::Plan& plan, const Graph& graph);  // matmul_fusion.h

// What a buffer word holds.
// kF16: f16 values two to a u32 (the first in the low half), only for the linear weights
// GraphOptions::f16_weights converts (f16_weights.h); only the f16-weight matmul reads it.
enum class Elem : uint8_t { kF32, kI32, kPackedBytes, kF16 };

struct GpuTensor {
  vk::VkDataType vk_dtype = vk::VkDataType::FLOAT32;
  Elem elem = Elem::kF32;
  std::vector<int64_t> max_dims;
  std::vector<int64_t> dims;  // current shape
  int constant_id = -1;
  int mem_obj_id = -1;
  std::shared_ptr<gpu::Buffer> buffer;

  int64_t numel() const { return shape_numel(dims); }
  int64_t max_numel() const { return shape_numel(max_dims); }
  int rank() const { return static_cast<int>(dims.size()); }
  bool is_float() const { return elem == Elem::kF32; }
};

struct GValue {
  enum Kind { kNone, kInt, kDouble, kBool, kString, kIntList, kDoubleList, kBoolList, kValueList, kSymInt, kTensor };
  Kind kind = kNone;
  int64_t i = 0;  // Int, Bool (0/1), SymInt (current value)
  double d = 0;
  std::string s;
  std::vector<int64_t> ints;  // IntList
  std::vector<double> doubles;
  std::vector<int32_t> items;  // ValueList
  GpuTensor tensor;
};

// One dispatch's params uniform: rewritten only when its bytes change.
class ParamsBlock {
 public:
  gpu::Buffer* buffer() { return &buffer_; }
  Status init(std::shared_ptr<gpu::Device> device, size_t bytes, const std::string& label);
  Status write(const void* data, size_t bytes);
  template <class T>
  Status write(const T& value) { return write(&value, sizeof(T)); }

 private:
  gpu::Buffer buffer_;
  std::vector<uint8_t> last_;
};

// One dispatch of a profiled execution.
struct ProfileEntry {
  std::string label;  // "<op> <shader>", the dispatch's label
  uint64_t gpu_ns = 0;
  // On the last dispatch of a convolution, matrix product or attention op (0 elsewhere):
  // its FLOPs at the call's shapes (flop_count.h) and the GPU time of all its dispatches.
  double flops = 0;
  uint64_t op_gpu_ns = 0;
};

// Host time of one execute() by phase, for `wick run --profile` (the submit's own phases,
// encode / submit / wait for the GPU, are in gpu::SubmitStats).
struct HostTimes {
  uint64_t upload_ns = 0;    // host inputs converted and handed to the queue
  uint64_t prepare_ns = 0;   // the ops' per-execution steps (shapes, params)
  uint64_t download_ns = 0;  // outputs mapped, copied and converted into host tensors
  uint64_t upload_bytes = 0, download_bytes = 0;
};

struct GraphOptions {
  bool profile = false;  // per-dispatch GPU timestamps
  // Profiled calls time each dispatch inside the pass where the device can
  // (gpu::SubmitOptions::timestamps_inside_pass): the times then add up to an unprofiled
  // call's GPU time. true: a pass per dispatch (each alone, each with a pass's fixed cost).
  // Environment override: WICK_PROFILE_PER_PASS=1.
  bool profile_per_pass = false;
  bool fuse = true;      // graph-build-time fusion into convolutions (fusion.cpp)
  // With `fuse`: elementwise chains as one dispatch (chain_fusion.h). Environment
  // override: WICK_FUSE_CHAINS=0.
  bool fuse_chains = true;
  // With `fuse`: the elementwise ops after a linear / matmul (GELU, layer scale, residual
  // add, ...) applied by the matmul as it stores its result (matmul_fusion.h). Environment
  // override: WICK_FUSE_MATMUL_EPILOGUE=0.
  bool fuse_matmul_epilogue = true;
  // The matmul epilogue's step codes as a pipeline constant (matmul_epilogue.inc.wgsl's EPI)
  // instead of a uniform: each pipeline holds only the steps it runs, at the cost of one
  // pipeline per distinct epilogue. On the H100 (2026-12-05, with matmul_splitk) it took 3-10%
  // off Whisper base, Depth Anything and the SAM 2.1 encoder (bench/results/vision_h200.md).
  // Environment override: WICK_SPECIALIZE_EPILOGUE=0.
  bool specialize_matmul_epilogue = true;
  bool alias_views = true;  // views (flat copies, order-keeping permutes) share their input's buffer (memory_plan.h)
  // gpu::SubmitOptions::first_chunk: the GPU starts on the first dispatches while the host
  // encodes the rest (0: one command buffer; profiled calls always use one). Environment
  // override: WICK_SUBMIT_CHUNK.
  uint32_t submit_first_chunk = 16;
  // Concatenations built in place (cat_plan.h): producers write into their slice of the
  // cat's output. Environment override: WICK_CAT_IN_PLACE=0.
  bool cat_in_place = true;
  // One memory plan for views and in-place cats (graph_memory.cpp): buffers are laid out
  // after every fusion is planned, from the lifetimes of the ops that run, with views
  // (memory_plan.h) and cat placements (cat_plan.h) as offsets inside one group's buffer;
  // values no op touches after a fusion get no memory. Off: views are planned first and
  // in-place cats take buffers of their own on top. Environment override: WICK_JOINT_PLAN=0.
  bool joint_memory_plan = true;
  // select_copy and split_with_sizes_copy outputs that are one aligned range of their input
  // as views of its buffer (ops/shape/copy.h range_views; slices always are). Environment
  // override: WICK_RANGE_VIEWS=0.
  bool range_views = true;
  // Outputs are copied into one persistent MapRead buffer (each at its own offset) and read
  // with one map per call, instead of one buffer and one map per output. Native only (the
  // browser's maps are asynchronous; Emscripten keeps one buffer per output). Environment
  // override: WICK_READBACK_STAGING=0.
  bool readback_staging = true;
  // With that buffer, the call waits for the GPU by mapping it (gpu::SubmitOptions::
  // map_for_read) rather than waiting for the queue and then mapping: one wait fewer between
  // the GPU's end and the copy out. Environment override: WICK_READBACK_MAP_WAIT=0.
  bool readback_map_wait = true;
  // Pointwise convs as a tiled GEMM (conv2d_pw_gemm): -1 where the output has enough tiles
  // (ops/conv/register.cpp), 1 always, 0 never (conv2d_pw). Environment override:
  // WICK_CONV_PW_GEMM=0|1.
  int conv_pw_gemm = -1;
  // conv2d_pw_gemm with vec4 global loads (conv2d_pw_gemm_vec4, at 64x64 / BK 16) where the
  // input channels and the plane are multiples of 4 (ops/conv/register.cpp; conv_pw bench
  // v19-v22: D-FINE S 6.6 against 7.2 ms end to end on the H100 with the split below).
  // Environment override: WICK_CONV_PW_VEC4=0.
  bool conv_pw_vec4 = true;
  // conv2d_pw_gemm split over the input channels where its grid is small, as conv2d_igemm's
  // split-K (conv_splitk off turns both off; ops/conv/register.cpp). Environment override:
  // WICK_CONV_PW_SPLITK=0.
  bool conv_pw_splitk = true;
  // That split's count by the wave model of ops/conv/split_waves.h (any count up to 16, not
  // only a power of two) on GPUs whose multiprocessor count is known (gpu_multiprocessors).
  // Environment override: WICK_CONV_PW_SPLIT_WAVES=0.
  bool conv_pw_split_waves = true;
  // conv2d_pw_gemm_vec4 on fixed shapes, where its grid is a few tiles past a full round of
  // the GPU's multiprocessors (known ones: gpu_multiprocessors): the last tile columns split
  // over K in the same dispatch, then conv2d_pw_tail_reduce (ops/conv/split_waves.h,
  // tail_split). Environment override: WICK_CONV_PW_TAIL=0.
  bool conv_pw_tail = true;
  // conv2d_igemm split over K (plus its reduce pass) where the tile grid is small
  // (ops/conv/register.cpp). Environment override: WICK_CONV_SPLITK=0.
  bool conv_splitk = true;
  // The workgroup count that split sizes the grid toward (0: register.cpp's kIgemmFill, 512,
  // on GPU adapters; 16 on CPU ones). Environment override: WICK_CONV_SPLITK_FILL=n (A/Bs).
  uint32_t conv_splitk_fill = 0;
  // conv2d_igemm's K in the order (ky, kx, c) where in_c >= 16 (its CIN_INNER;
  // ops/conv/register.cpp). Environment override: WICK_CONV_CIN_INNER=0.
  bool conv_cin_inner = true;
  // conv2d_igemm's 32-channel tile where out_c's last 64-channel tile would be at most half
  // full (out_c % 64 in 1..32 past 64: MODNet's 1280 -> 96 5x5 conv ran a quarter of its
  // work on padding; ops/conv/register.cpp). Environment override: WICK_CONV_NARROW_TAIL=0.
  bool conv_narrow_tail = true;
  // conv2d_igemm with 8 rows x 4 channels an invocation (its RM; half the invocations, each
  // with twice the FMAs per shared-memory read; bench/kernels/conv v29-v31): -1 where the
  // channel tile is 64 and the grid has 1,024 tiles or more (ops/conv/register.cpp), 0 never,
  // 1 wherever the channel tile is 32 or 64 (tests). Environment override: WICK_CONV_RM8=auto|0|1.
  int conv_rm8 = -1;
  // Split-K of the 64x64 vec4 matmul where its grid is small (ops/matmul/register.cpp): -1
  // by the tile count on GPU adapters, 0 never, n >= 2 always n splits (tests). On the H100
  // it took 0.5-1 ms off Whisper base, Depth Anything and D-FINE (bench/results/vision_h200.md).
  // Environment override: WICK_MATMUL_SPLITK=auto|0|n.
  int matmul_splitk = -1;
  // The 64x64 vec4 matmul at BK 8 with 8x4 outputs a thread (128 threads, 8 KiB: six
  // workgroups a multiprocessor under Dawn on NVIDIA) where its grid is large and unsplit,
  // in place of 64x64 at BK 16 (16 KiB, three) and 128x64 (ops/matmul/register.cpp; matmul
  // bench v41). Environment override: WICK_MATMUL_TILE_K8=0.
  bool matmul_tile_k8 = true;
  // Row norms (ops/norm/register.cpp): short rows packed several per workgroup
  // (row_norm_rows; environment override WICK_NORM_ROWS=0), and few long rows split across
  // workgroups on the GPU kernel choice (row_norm_stats + row_norm_apply; WICK_NORM_SPLIT=0).
  bool norm_rows = true;
  bool norm_split = true;
  // A layer norm over the last dim that directly follows a split-K product's reduce
  // (Whisper's, DINOv2's, Hiera's pre-norm blocks: out-projection or fc2, + residual, then
  // the next norm) is done by that reduce (matmul_splitk_reduce_ln.wgsl): one dispatch and
  // one read of the row fewer. Environment override: WICK_NORM_SPLITK_FUSE=0.
  bool norm_into_splitk = true;
  // Attention (bmm, softmax, bmm and the copies around them) as one flash_attention
  // dispatch (attention_fusion.h), for head dims up to flash_attention_max_head_dim: on the
  // H200 the kernel beats the unfused ops at head dim 64 (ViT-S, Whisper) but its head-dim-96
  // tiles measured slower than them (SAM 2.1's Hiera; bench/kernels/attention/README.md).
  // Environment override: WICK_FLASH_ATTENTION=0 (off), =all (every head dim a tile fits).
  bool flash_attention = true;
  int64_t flash_attention_max_head_dim = 64;
  // The fused attention split over keys where that evens out the last wave of its grid
  // (ops/attention/flash_splitkv.h; flash_attention_combine.wgsl merges the splits): -1 by
  // the rule, which needs gpu_multiprocessors, 0 never, n >= 2 always n splits (tests).
  // Environment override: WICK_FLASH_SPLITKV=auto|0|n.
  int flash_splitkv = -1;
  // The fused attention reads the next K and V tiles into registers while it computes this
  // one (flash_attention.wgsl's PREFETCH). Environment override: WICK_FLASH_PREFETCH=0.
  bool flash_prefetch = true;
  // The fused attention sums its scores as one chain of FMAs per score (flash_attention.wgsl's
  // SCORE_CHAIN: no separate add per vec4 of head dim). On the H100 (2026-12-05) the kernel
  // took 3-5% less time at ViT-S and Whisper base shapes (bench/kernels/attention v31 / v32).
  // Environment override: WICK_FLASH_SCORE_CHAIN=0.
  bool flash_score_chain = true;
  // The fused attention's row maxima by subgroup shuffles where the device's subgroups hold
  // a row's invocations (flash_attention_sg.wgsl: one barrier a key tile fewer). On the H100
  // (2026-12-05) Whisper base took 2-3% less time end to end (bench/results/vision_h200.md).
  // Environment override: WICK_FLASH_SUBGROUPS=0.
  bool flash_subgroups = true;
  // The fused attention's tile (query rows, keys) when it fits the head dim and the device;
  // {0, 0}: the first of the kernel's tiles that fits ((64, 32) at head dim 64). Smaller tiles
  // take less workgroup memory (bench/kernels/attention v46-v50, bench/kernels/occupancy).
  // Environment override: WICK_FLASH_TILE=BQxBKV (48x32, say).
  uint32_t flash_tile_bq = 0, flash_tile_bkv = 0;
  // The fused attention's score rows per invocation (flash_attention.wgsl's RS): 4, or 2
  // (twice the invocations for a tile: more warps where a multiprocessor holds one
  // workgroup; not yet timed on a GPU, bench/kernels/attention v51-v54) where the tile allows.
  // Environment override: WICK_FLASH_RS=2.
  uint32_t flash_score_rows = 4;
  // With flash_attention: a fused attention's q, k and v linears of one input as one product
  // with stacked weights (qkv_fusion.h). Environment override: WICK_JOIN_QKV=0.
  bool join_qkv = true;
  // How many workgroups of the big kernels the GPU runs at once (its multiprocessors); 0:
  // unknown. WebGPU does not say: the backend takes it from the adapter's name for the GPUs
  // it was measured on (gpu_multiprocessors.h), or from WICK_GPU_MULTIPROCESSORS=n.
  uint32_t gpu_multiprocessors = 0;
  // Kernels specialized to the build's shapes where no value is symbolic (the layout
  // copies' vec4 form, ops/shape/copy.h): like in-place cats they assume every input at
  // its upper bound, and the backend rebuilds without them for a smaller one.
  bool fixed_shapes = true;
  // Which measured kernel choice the ops use where it differs by adapter (matmul: the
  // direct kernels on CPU adapters, the large tiled ones on GPUs; see
  // bench/kernels/matmul/README.md). kByAdapter: the adapter's own; tests force kGpu on
  // SwiftShader so CI covers the GPU kernels too.
  enum class KernelChoice { kByAdapter, kGpu, kCpu };
  KernelChoice kernel_choice = KernelChoice::kByAdapter;  // environment override: WICK_KERNEL_CHOICE=gpu|cpu
  // Linear weights stored as f16 (converted once at build: half their memory), read by
  // matmul_large_vec4_f16w.wgsl with f32 products and sums; activations stay f32. Core WGSL
  // (no shader-f16), so every adapter runs it. Which weights: f16_weights.h. Environment
  // override: WICK_F16=1 (backend.cpp).
  bool f16_weights = false;
  // Row reductions (row norms, softmax and reduce_rows, the M == 1 GEMV) combine their
  // threads' partials through subgroup operations (the *_sg.wgsl kernels, one barrier instead
  // of log2(workgroup) steps; subgroup_reduce.inc.wgsl) where the device has `subgroups`. Off
  // until an H200 A/B measures it (bench/vision/env_ab.sh). Environment override:
  // WICK_SUBGROUPS=0|1.
  bool subgroups = false;
  // With f16_weights, on a device with shader-f16: those linears run
  // matmul_large_vec4_f16math.wgsl instead (f16 products summed in f16 within a K tile, in
  // f32 across tiles; bench/kernels/matmul/ v26-v28). Off, or without shader-f16: the
  // unpack path above. Environment override: WICK_F16_ARITH=0 (backend.cpp).
  bool f16_arith = true;
};

// Elementwise steps a convolution applies to its result before storing it (after bias
// and its own clamp), in order. Codes are those of the conv shaders' epilogue().
// kAddTensor (y += a * residual at the same index) only in conv2d_pw and conv2d_pw_gemm;
// kLeakyRelu: v >= 0 ? v : a * v (aten.leaky_relu, a its negative_slope); kSilu: v * sigmoid(v).
enum class EpilogueCode : uint32_t { kMax = 1, kMin = 2, kHardswish = 3, kAdd = 4, kMul = 5, kDiv = 6, kAddTensor = 7, kLeakyRelu = 8, kSilu = 9, kGeluErf = 10, kGeluTanh = 11 };
struct EpilogueOp {
  EpilogueCode code;
  float a = 0;
};
constexpr size_t kMaxEpilogue = 6;

// What fusion.cpp folds into one convolution: a per-channel affine by constants, then a
// chain of elementwise ops on its output (the conv writes the chain's last output,
// `out_id`), and for pointwise convs a preceding per-channel multiply of its input (`x_id`
// * `scale_id`, scale shaped [N|1, C, 1, 1]) and an add of a same-shaped tensor
// (`residual_id`, the kAddTensor step).
struct ConvFusion {
  std::vector<EpilogueOp> epilogue;
  int32_t out_id = -1;
  int32_t x_id = -1, scale_id = -1;
  int32_t residual_id = -1;
  // A per-output-channel affine y * channel_scale[o] + channel_shift[o] right after the conv
  // (a batch norm exported as multiply and add by constants [1, C, 1, 1]), folded into the
  // weights and bias at build (empty: none). Before the epilogue.
  std::vector<float> channel_scale, channel_shift;
};

// Steps a matrix product (ops/matmul) applies to its result before storing it, after alpha
// and its own bias, in order (matmul_fusion.h). Codes are matmul_epilogue.inc.wgsl's; `a` is
// the scalar of kMulScalar / kAddScalar and the coefficient of an added tensor.
//   kMulColumn / kAddColumn: by column_id's element at the output's column (N values);
//   kAddResidual: a * residual_id at the output's own index (the builder reads it from the
//   output buffer itself when the memory plan put both in one buffer).
enum class MatmulStep : uint32_t { kGeluErf = 1, kGeluTanh = 2, kRelu = 3, kMulColumn = 4, kAddColumn = 5, kAddResidual = 6, kMulScalar = 7, kAddScalar = 8 };
struct MatmulEpilogueStep {
  MatmulStep code;
  float a = 0;
};
constexpr size_t kMaxMatmulSteps = 4;
// The ops folded into one matrix product: it writes `out_id` (the last folded op's result,
// whose dims it sets: its upper bound when a view changed the shape on the way) and reads
// `residual_id` (shaped as out_id) and `column_id` (N values) besides its own operands.
struct MatmulEpilogue {
  std::vector<MatmulEpilogueStep> steps;
  int32_t out_id = -1;
  int32_t residual_id = -1, column_id = -1;
  bool reshaped = false;        // a flat view between the product and out_id changed the shape
  std::vector<size_t> folded;   // chain indices of the ops folded in (views included)
};

// A chain of elementwise ops fused into one elementwise_chain.wgsl dispatch (chain_fusion.h).
// Step codes: below 32 BinaryOp (add, sub, mul, div, min, max), 32 + UnaryOp otherwise.
struct ChainStep {
  uint32_t code = 0;
  int operand = -1;      // index into ElementwiseChain::operands, or -1 for `constant`
  bool swapped = false;  // other op v (v was the op's second argument)
  float constant = 0, alpha = 1;
};
constexpr size_t kMaxChainSteps = 8, kMaxChainOperands = 6;
struct ElementwiseChain {
  std::vector<int32_t> operands;  // value ids; operands[0] is the chain's head (shaped as the output)
  std::vector<ChainStep> steps;
  int32_t out_id = -1;
  std::vector<size_t> folded;     // chain indices of the ops folded in, all but the last (where it runs)
};

// Where a value lives when concatenations are built in place (cat_plan.h): in the buffer of
// value `root`, `offset` elements in (a root itself: root == its id, offset 0).
struct CatHome {
  int32_t root = -1;
  int64_t offset = 0;
};

class Graph {
 public:
  static Result<std::unique_ptr<Graph>> build(std::shared_ptr<gpu::Device> device, gpu::PipelineCache* cache,
                                              const vkgraph::Plan& plan, const GraphOptions& options);
  // read_plan + build.
  static Result<std::unique_ptr<Graph>> build(std::shared_ptr<gpu::Device> device, gpu::PipelineCache* cache,
                                              const vkgraph::VkBlob& blob, const NamedDataMap* named_data,
                                              const GraphOptions& options);
  // args: the DelegateCall's value indices, graph inputs first, then outputs.
  Status execute(ValueTable& values, std::span<const int32_t> args);

  // ---- for op builders ----
  size_t num_values() const { return values_.size(); }
  Result<GValue*> value(int64_t id);
  Result<const GValue*> value(int64_t id) const;
  Result<GpuTensor*> tensor(int64_t id, const char* op);
  bool is_none(int64_t id) const;
  Result<int64_t> int_arg(int64_t id, const char* op) const;  // Int, Bool, integral Double or SymInt
  Result<double> scalar_arg(int64_t id, const char* op) const;
  Result<bool> bool_arg(int64_t id, const char* op) const;
  // aten.gelu's `approximate` argument: false for "none" (erf; a None value too), true for
  // "tanh", nothing for any other value (the fusion passes then leave the gelu alone).
  std::optional<bool> gelu_tanh_arg(int64_t id) const;
  // IntList, or a ValueList of Int/SymInt values (read at call time, so SymInts are current).
  Result<std::vector<int64_t>> int_list(int64_t id, const char* op) const;
  Result<std::vector<int32_t>> value_list(int64_t id, const char* op);
  // The host bytes a constant tensor was created from (for ops that repack weights).
  Result<std::span<const uint8_t>> constant_bytes(int64_t id, const char* op);
  // Element `flat_index` of the host data last uploaded for graph input `tensor_id`, as an
  // integer: lets SymInt ops (select_as_symint) read token positions without a readback.
  Result<int64_t> host_input_word(int64_t tensor_id, int64_t flat_index) const;
  gpu::Device& device() { return *device_; }
  const GraphOptions& options() const { return options_; }
  // GraphOptions::kernel_choice resolved: true where the GPU kernels' choice applies
  // (kGpu, or kByAdapter on an adapter that is not a CPU).
  bool gpu_kernel_choice() const;
  // GraphOptions::subgroups resolved: asked for and the device has the `subgroups` feature
  // (the *_sg.wgsl kernels).
  bool use_subgroups() const;
  std::shared_ptr<gpu::Device> device_ptr() { return device_; }
  // minStorageBufferOffsetAlignment (bytes, at least 4): where a buffer view may start.
  uint64_t view_alignment() const;

  Result<std::shared_ptr<const gpu::ComputePipeline>> pipeline(const gpu::PipelineKey& key);
  // A params uniform owned by the graph.
  Result<ParamsBlock*> params(size_t bytes, const std::string& label);
  // A tensor a fusion made (a joint weight, say), owned by the graph for its lifetime.
  GpuTensor* own_tensor(GpuTensor t) {
    owned_tensors_.push_back(std::make_unique<GpuTensor>(std::move(t)));
    return owned_tensors_.back().get();
  }
  // Linears folded into a joint q/k/v product (qkv_fusion.h): not run on their own.
  size_t joined_linear_count() const { return qkv_joins_.dropped_linears(); }
  // A scratch storage buffer owned by the graph.
  Result<gpu::Buffer*> scratch(uint64_t bytes, const std::string& label);
  // A scratch buffer shared by every op that asks under `key`, for data that lives only
  // between one op's own dispatches (split-K partial sums): the graph's dispatches run in
  // order, so one buffer serves them all. A request larger than the current buffer gets a
  // new one (dispatches recorded earlier keep theirs).
  Result<gpu::Buffer*> shared_scratch(const std::string& key, uint64_t bytes);
  // Records a dispatch for the op being built; returns its index for set_workgroups(). Its
  // label (errors, profiles) defaults to "<op> <shader>".
  Result<size_t> add_dispatch(gpu::Dispatch dispatch);
  // The op being built (the first part of a dispatch's default label).
  const std::string& current_op() const { return current_op_; }
  // Sets a 1-D grid covering `invocations` threads of `workgroup_size`, folded into 2-D
  // when it exceeds the per-dimension limit. Shaders rebuild the flat thread index from
  // global_invocation_id and num_workgroups: x + y * num_workgroups.x * workgroup_size.
  Status set_grid(size_t dispatch, uint64_t invocations, uint32_t workgroup_size);
  Status set_workgroups(size_t dispatch, uint32_t x, uint32_t y = 1, uint32_t z = 1);
  // Registers the op's per-execution step (shape propagation + params). It also runs once now.
  Status add_step(std::function<Status()> prepare);
  // Registers a check run after each execution's submission, before the outputs are read;
  // its error fails that execution. For ops whose shaders report trouble in a small buffer
  // copied back by add_copy (out-of-range indices computed on the GPU: ops/indexing).
  void add_after_submit(std::function<Status()> check) { after_submit_.push_back(std::move(check)); }

  // Memory report (bytes): tensors if each had its own buffer vs the shared plan.
  uint64_t naive_activation_bytes() const { return naive_bytes_; }
  uint64_t planned_activation_bytes() const { return planned_bytes_; }
  uint64_t constant_bytes_total() const { return constant_total_; }
  // Constants stored as f16 (GraphOptions::f16_weights) and the bytes that saved.
  size_t f16_weight_count() const { return f16_weight_count_; }
  uint64_t f16_bytes_saved() const { return f16_bytes_saved_; }
  const std::vector<ProfileEntry>& last_profile() const { return profile_; }
  // Host-side timings of the last submit (encode, submit, wait for the GPU).
  const gpu::SubmitStats& last_submit() const { return last_submit_; }
  const HostTimes& last_host_times() const { return host_times_; }
  size_t dispatch_count() const { return commands_->size(); }
  size_t num_outputs() const { return output_ids_.size(); }
  // Chain ops folded into a convolution, and ops left out because nothing used their result.
  size_t fused_op_count() const { return fused_ops_; }
  size_t dead_op_count() const { return dead_ops_; }
  // The fusion planned for the op being built (a convolution), or null.
  const ConvFusion* conv_fusion() const { return current_fusion_; }
  // The epilogue planned for the op being built (a matrix product), or null.
  const MatmulEpilogue* matmul_epilogue() const { return current_matmul_epilogue_; }
  size_t matmul_epilogue_count() const { return matmul_epilogues_.size(); }
  // Flat copies (views, clones) whose output shares its input's buffer (memory_plan.h).
  size_t aliased_op_count() const { return aliased_ops_; }
  // ---- concatenations in place (cat_plan.h) ----
  // Where value `id` lives, or null when it has a buffer of its own.
  const CatHome* cat_home(int32_t id) const;
  // The cat builder asks before copying `piece` to `offset` of root `root`'s buffer: false
  // when an earlier cat already put it there (the smaller cats of a dense block share the
  // largest one's buffer), true (and noted) otherwise.
  bool first_cat_copy(int32_t root, int64_t offset, int32_t piece);
  // Values that live in another value's buffer; cat pieces that were not copied (in place
  // or already there), counted as the cats are built.
  size_t cat_placed_count() const { return cat_placed_; }
  // Placements assume every shape is its upper bound (no symbolic sizes in the graph, so
  // only the inputs can be smaller): false when one of this call's tensor inputs is not,
  // and the graph must be built again without them (WebGpuDelegate does).
  bool inputs_fit_placement(ValueTable& values, std::span<const int32_t> args) const;
  size_t cat_pieces_not_copied() const { return cat_pieces_skipped_; }
  // Whether ops may specialize their kernels to the build's shapes (GraphOptions::fixed_shapes
  // and no symbolic value); those that do count themselves, so inputs_fit_placement checks.
  bool shapes_fixed() const;

  // ---- a layer norm fused into the split-K reduce before it (ops/norm/register.cpp) ----
  // The split-K reduce a matrix product recorded last (ops/matmul/register.cpp): while that
  // product's dispatches are the last commands recorded, a layer norm of its output may
  // take the reduce over.
  struct SplitReduceNote {
    const GpuTensor* out = nullptr;  // the product's output (after its epilogue)
    size_t reduce_index = 0;         // the reduce's dispatch
    std::vector<gpu::BufferBinding> bindings;  // the reduce's (0, 2-6)
    uint32_t splits = 0, epi_codes = 0;
    bool specialize = false;         // epi_codes as the EPI pipeline constant
    const GpuTensor* b = nullptr;    // the product's second operand: its live N
    bool trans_b = false;            // b is [N, K] (a linear's weight), else [.., K, N]
    size_t end = 0;                  // the command count after the product's dispatches (set by note_split_reduce)
  };
  void note_split_reduce(SplitReduceNote note) {
    split_note_ = std::move(note);
    split_note_.end = dispatch_count();
  }
  const SplitReduceNote* split_reduce_note() const {
    return split_note_.out && split_note_.end == dispatch_count() ? &split_note_ : nullptr;
  }
  // Counts command `command`'s GPU time with the op that recorded `owner` in profiles (its
  // FLOP row's TFLOP/s): the fused norm's dispatch also finishes the product's sums.
  void profile_with(size_t command, size_t owner) {
    if (owner >= command_flop_op_.size() || command_flop_op_[owner] < 0) return;
    if (command >= command_flop_op_.size()) command_flop_op_.resize(command + 1, -1);
    command_flop_op_[command] = command_flop_op_[owner];
  }
  // Whether value `id` is read by an op other than the one that writes it, or is a graph
  // output (every op's arguments counted, value lists' items included).
  bool value_read_elsewhere(int32_t id) const {
    return id < 0 || static_cast<size_t>(id) >= value_refs_.size() || value_refs_[static_cast<size_t>(id)] > 1;
  }
  void count_fixed_shape_op() { ++fixed_shape_ops_; }
  size_t fixed_shape_ops() const { return fixed_shape_ops_; }
  void count_cat_piece_not_copied() { ++cat_pieces_skipped_; }

  // ---- top-k of an output's last row on the GPU (output_topk.h) ----
  // k in 1..kMaxOutputTopK: later executions compute it and skip that output's readback
  // (its host tensor gets the current shape, not the data); k = 0 reads it back again.
  Status request_output_topk(size_t output, int k);
  const TopK* output_topk(size_t output) const;  // of the last execution, or null
  // A buffer copy recorded after the dispatches so far; returns its command index.
  Result<size_t> add_copy(const gpu::Buffer& src, const gpu::Buffer& dst, uint64_t bytes);
  gpu::CommandList& commands() { return *commands_; }

 private:
  Graph() = default;
  // create_values: every plan value, by kind (below), then the shared buffers.
  Status create_values(const vkgraph::Plan& plan);
  static GValue non_tensor_value(const vkgraph::ValueDecl& pv);
  Status create_tensor_value(size_t id, const vkgraph::ValueDecl& pv, std::map<int, uint64_t>& shared_sizes);
  Status upload_constant(GpuTensor& gt, const vkgraph::TensorDecl& t, uint64_t bytes);
  Status create_shared_buffers(const std::map<int, uint64_t>& shared_sizes);
  Status build_ops(const vkgraph::Plan& plan);
  Status execute_call(ValueTable& values, std::span<const int32_t> args);  // execute() minus the input bookkeeping
  Status upload_input(const Tensor& host, int32_t id, const std::string& where);
  // Reads output j's words from its staging buffer, or from `mapped` (the shared readback
  // buffer, mapped for this call) when not null.
  Status download_output(size_t j, const uint8_t* mapped, Tensor& host, const std::string& where);
  // readback_mapped: readback_ is mapped for this call (execute_call maps and unmaps it).
  Status download_outputs(ValueTable& values, std::span<const int32_t> args, bool readback_mapped);
  // Whether this call reads any output through readback_ (the others: top-k, none staged).
  bool reads_through_readback() const;
  // The profile of the last submit, with FLOPs per counted op (flop_count.h).
  void record_profile(const gpu::SubmitStats& stats);
  Status add_output_copies();
  Status plan_transient_buffers(const vkgraph::Plan& plan, std::map<int, uint64_t>& shared_sizes);
  // Plans elementwise chains (chain_fusion.h) on the ops left after the conv fusions.
  void apply_chain_fusions(const vkgraph::Plan& plan);
  void skip_folded(const std::vector<size_t>& folded);
  std::vector<bool> ops_taken(size_t n_ops) const;
  // Plans matmul epilogues (matmul_fusion.h) on the ops left after the conv and attention
  // fusions, and gives the outputs that need one a fusion slot.
  // Buffers for the fusion slots a pass chose (graph.cpp); the pass's slot_of entries for
  // planned values are dropped under the joint plan.
  Status bind_fusion_slots(const std::vector<uint64_t>& slot_bytes, std::map<int32_t, size_t> slot_of,
                           const std::string& label);
  Status apply_matmul_epilogues(const vkgraph::Plan& plan);
  // Gives the plan's fusion slots their buffers and records what it fuses and skips.
  Status apply_conv_fusions(ConvFusionPlan plan);
  // Moves cat pieces into their slices of the cats' outputs (cat_plan.h), after fusion.
  Status place_concatenations(const vkgraph::Plan& plan);
  // GraphOptions::joint_memory_plan: the buffers of every planned tensor, from the final
  // op list (graph_memory.cpp). Until it runs, planned tensors hold placeholder buffers
  // (no memory) that only say which tensors the provisional plan lets share one.
  Status finalize_memory_plan(const vkgraph::Plan& plan);
  bool joint_plan() const { return options_.joint_memory_plan && options_.alias_views; }
  // The pass reads the values, the host constants and the outputs (fusion.h).
  friend ConvFusionPlan plan_conv_fusions(const vkgraph::Plan& plan, const Graph& graph);
  friend std::map<size_t, ElementwiseChain> plan_elementwise_chains(const vkgraph::Plan& plan, const Graph& graph);
  friend MatmulFusionPlan plan_matmul_epilogues(const vkgraph::Plan& plan, const Graph& graph);

  std::shared_ptr<gpu::Device> device_;
  gpu::PipelineCache* cache_ = nullptr;
  GraphOptions options_;
  std::vector<GValue> values_;
  std::vector<std::span<const uint8_t>> constant_host_;  // per value id with a constant (else empty); build time only
  std::vector<int32_t> input_ids_, output_ids_;
  // The host tensor of each tensor input, while execute() runs (host_input_word reads it;
  // null outside execute()). Read in place: copying a large input to serve a few index
  // reads cost as much as the upload itself.
  std::map<int32_t, const Tensor*> host_inputs_;
  std::vector<uint32_t> convert_scratch_;  // reused by conversions to and from 32-bit words
  // Host-mappable copies of each output, filled by the same submission as the dispatches
  // so a call costs one GPU round trip.
  std::vector<std::unique_ptr<gpu::Buffer>> staging_;
  std::vector<size_t> staging_copy_;     // command index of each output's staging copy
  std::vector<uint64_t> staging_bytes_;  // and its size
  // GraphOptions::readback_staging: the one buffer every staging_ entry is a view of.
  std::unique_ptr<gpu::Buffer> readback_;
  uint64_t readback_used_ = 0;  // bytes of it the outputs occupy
  // Ops with FLOPs (flop_count.h), and per command the one it belongs to (-1: none).
  struct FlopOp {
    std::string name;
    std::vector<int32_t> args;
    int32_t out_id = -1;  // the fused output of a convolution, else the last argument
    bool transposed = false;
  };
  std::vector<FlopOp> flop_ops_;
  std::vector<int32_t> command_flop_op_;
  std::vector<std::unique_ptr<OutputTopK>> topk_;  // per output, created on first request
  std::vector<TopK> topk_result_;
  std::unique_ptr<gpu::CommandList> commands_;
  // Inputs go through one persistent mapped staging buffer and one copy submit per call
  // (gpu/upload_staging.h): queue.writeBuffer of multi-MiB inputs was page-fault bound.
  std::unique_ptr<gpu::UploadStaging> uploads_;
  std::vector<std::function<Status()>> steps_;
  std::vector<std::function<Status()>> after_submit_;
  std::string current_op_;
  SplitReduceNote split_note_;
  std::vector<uint32_t> value_refs_;  // per value: op arguments naming it, graph outputs
  std::vector<bool> skip_op_;               // per chain op
  std::map<size_t, ConvFusion> fusions_;   // per chain op index of a convolution
  std::map<size_t, ElementwiseChain> chains_;  // per chain op index of a fused chain's last op
  std::map<size_t, MatmulEpilogue> matmul_epilogues_;  // per chain op index of a matrix product
  const ConvFusion* current_fusion_ = nullptr;
  const MatmulEpilogue* current_matmul_epilogue_ = nullptr;
  size_t fused_ops_ = 0, dead_ops_ = 0, aliased_ops_ = 0;
  std::map<int32_t, CatHome> cat_homes_;
  std::set<std::tuple<int32_t, int64_t, int32_t>> cat_copies_;  // (root, offset, piece) copied so far
  size_t cat_placed_ = 0, cat_pieces_skipped_ = 0;
  size_t fixed_shape_ops_ = 0;
  // The joint plan's inputs (graph_memory.cpp): which value ids it plans, the view links
  // found with the provisional plan (dst inside src at a byte offset; per op index), and
  // the cat placement (value -> root value and element offset, -1: none; links from cat
  // placement counted in cat_placed_).
  struct ViewLink {
    size_t op;
    int32_t src, dst;
    uint64_t offset;
  };
  std::vector<bool> planned_;
  std::vector<ViewLink> view_links_;
  std::vector<bool> conv_skip_;  // the ops the conv fusion pass skipped (folded or dead)
  std::vector<int32_t> joint_root_;
  std::vector<int64_t> joint_offset_;
  LlmFusions llm_fusions_;  // planned with the memory plan (plan_transient_buffers)
  AttentionFusions attention_fusions_;  // likewise
  QkvJoins qkv_joins_;                  // planned with the attention fusions
  std::vector<std::unique_ptr<GpuTensor>> owned_tensors_;  // made by fusions (own_tensor)

  std::vector<std::unique_ptr<ParamsBlock>> params_;
  std::vector<std::unique_ptr<gpu::Buffer>> scratch_;
  std::map<std::string, gpu::Buffer*> shared_scratch_;  // key -> largest buffer so far (in scratch_)
  std::vector<ProfileEntry> profile_;
  gpu::SubmitStats last_submit_;
  HostTimes host_times_;
  uint64_t naive_bytes_ = 0, planned_bytes_ = 0, constant_total_ = 0;
  std::vector<bool> f16_values_;  // f16_weights.h's choice (empty unless f16_weights)
  size_t f16_weight_count_ = 0;
  uint64_t f16_bytes_saved_ = 0;
};

// Index math shared by ops.
std::vector<int64_t> contiguous_strides(const std::vector<int64_t>& dims);
int64_t normalize_dim(int64_t dim, int64_t rank);
uint32_t ceil_div(uint64_t a, uint64_t b);

}  // namespace wick::webgpu
