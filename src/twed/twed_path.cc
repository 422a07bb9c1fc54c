#include <cmath>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "twed/twed_kernel.h"
#include "wasserwarp/cancellation.h"
#include "wasserwarp/series.h"
#include "wasserwarp/twed.h"

namespace wasserwarp {

absl::StatusOr<EditPathSummary> TwedWithPath(const Series& a, const Series& b,
                                             const TwedParams& params,
                                             const CancellationToken* cancel) {
  using twed_internal::BandedResult;
  using twed_internal::Side;
  if (absl::Status s = twed_internal::ValidateTwedInputs(a, b, params); !s.ok()) return s;
  if (cancel != nullptr && cancel->cancelled()) return twed_internal::TwedCancelledError();
  twed_internal::CancelPoller poller(cancel);
  const BandedResult result =
      twed_internal::WithCost(a.num_channels(), params.p, [&](const auto& cost) {
        const Side sa(a, 0, cost, params.nu, params.lambda);
        const Side sb(b, 0, cost, params.nu, params.lambda);
        return twed_internal::BandedTwed<true>(cost, params.nu, sa, sb,
                                               twed_internal::RowBands(sa, sb, params), poller);
      });
  if (poller.stopped()) return twed_internal::TwedCancelledError();
  if (!std::isfinite(result.distance)) return twed_internal::NonFiniteTwedError(a, b, params);
  return EditPathSummary{
      .distance = result.distance,
      .matches = result.matches,
      .a_deletions = a.samples() - result.matches,
      .b_deletions = b.samples() - result.matches,
      .mean_time_shift = result.shift_sum / static_cast<double>(result.matches),
  };
}

}  // namespace wasserwarp
