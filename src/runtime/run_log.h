// Each delegate backend keeps what its graphs built and ran in a log it owns (a struct with
// a `mutex`), shared with its delegates; the CLI's print functions read the log of the
// backend registered last.
#pragma once

#include <memory>
#include <mutex>

namespace wick {

// Runs f(log) with the log of the backend `registered` points to locked (Backend::log_, a
// shared_ptr to a struct with a `mutex`); nothing when that backend is gone.
template <class B, class F>
void with_locked_log(const std::weak_ptr<B>& registered, F&& f) {
  auto backend = registered.lock();
  if (!backend) return;
  std::lock_guard<std::mutex> lock(backend->log_->mutex);
  f(*backend->log_);
}

}  // namespace wick
