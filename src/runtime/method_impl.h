// Internal state of a loaded method, shared by program.cpp (construction) and
// method.cpp (execution). Not part of the public API.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "format/pte_file.h"
#include "runtime/backend.h"
#include "runtime/kernel_registry.h"
#include "runtime/program.h"

namespace wick {

struct Instruction {
  enum Kind { kKernel, kDelegate, kMove, kJumpFalse, kFree } kind = kKernel;
  std::string name;               // operator name or a short label, for errors and profiles
  std::vector<int32_t> args;      // kernel / delegate argument value indices
  int32_t a = 0, b = 0;           // delegate index; move from/to; jump cond/dest; free target
  KernelFn kernel = nullptr;

  void set(Kind k, std::string label, int32_t first, int32_t second = 0) {
    kind = k;
    name = std::move(label);
    a = first;
    b = second;
  }
};

struct Method::Impl {
  std::shared_ptr<PteFile> file;               // keeps constants alive
  std::shared_ptr<MergedNamedData> named_data; // keeps .ptd data alive
  MethodMeta meta;
  MemoryLimits limits;                         // checked at load; max_io_bytes again per forward()
  std::string where;                           // "model.pte: method 'forward'"
  ValueTable values;
  std::vector<AlignedBuffer> planned;          // arenas, index = mem_id - 1
  std::vector<int32_t> inputs, outputs;
  std::vector<std::vector<Instruction>> chains;
  std::vector<std::unique_ptr<DelegateInstance>> delegates;
  // Per output: a top-k request (Method::request_output_topk), served by the delegate
  // that writes the output when it can, else on the host.
  struct TopKRequest {
    int k = 0;
    DelegateInstance* delegate = nullptr;
    std::vector<int32_t> delegate_args;
    TopK host;
  };
  std::vector<TopKRequest> topk;
  bool profiling = false;
  std::vector<InstructionTime> profile;  // of the last execute(), when profiling
  // Per output: the storage of the copy forward() returned last, reused by the next
  // forward() once the caller has let go of it (method.cpp: copy_out).
  std::vector<std::shared_ptr<AlignedBuffer>> output_storage;
  // Per output: where its planned memory is (null: not written in place, method.cpp's
  // in-place outputs), found on the first forward() with input_borrowable.
  struct OutputHome {
    void* data = nullptr;
    size_t capacity = 0;
  };
  std::vector<OutputHome> output_home;
  bool io_in_place_found = false;
  // Per output: the last forward() wrote it into output_storage, not its planned memory
  // (Method::output reads it there; execute() clears these).
  std::vector<bool> output_in_storage;
  uint64_t output_copy_bytes = 0;  // of the last forward()
  // Per input: forward() hands the caller's tensor to the one delegate that reads it
  // instead of copying it into planned memory (method.cpp's borrowed inputs); found on the
  // first forward().
  std::vector<bool> input_borrowable;
  uint64_t input_copy_bytes = 0;  // of the last forward()
};

// fuse_runs.cpp: replaces each run of one backend's delegate calls with host operators
// between them (Backend::runs_operator) by one call of a delegate from Backend::init_fused.
// The instances come back for the method to append after the program's own delegates
// (the new instructions already index them so); `replaced[i]`: delegate i is no longer
// called and needs no init. A run the backend refuses stays as it was. Off when the
// environment sets WICK_FUSE_DELEGATES=0 (for side-by-side measurements).
struct FusedRuns {
  std::vector<bool> replaced;
  std::vector<std::unique_ptr<DelegateInstance>> instances;
};
FusedRuns fuse_delegate_runs(Method::Impl& m, std::span<const DelegateInitContext> contexts,
                             std::span<const std::shared_ptr<Backend>> backends);

// output_topk.cpp: after an execute(), the host top-k of requested outputs no delegate serves.
Status finish_output_topk(Method::Impl& m);

}  // namespace wick
