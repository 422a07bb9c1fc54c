#include "rpc/call_pool.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "wasserwarp/field_error.h"

namespace wasserwarp::service {

CallPool::CallPool(int threads, int max_queued) : max_queued_(static_cast<size_t>(max_queued)) {
  threads_.reserve(static_cast<size_t>(threads));
  for (int t = 0; t < threads; ++t) threads_.emplace_back([this] { Loop(); });
}

CallPool::~CallPool() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  for (std::thread& thread : threads_) thread.join();
}

absl::Status CallPool::Post(std::function<void()> work) {
  absl::MutexLock lock(&mu_);
  if (queue_.size() >= max_queued_) {
    return WithLimit(absl::ResourceExhaustedError(absl::StrCat(
                         "the server has ", queue_.size(),
                         " calls waiting for a thread, its limit (--max_queued_calls=", max_queued_,
                         "); retry later")),
                     "--max_queued_calls");
  }
  queue_.push_back(std::move(work));
  return absl::OkStatus();
}

void CallPool::PostNextStep(std::function<void()> work) {
  absl::MutexLock lock(&mu_);
  queue_.push_back(std::move(work));
}

void CallPool::Loop() {
  const auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return stopping_ || !queue_.empty();
  };
  absl::MutexLock lock(&mu_);
  while (true) {
    mu_.Await(absl::Condition(&ready));
    if (queue_.empty()) return;
    std::function<void()> work = std::move(queue_.front());
    queue_.pop_front();
    mu_.Unlock();
    work();
    mu_.Lock();
  }
}

}  // namespace wasserwarp::service
