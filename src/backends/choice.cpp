#include "backends/choice.h"

#include "vkcpu/backend.h"
#ifdef WICK_HAVE_WEBGPU_DELEGATE
#include "webgpu/backend.h"
#endif

namespace wick {

bool webgpu_available_in_build() {
#ifdef WICK_HAVE_WEBGPU_DELEGATE
  return true;
#else
  return false;
#endif
}

Result<BackendChoice> use_backend(DelegateTarget preference, const BackendChoiceOptions& options) {
  BackendChoice choice;
  if (preference != DelegateTarget::kCpu) {
#ifdef WICK_HAVE_WEBGPU_DELEGATE
    Status s = webgpu::register_webgpu_backend(
        webgpu::BackendOptions{.profile = options.profile, .f16_weights = options.f16_weights});
    if (s.ok()) {
      choice.target = DelegateTarget::kWebGpu;
      return choice;
    }
#else
    Status s(ErrorCode::kNotSupported, "this build of Wick has no WebGPU delegate");
#endif
    if (preference == DelegateTarget::kWebGpu) return s;
    choice.reason = s.message();
  }
  WICK_RETURN_IF_ERROR(vkcpu::register_cpu_backend(vkcpu::BackendOptions{options.profile}));
  choice.target = DelegateTarget::kCpu;
  return choice;
}

}  // namespace wick
