#include "progress_bar.h"

#include <unistd.h>

#include <algorithm>
#include <string>

#include "absl/strings/str_format.h"

namespace wasserwarp::cli {
namespace {

constexpr int kBarWidth = 30;
// Carriage return, then erase to the end of the line.
constexpr char kEraseLine[] = "\r\033[K";

// DP cells measure the work of the cost matrix better than pairs, whose lengths differ.
double Fraction(const v1::ValidateProgress& progress) {
  if (progress.phase() == v1::PHASE_RESAMPLING && progress.resamples_total() > 0) {
    return static_cast<double>(progress.resamples_done()) /
           static_cast<double>(progress.resamples_total());
  }
  if (progress.cells_total() > 0) {
    return static_cast<double>(progress.cells_done()) / static_cast<double>(progress.cells_total());
  }
  if (progress.pairs_total() > 0) {
    return static_cast<double>(progress.pairs_done()) / static_cast<double>(progress.pairs_total());
  }
  return 0.0;
}

}  // namespace

const char* PhaseName(v1::Phase phase) {
  switch (phase) {
    case v1::PHASE_QUEUED:
      return "queued";
    case v1::PHASE_PREPARING:
      return "preparing";
    case v1::PHASE_COST_MATRIX:
      return "cost matrix";
    case v1::PHASE_TRANSPORT:
      return "transport";
    case v1::PHASE_DIAGNOSTICS:
      return "diagnostics";
    case v1::PHASE_POOLED_COST_MATRIX:
      return "pooled costs";
    case v1::PHASE_RESAMPLING:
      return "resampling";
    default:
      return "working";
  }
}

std::string WorkDone(const v1::ValidateProgress& progress) {
  if (progress.tiles_total() > 0) {
    return absl::StrFormat("%d/%d tiles", progress.tiles_done(), progress.tiles_total());
  }
  return absl::StrFormat("%d/%d pairs", progress.pairs_done(), progress.pairs_total());
}

ProgressBar::ProgressBar(std::FILE* stream)
    : stream_(stream), enabled_(isatty(fileno(stream)) == 1) {}

void ProgressBar::Update(const v1::ValidateProgress& progress) {
  if (!enabled_) return;
  const double fraction = std::clamp(Fraction(progress), 0.0, 1.0);
  const int filled = static_cast<int>(fraction * kBarWidth);
  const double elapsed =
      static_cast<double>(progress.elapsed().seconds()) + progress.elapsed().nanos() * 1e-9;
  absl::FPrintF(stream_, "%s[%s%s] %3.0f%%  %s  %s  %.1f s", kEraseLine, std::string(filled, '#'),
                std::string(kBarWidth - filled, '.'), 100.0 * fraction, PhaseName(progress.phase()),
                WorkDone(progress), elapsed);
  std::fflush(stream_);
  drawn_ = true;
}

void ProgressBar::Clear() {
  if (!drawn_) return;
  std::fputs(kEraseLine, stream_);
  std::fflush(stream_);
  drawn_ = false;
}

}  // namespace wasserwarp::cli
