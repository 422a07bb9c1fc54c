#include "wasserwarp/twed.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "twed/twed_kernel.h"
#include "wasserwarp/cancellation.h"
#include "wasserwarp/field_error.h"
#include "wasserwarp/series.h"

namespace wasserwarp {
namespace twed_internal {
namespace {

// Rows i0 .. i0+R-1 over every column (ScalarStripStep). On entry d[j] and dl[j] hold
// D(i0-1, j) and (D + L)(i0-1, j) for j in 0..m; on exit row i0+R-1.
template <int R, class Cost>
void StripRows(const Cost& cost, double nu, const Side& a, const Side& b, ptrdiff_t i0, double* d,
               double* dl) {
  const ptrdiff_t m = b.size();
  ScalarLanes<R> lanes = StartScalarLanes<R>(cost, a, i0, dl[0]);
  for (ptrdiff_t s = 1; s <= m + R - 1; ++s) ScalarStripStep(cost, nu, b, lanes, s, d, dl);
}

// The rows < R left over after the full strips, as one narrower strip.
template <int R, class Cost>
void LastRows(ptrdiff_t rows, const Cost& cost, double nu, const Side& a, const Side& b,
              ptrdiff_t i0, double* d, double* dl) {
  if constexpr (R > 0) {
    if (rows == R) {
      StripRows<R>(cost, nu, a, b, i0, d, dl);
    } else {
      LastRows<R - 1>(rows, cost, nu, a, b, i0, d, dl);
    }
  }
}

// Returns early (with a meaningless distance) once `poller` reports a cancel.
template <class Cost>
double StripTwed(const Cost& cost, double nu, const Side& a, const Side& b, CancelPoller& poller) {
  const ptrdiff_t n = a.size();
  const ptrdiff_t m = b.size();
  StripRowBuffers buffers(m);
  double* d = buffers.d();
  double* dl = buffers.dl();
  ptrdiff_t i = 1;
  const uint64_t strip_cells = static_cast<uint64_t>(kScalarStripRows) * static_cast<uint64_t>(m);
  for (; i + kScalarStripRows - 1 <= n; i += kScalarStripRows) {
    if (poller.Cancelled(strip_cells)) return kInf;
    StripRows<kScalarStripRows>(cost, nu, a, b, i, d, dl);
  }
  LastRows<kScalarStripRows - 1>(n - i + 1, cost, nu, a, b, i, d, dl);
  return d[m];
}

absl::Status CheckFinite(double value, const char* name) {
  if (std::isfinite(value)) return absl::OkStatus();
  return InvalidFieldError(name, absl::StrCat("must be finite, got ", value));
}

}  // namespace

absl::Status TwedCancelledError() { return absl::CancelledError("TWED computation cancelled"); }

absl::Status ValidateTwedInputs(const Series& a, const Series& b, const TwedParams& params) {
  if (absl::Status s = ValidateTwedParams(params); !s.ok()) return s;
  if (absl::Status s = ValidateSeries(a); !s.ok()) return s;
  if (absl::Status s = ValidateSeries(b); !s.ok()) return s;
  if (a.num_channels() != b.num_channels()) {
    return absl::InvalidArgumentError(absl::StrCat("series '", a.id, "' has ", a.num_channels(),
                                                   " channels but series '", b.id, "' has ",
                                                   b.num_channels()));
  }
  return absl::OkStatus();
}

bool AllValidAndAlike(const std::vector<Series>& rows, const std::vector<Series>& cols) {
  const size_t channels = cols.front().num_channels();
  const auto ok = [&](const Series& s) {
    return s.num_channels() == channels && ValidateSeries(s).ok();
  };
  return std::all_of(rows.begin(), rows.end(), ok) && std::all_of(cols.begin(), cols.end(), ok);
}

absl::Status NonFiniteTwedError(const Series& a, const Series& b, const TwedParams& params) {
  if (params.time_window) {
    return absl::InvalidArgumentError(absl::StrCat("no alignment of series '", a.id, "' and '",
                                                   b.id, "' stays within the time window of ",
                                                   *params.time_window, " s"));
  }
  return absl::OutOfRangeError(
      absl::StrCat("TWED of series '", a.id, "' and '", b.id, "' overflows a double"));
}

std::vector<Band> RowBands(const Side& a, const Side& b, const TwedParams& params) {
  const ptrdiff_t n = a.size();
  const ptrdiff_t m = b.size();
  if (!params.time_window) return std::vector<Band>(n, Band{1, m});
  const double w = *params.time_window;
  std::vector<Band> bands(n);
  // Columns left of the window, inside it and right of it come in that order
  // in every row, and the left and right parts shift right as ta_i grows.
  ptrdiff_t lo = 1;
  ptrdiff_t hi = 0;
  for (ptrdiff_t i = 1; i <= n; ++i) {
    const double ta = a.time(i);
    while (lo <= m && b.time(lo) < ta && !(std::abs(ta - b.time(lo)) <= w)) ++lo;
    while (hi < m && (b.time(hi + 1) <= ta || std::abs(ta - b.time(hi + 1)) <= w)) ++hi;
    bands[i - 1] = Band{lo, hi};
  }
  return bands;
}

}  // namespace twed_internal

absl::Status ValidateTwedParams(const TwedParams& params) {
  using twed_internal::CheckFinite;
  if (absl::Status s = CheckFinite(params.nu, "nu"); !s.ok()) return s;
  if (absl::Status s = CheckFinite(params.lambda, "lambda"); !s.ok()) return s;
  if (absl::Status s = CheckFinite(params.p, "p"); !s.ok()) return s;
  if (params.nu < 0.0)
    return InvalidFieldError("nu", absl::StrCat("must be >= 0, got ", params.nu));
  if (params.lambda < 0.0) {
    return InvalidFieldError("lambda", absl::StrCat("must be >= 0, got ", params.lambda));
  }
  if (params.p < 1.0) return InvalidFieldError("p", absl::StrCat("must be >= 1, got ", params.p));
  if (params.time_window) {
    if (absl::Status s = CheckFinite(*params.time_window, "time_window"); !s.ok()) return s;
    if (*params.time_window <= 0.0) {
      return InvalidFieldError("time_window",
                               absl::StrCat("must be > 0 seconds, got ", *params.time_window));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<double> Twed(const Series& a, const Series& b, const TwedParams& params,
                            const CancellationToken* cancel) {
  using twed_internal::BandedTwed;
  using twed_internal::kScalarStripPad;
  using twed_internal::Side;
  if (absl::Status s = twed_internal::ValidateTwedInputs(a, b, params); !s.ok()) return s;
  if (cancel != nullptr && cancel->cancelled()) return twed_internal::TwedCancelledError();
  twed_internal::CancelPoller poller(cancel);
  const double distance =
      twed_internal::WithCost(a.num_channels(), params.p, [&](const auto& cost) {
        const Side sa(a, 0, cost, params.nu, params.lambda);
        const Side sb(b, kScalarStripPad, cost, params.nu, params.lambda);
        if (!params.time_window) return twed_internal::StripTwed(cost, params.nu, sa, sb, poller);
        return BandedTwed<false>(cost, params.nu, sa, sb, twed_internal::RowBands(sa, sb, params),
                                 poller)
            .distance;
      });
  if (poller.stopped()) return twed_internal::TwedCancelledError();
  if (!std::isfinite(distance)) return twed_internal::NonFiniteTwedError(a, b, params);
  return distance;
}

uint64_t TwedCells(const Series& a, const Series& b) {
  return static_cast<uint64_t>(a.samples()) * b.samples();
}

}  // namespace wasserwarp
