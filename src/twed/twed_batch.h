// TWED of one series against several others at once, one pair per SIMD lane.
//
// Each lane evaluates exactly the scalar strip kernel's expressions in the
// same order (twed_kernel.h), so every lane's distance is bit-identical to
// Twed() of its pair, whatever it shares a vector with. The SIMD width is
// chosen at run time (Highway dynamic dispatch): AVX-512 where the CPU has
// it, else AVX2; without either BatchLanes() is 0 and callers use Twed().

#ifndef WASSERWARP_SRC_TWED_TWED_BATCH_H_
#define WASSERWARP_SRC_TWED_TWED_BATCH_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "twed/lane_records.h"
#include "twed/twed_pruned.h"
#include "wasserwarp/cancellation.h"
#include "wasserwarp/series.h"
#include "wasserwarp/twed.h"

namespace wasserwarp::twed_internal {

// Lanes per vector of the SIMD target dispatched to on this CPU; 0 when
// that target is the portable scalar one.
size_t BatchLanes();

// Highway's name of that target ("AVX2", "AVX3"), or "scalar" when BatchLanes() is 0: what a
// report says computed its distances.
const char* BatchTargetName();

// Whether BatchTwed computes pairs of `channels`-channel series under
// `params`: not with a time window (banded pairs stay on the scalar kernel,
// whose bands skip the forbidden cells) and not for Lp norms other than
// p = 1 and 2 on several channels (std::pow has no bit-identical SIMD twin).
bool BatchSupports(size_t channels, const TwedParams& params);

// Up to `lanes` series side by side in double precision (lane_records.h), with the scalar
// kernel's deletion costs.
class LaneBatch : public LaneRecords<double> {
 public:
  // Every series must be valid with the same channel count as the others,
  // and BatchSupports must hold.
  LaneBatch(std::span<const Series* const> series, const TwedParams& params, size_t lanes);

  // Whether every value is moderate enough for the fast exact square root
  // (see twed_batch.cc).
  bool moderate() const { return moderate_; }

 private:
  bool moderate_ = true;
};

// out[k] = TWED(a, k-th series of the batch) for k < batch.size(), the same
// bits Twed() returns (+inf where Twed() reports that the distance
// overflows). `a` must be valid with the batch's channel count, `params`
// the batch's, and BatchLanes() still batch.lanes(). Cancelled, with `out`
// unspecified, once `cancel` is found cancelled (polled as Twed() does).
absl::Status BatchTwed(const Series& a, const LaneBatch& batch, const TwedParams& params,
                       std::span<double> out, const CancellationToken* cancel = nullptr);

// Whether BatchTwedPairs takes `channels`-channel series under `params`: where BatchTwed does,
// on up to 4 channels (the kernels that keep each lane's row sample in registers).
bool PairsSupport(size_t channels, const TwedParams& params);

// As BatchTwed, with each lane's own row series: out[k] = TWED(k-th series of `rows`, k-th of
// `batch`), the same bits as Twed(), for pairs that share no run with each other. `rows` and
// `batch` hold as many series, with one channel count and the same lanes; PairsSupport holds.
absl::Status BatchTwedPairs(const LaneBatch& rows, const LaneBatch& batch, const TwedParams& params,
                            std::span<double> out, const CancellationToken* cancel = nullptr);

// As BatchTwedPairs, with each lane's edit path as TwedWithPath summarises it: the same distance,
// match count and mean time shift (the scalar kernel's tie order, the same sums in the same
// order), for the plan's pair diagnostics. The distance is +inf where Twed() reports that it
// overflows.
absl::Status BatchTwedPairsWithPath(const LaneBatch& rows, const LaneBatch& batch,
                                    const TwedParams& params, std::span<EditPathSummary> out,
                                    const CancellationToken* cancel = nullptr);

// As BatchTwed, lane k only as far as thresholds[k] (one per series of the batch) as
// TwedWithin: the cells that can lie on a path at or below it, and no strip of rows more once
// none can. Where within, the same bits as TwedWithin and Twed; otherwise the threshold, a lower
// bound, as TwedWithin gives (an overflowing distance is +inf, within only at threshold +inf:
// callers ask Twed for its error then).
absl::Status BatchTwedWithin(const Series& a, const LaneBatch& batch, const TwedParams& params,
                             std::span<const double> thresholds, std::span<BoundedTwed> out,
                             const CancellationToken* cancel = nullptr);

// For tests: the dispatch targets compiled in and supported by this CPU,
// best first, the portable scalar one last.
struct BatchTarget {
  int64_t id;
  std::string name;
};
std::vector<BatchTarget> AvailableBatchTargets();

// For tests: out[i] = sqrt(x[i]) as the dispatched kernel takes square
// roots where it may use the FMA ports (twed_sqrt-inl.h), for x[i] = 0 or in
// [2^-904, 2^805]; x.size() a multiple of BatchLanes().
void LaneSqrtForTest(std::span<const double> x, std::span<double> out);

// For tests: dispatches to `id` (one of AvailableBatchTargets()) from now
// on; 0 restores the best target.
void ForceBatchTarget(int64_t id);

// For tests: on AVX-512 targets, FmaSqrt (twed_sqrt-inl.h) takes the L2 lanes' square roots
// wherever the values allow (true) or never (false), from now on; nullopt restores the default,
// where it does so only if it is faster than the divider on this CPU.
void ForceFmaSqrtForTest(std::optional<bool> use);

}  // namespace wasserwarp::twed_internal

#endif  // WASSERWARP_SRC_TWED_TWED_BATCH_H_
