#include "verdict/resampling.h"

#include <cstddef>
#include <cstdint>
#include <utility>

#include "absl/status/status.h"
#include "common/first_error.h"
#include "tbb/blocked_range.h"
#include "tbb/parallel_for.h"

namespace wasserwarp::resampling {

ResampleLoop::ResampleLoop(const VerdictContext& context, uint64_t total_solves)
    : context_(context),
      throttle_(context.progress_interval_ms),
      total_(total_solves),
      arena_(context.max_threads) {}

absl::Status ResampleLoop::Run(size_t count, uint64_t solves_per_item,
                               absl::FunctionRef<absl::Status(size_t)> body) {
  const CancellationToken* cancel = context_.cancel;
  FirstError first_error;
  const auto run_range = [&](const tbb::blocked_range<size_t>& range) {
    for (size_t k = range.begin(); k < range.end(); ++k) {
      if ((cancel != nullptr && cancel->cancelled()) || first_error.Skips(k)) return;
      if (absl::Status status = body(k); !status.ok()) {
        first_error.Record(k, std::move(status));
        return;
      }
      SolvesDone(solves_per_item);
    }
  };
  arena_.execute([&] { tbb::parallel_for(tbb::blocked_range<size_t>(0, count), run_range); });
  if (cancel != nullptr && cancel->cancelled()) {
    return absl::CancelledError("verdict resampling cancelled");
  }
  return first_error.status();
}

void ResampleLoop::Finish() {
  if (!context_.progress) return;
  throttle_.ReportNow([this] { Report(); });
}

void ResampleLoop::SolvesDone(uint64_t solves) {
  done_.fetch_add(solves, std::memory_order_relaxed);
  if (!context_.progress) return;
  throttle_.MaybeReport([this] { Report(); });
}

void ResampleLoop::Report() {
  context_.progress({.done = done_.load(std::memory_order_relaxed), .total = total_});
}

}  // namespace wasserwarp::resampling
