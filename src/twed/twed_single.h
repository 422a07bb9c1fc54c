// A lower bound on TWED from the DP in single precision, rounded toward zero: twice the lanes of
// the double kernel (twed_batch.h) per vector, and within about 1e-4 of the TWED on runs of a few
// thousand samples, so that the lazy transport can price a pair out at half the cost of
// computing it. The proof that it never exceeds the TWED as the double kernels compute it is in
// docs/twed_bounds.md ("The single-precision bound").

#ifndef WASSERWARP_SRC_TWED_TWED_SINGLE_H_
#define WASSERWARP_SRC_TWED_TWED_SINGLE_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "twed/lane_records.h"
#include "wasserwarp/cancellation.h"
#include "wasserwarp/series.h"
#include "wasserwarp/twed.h"

namespace wasserwarp::twed_internal {

// Lanes per single-precision vector of the SIMD target dispatched to on this CPU; 0 when that
// target is the portable scalar one (then there is no single-precision bound).
size_t SingleLanes();

// Whether SingleTwedBound takes pairs of `channels`-channel series under `params`: where the
// double lanes do (BatchSupports) and SingleLanes() > 0.
bool SingleSupports(size_t channels, const TwedParams& params);

// Whether SingleTwedBoundOfPairs takes pairs of `channels`-channel series under `params`: where
// SingleSupports does, on up to 4 channels (the kernels that keep each lane's row sample in
// registers).
bool SinglePairsSupport(size_t channels, const TwedParams& params);

// Up to `lanes` column series side by side in single precision, as LaneBatch holds them in
// double (lane_records.h), with times and values taken relative to the first sample of the row
// series they are to meet, so that their roundings to single precision stay small; and per lane
// the largest rounding error of one sample's cost terms (see the proof).
class SingleLaneBatch : public LaneRecords<float> {
 public:
  // Every series valid with the same channel count, SingleSupports(channels, params) true.
  SingleLaneBatch(std::span<const Series* const> series, const Series& row,
                  const TwedParams& params, size_t lanes);
  // The same with lane k relative to rows[k]: the columns of pairs that share no run, and with
  // rows == series the row series of those pairs (SingleTwedBoundOfPairs).
  SingleLaneBatch(std::span<const Series* const> series, std::span<const Series* const> rows,
                  const TwedParams& params, size_t lanes);

  std::span<const double> rounding_errors() const { return rounding_errors_; }
  // Whether every value, time and deletion cost fits single precision with room to add up:
  // otherwise the bound is 0.
  bool moderate() const { return moderate_; }

 private:
  bool moderate_ = true;
  std::vector<double> rounding_errors_;
};

// out[k] <= Twed(a, k-th series of the batch) as the double kernels compute it, for
// k < batch.size(). `a` valid with the batch's channel count, `params` the batch's, and
// SingleLanes() still batch.lanes(); `a` should be the batch's row (any other run gives a valid
// bound, only looser). Cancelled, with `out` unspecified,
// once `cancel` is found cancelled.
absl::Status SingleTwedBound(const Series& a, const SingleLaneBatch& batch,
                             const TwedParams& params, std::span<double> out,
                             const CancellationToken* cancel = nullptr);

// As SingleTwedBound, with each lane's own row series: out[k] <= Twed(k-th series of `rows`,
// k-th of `batch`), for pairs that share no run with each other. `rows` is the row series relative
// to themselves, `batch` the columns relative to them, with as many series, one channel count and
// the same lanes; SinglePairsSupport holds.
absl::Status SingleTwedBoundOfPairs(const SingleLaneBatch& rows, const SingleLaneBatch& batch,
                                    const TwedParams& params, std::span<double> out,
                                    const CancellationToken* cancel = nullptr);

// The same for one pair, on lanes of which one is used: for tests.
absl::StatusOr<double> SingleTwedBoundOfPair(const Series& a, const Series& b,
                                             const TwedParams& params);

}  // namespace wasserwarp::twed_internal

#endif  // WASSERWARP_SRC_TWED_TWED_SINGLE_H_
