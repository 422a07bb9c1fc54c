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

// Where runs go to single precision from: per channel a value, and a time, that every run of one
// computation is shifted by before its rounding to float. The TWED depends on differences only,
// so any origin gives a valid bound; one near the runs keeps the floats' roundings small.
struct SingleOrigin {
  std::vector<double> values;  // one per channel
  double time = 0.0;
};

// The first sample of `run`: near every run of a manoeuvre, and for a pair taken alone its row's.
SingleOrigin OriginAt(const Series& run);

// One run in single precision relative to an origin, as the lanes read it: per sample its values,
// time and deletion cost (rounded down from the double kernels' own), and the largest rounding
// error of one sample's cost terms, sum_k e(x_k) + nu e(t) (see the proof). Converted once per run
// and computation, however many pairs the run is in.
struct SingleRun {
  size_t channels = 0;
  std::vector<float> values;  // sample 0 (zeros) first, then samples 1..n, `channels` each
  std::vector<float> times;
  std::vector<float> dels;
  double rounding_error = 0.0;
  // Whether every value, time and deletion cost fits single precision with room to add up:
  // otherwise every bound of the run is 0.
  bool moderate = true;

  ptrdiff_t samples() const { return static_cast<ptrdiff_t>(times.size()) - 1; }
};

// `run` (valid, SingleSupports its channel count under `params`) relative to `origin`, which has
// one value per channel of `run`.
SingleRun ToSingleRun(const Series& run, const SingleOrigin& origin, const TwedParams& params);

// Up to `lanes` runs side by side in single precision, as LaneBatch holds series in double
// (lane_records.h), all relative to one origin, with per lane its run's rounding error.
class SingleLaneBatch : public LaneRecords<float> {
 public:
  // At least one run, all with the same channel count.
  SingleLaneBatch(std::span<const SingleRun* const> runs, size_t lanes);

  std::span<const double> rounding_errors() const { return rounding_errors_; }
  // Whether every run of the batch is moderate.
  bool moderate() const { return moderate_; }

 private:
  bool moderate_ = true;
  std::vector<double> rounding_errors_;
};

// out[k] <= Twed(a, k-th series of the batch) as the double kernels compute it, for
// k < batch.size(), with `row` the single-precision run of `a` relative to the batch's origin.
// `params` the batch's, and SingleLanes() still batch.lanes(). Cancelled, with `out` unspecified,
// once `cancel` is found cancelled.
absl::Status SingleTwedBound(const SingleRun& row, const SingleLaneBatch& batch,
                             const TwedParams& params, std::span<double> out,
                             const CancellationToken* cancel = nullptr);

// As SingleTwedBound, with each lane's own row series: out[k] <= Twed(k-th series of `rows`,
// k-th of `batch`), for pairs that share no run with each other. `rows` and `batch` relative to one
// origin, with as many series, one channel count and the same lanes; SinglePairsSupport holds.
absl::Status SingleTwedBoundOfPairs(const SingleLaneBatch& rows, const SingleLaneBatch& batch,
                                    const TwedParams& params, std::span<double> out,
                                    const CancellationToken* cancel = nullptr);

// The same for one pair, relative to OriginAt(a), on lanes of which one is used: for tests.
absl::StatusOr<double> SingleTwedBoundOfPair(const Series& a, const Series& b,
                                             const TwedParams& params);

}  // namespace wasserwarp::twed_internal

#endif  // WASSERWARP_SRC_TWED_TWED_SINGLE_H_
