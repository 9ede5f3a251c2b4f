// `wick`: inspect and run .pte programs from the command line.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "kernels/cpu/kernel.h"
#include "runtime/kernel_registry.h"

namespace {
void usage(FILE* to = stderr) {
  std::fprintf(to,
               "usage:\n"
               "  wick inspect MODEL.pte [--json] [--backend auto|webgpu|cpu]\n"
               "  wick run MODEL.pte [--method NAME] [--backend auto|webgpu|cpu] [--profile] [--profile-runs N]\n"
               "           --input FILE:dtype:d0,d1,...|FILE.npy ... [--step --input ...] --output-dir DIR\n"
               "           [--output-format bin|npy]   or, one step:  --output FILE(.npy|.bin) per output\n"
               "  wick bench MODEL.pte [--method NAME] [--backend auto|webgpu|cpu] [--runs N] [--warmup N] [--max-seconds S]\n"
               "           [--input ...]   (inputs default to zeros of the declared shapes)\n"
               "  wick generate MODEL.pte [--tokenizer PATH] (--prompt TEXT | --prompt-tokens 1,2,3) [--chat]\n"
               "           [--max-new-tokens N] [--greedy | --temperature T ...] [--json]   (--help for all)\n"
               "  wick tokenize --tokenizer PATH (--text T | --text-file F) [--no-special]\n"
               "  wick detokenize --tokenizer PATH --ids 1,2,3 [--skip-special]\n");
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    usage();
    return 2;
  }
  // The runtime resolves KernelCalls through its registry; this binary's kernels are the CPU ones.
  if (wick::Status s = wick::cpu::register_cpu_kernels(wick::kernel_registry()); !s.ok()) {
    std::fprintf(stderr, "wick: %s\n", s.to_string().c_str());
    return 1;
  }
  std::string cmd = argv[1];
  std::vector<std::string> args(argv + 2, argv + argc);
  // `wick inspect|run|bench --help` answers with the usage and exit 0 (generate and the
  // tokenizer commands print their own).
  const bool help = std::any_of(args.begin(), args.end(), [](const std::string& a) { return a == "--help" || a == "-h"; });
  if (help && (cmd == "inspect" || cmd == "run" || cmd == "bench")) {
    usage(stdout);
    return 0;
  }
  if (cmd == "inspect") return wick::cli::inspect(args);
  if (cmd == "run") return wick::cli::run(args);
  if (cmd == "bench") return wick::cli::bench(args);
  if (cmd == "generate") return wick::cli::generate(args);
  if (cmd == "tokenize") return wick::cli::tokenize(args);
  if (cmd == "detokenize") return wick::cli::detokenize(args);
  if (cmd == "-h" || cmd == "--help" || cmd == "help") {
    usage(stdout);
    return 0;
  }
  std::fprintf(stderr, "wick: unknown command '%s'\n", cmd.c_str());
  usage();
  return 2;
}
