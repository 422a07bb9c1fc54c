// Random transport instances between two sets of runs, for checking the lazy transport against
// the exhaustive one: set sizes 1..25, square and not, runs of 1..200 samples, sets clustered by
// level or by length (where bounds can price out most pairs) and spread ones (where they price
// out few), time windows, user weights with zeros, duplicate runs and runs 1e-13 apart
// (near-ties in the plan).
//
// Only std::mt19937_64's raw output is used: <random>'s distributions differ
// between standard libraries, and a failing seed must name the same instance
// under GCC and Clang.

#ifndef WASSERWARP_TESTS_LAZY_TRANSPORT_INSTANCES_H_
#define WASSERWARP_TESTS_LAZY_TRANSPORT_INSTANCES_H_

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numbers>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "wasserwarp/series.h"
#include "wasserwarp/transport.h"
#include "wasserwarp/twed.h"

namespace wasserwarp::test_data {

class InstanceRandom {
 public:
  explicit InstanceRandom(uint64_t seed) : rng_(seed) {}
  // Uniform in [0, 1), from the top 53 bits.
  double Uniform() { return static_cast<double>(rng_() >> 11) * 0x1p-53; }
  double Uniform(double low, double high) { return low + (high - low) * Uniform(); }
  // Uniform in [low, high].
  size_t Between(size_t low, size_t high) { return low + rng_() % (high - low + 1); }
  bool Chance(double p) { return Uniform() < p; }
  double Normal() {
    const double u = 1.0 - Uniform();
    return std::sqrt(-2.0 * std::log(u)) * std::cos(2.0 * std::numbers::pi * Uniform());
  }

 private:
  std::mt19937_64 rng_;
};

struct LazyInstance {
  uint64_t seed = 0;
  std::vector<Series> rows;
  std::vector<Series> cols;
  TwedParams twed;
  TransportOptions transport;
  std::vector<std::string> traits;  // how the sets were drawn, for failure messages
};

inline std::string Describe(const LazyInstance& c) {
  size_t min_len = SIZE_MAX;
  size_t max_len = 0;
  for (const auto* set : {&c.rows, &c.cols}) {
    for (const Series& s : *set) {
      min_len = std::min(min_len, s.samples());
      max_len = std::max(max_len, s.samples());
    }
  }
  std::string s = absl::StrCat("seed=", c.seed, " n=", c.rows.size(), " m=", c.cols.size(),
                               " d=", c.rows.empty() ? 0 : c.rows.front().num_channels(),
                               " len=", min_len, "..", max_len, " q=", c.transport.order,
                               " nu=", c.twed.nu, " lambda=", c.twed.lambda, " p=", c.twed.p,
                               " weights=", c.transport.row_weights.empty() ? "uniform" : "user");
  if (c.twed.time_window) absl::StrAppend(&s, " w=", *c.twed.time_window);
  absl::StrAppend(&s, " [", absl::StrJoin(c.traits, ","), "]");
  return s;
}

// How long the runs of one instance are: mostly short, some very long, some of both.
enum class Lengths { kShort, kMedium, kLong, kMixed };

inline size_t DrawLength(InstanceRandom& random, Lengths lengths) {
  switch (lengths) {
    case Lengths::kShort:
      return random.Between(1, 8);
    case Lengths::kMedium:
      return random.Between(5, 60);
    case Lengths::kLong:
      return random.Between(100, 200);
    case Lengths::kMixed:
      break;
  }
  const size_t kind = random.Between(0, 3);
  return kind == 0 ? 1 : kind == 3 ? random.Between(100, 200) : random.Between(2, 40);
}

// A Gaussian random walk of `samples` samples at `level`.
inline std::vector<double> WalkValues(InstanceRandom& random, size_t samples, size_t d,
                                      double level) {
  std::vector<double> values;
  std::vector<double> x(d, level);
  for (size_t i = 0; i < samples; ++i) {
    for (double& v : x) {
      v += random.Normal();
      values.push_back(v);
    }
  }
  return values;
}

// Times for `samples` samples: inside [0, 1] with jitter when `windowed` (so
// that every run spans the same interval and a window wider than any gap
// leaves a path), else about 100 Hz after a start offset of up to 0.3 s.
inline std::vector<double> DrawTimes(InstanceRandom& random, size_t samples, bool windowed) {
  std::vector<double> times;
  double t = random.Uniform(0.0, 0.3);
  for (size_t i = 0; i < samples; ++i) {
    if (windowed) {
      times.push_back((static_cast<double>(i) + random.Uniform(0.3, 0.7)) / samples);
    } else {
      times.push_back(t);
      t += 0.01 * random.Uniform(0.9, 1.1);
    }
  }
  return times;
}

inline Series MakeRun(std::string id, size_t d, std::vector<double> times,
                      std::vector<double> values) {
  Series run{
      .id = std::move(id), .channels = {}, .times = std::move(times), .values = std::move(values)};
  for (size_t k = 0; k < d; ++k) run.channels.push_back(absl::StrCat("c", k));
  return run;
}

// `proto` with a tenth of its samples dropped (the first kept) and a little noise: a run of the
// same cluster.
inline Series NoisyCopy(InstanceRandom& random, const Series& proto, std::string id) {
  Series run = MakeRun(std::move(id), proto.num_channels(), {}, {});
  for (size_t i = 0; i < proto.samples(); ++i) {
    if (i > 0 && random.Chance(0.1)) continue;
    run.times.push_back(proto.times[i]);
    for (size_t k = 0; k < proto.num_channels(); ++k) {
      run.values.push_back(proto.value(i, k) + 0.05 * random.Normal());
    }
  }
  return run;
}

// Clustered: a few prototypes far apart in level and every run a noisy copy of one, so that
// cross-cluster pairs are priced out by their bounds. Spread: independent walks at one level.
inline std::vector<Series> DrawSet(InstanceRandom& random, const std::string& prefix, size_t count,
                                   size_t d, Lengths lengths, bool windowed,
                                   const std::vector<Series>& protos) {
  std::vector<Series> set;
  for (size_t k = 0; k < count; ++k) {
    const std::string id = absl::StrCat(prefix, k);
    if (!protos.empty()) {
      set.push_back(NoisyCopy(random, protos[random.Between(0, protos.size() - 1)], id));
    } else {
      const size_t samples = DrawLength(random, lengths);
      std::vector<double> times = DrawTimes(random, samples, windowed);
      set.push_back(MakeRun(id, d, std::move(times), WalkValues(random, samples, d, 0.0)));
    }
  }
  return set;
}

// The widest gap of any run in [0, 1], ends included: a window at least that wide leaves a path
// between any two runs drawn with DrawTimes(windowed = true).
inline double WidestGap(const std::vector<Series>& rows, const std::vector<Series>& cols) {
  double widest = 0.0;
  for (const auto* set : {&rows, &cols}) {
    for (const Series& s : *set) {
      double prev = 0.0;
      for (double t : s.times) {
        widest = std::max(widest, t - prev);
        prev = t;
      }
      widest = std::max(widest, 1.0 - prev);
    }
  }
  return widest;
}

inline std::vector<double> DrawWeights(InstanceRandom& random, size_t count, double zero_share) {
  std::vector<double> weights(count);
  for (double& w : weights) w = random.Chance(zero_share) ? 0.0 : random.Uniform(0.1, 3.0);
  weights[random.Between(0, count - 1)] = random.Uniform(0.1, 3.0);  // never all zero
  return weights;
}

// `run` with every value moved by 1e-13 of itself: a pair whose cost ties with the run's own up
// to rounding.
inline Series NearTwin(const Series& run, std::string id) {
  Series twin = run;
  twin.id = std::move(id);
  for (double& x : twin.values) x += 1e-13 * (x == 0.0 ? 1.0 : std::abs(x));
  return twin;
}

// `run` held at its first sample's values: a pair of such runs has bounds equal to its TWED up to
// rounding (docs/twed_bounds.md), so these are the pairs where a bound can land an ulp above.
inline Series Flattened(Series run) {
  const size_t d = run.num_channels();
  for (size_t i = d; i < run.values.size(); ++i) run.values[i] = run.values[i % d];
  return run;
}

// Runs on a ladder of lengths 8, 16, ..., 200 (each +-1) that wander little: with lambda well
// above the steps, every pair's TWED is its deletion floor lambda |n - m| plus a little, so the
// floor prices out all but the pairs of nearby rungs, and those hold a small share of the cells.
// In rung order when `sorted`, so that the first pairs computed (spread along the diagonal) are
// cheap ones.
inline std::vector<Series> LengthLadder(InstanceRandom& random, const std::string& prefix,
                                        size_t count, size_t d, bool sorted) {
  std::vector<size_t> lengths;
  for (size_t k = 0; k < count; ++k) {
    const size_t rung = 8 * random.Between(1, 25);
    lengths.push_back(random.Between(rung - 1, rung + 1));
  }
  if (sorted) std::sort(lengths.begin(), lengths.end());
  std::vector<Series> set;
  for (size_t k = 0; k < count; ++k) {
    std::vector<double> values = WalkValues(random, lengths[k], d, 0.0);
    for (double& x : values) x *= 0.001;
    std::vector<double> times = DrawTimes(random, lengths[k], false);
    set.push_back(MakeRun(absl::StrCat(prefix, k), d, std::move(times), std::move(values)));
  }
  return set;
}

inline LazyInstance RandomLazyInstance(uint64_t seed) {
  InstanceRandom random(seed);
  LazyInstance c;
  c.seed = seed;
  const Lengths lengths = static_cast<Lengths>(random.Between(0, 3));
  // Long runs in small sets only, so that the whole sweep stays within seconds.
  const size_t max_size = lengths == Lengths::kLong ? 12 : 25;
  const size_t n = random.Between(1, max_size);
  const size_t m = random.Chance(0.5) ? n : random.Between(1, max_size);
  const size_t d = random.Chance(0.5) ? 1 : 3;
  // 0: clustered by level, 1: spread, 2: clustered by length and 3: a ladder of lengths, where
  // the deletion floor lambda |n - m| prices out the pairs across clusters or rungs before any DP.
  const size_t structure = random.Between(0, 3);
  const bool windowed = structure < 2 && random.Chance(0.3);

  std::vector<Series> protos;
  if (structure == 0) {
    c.traits.push_back("clustered");
    for (size_t k = 0, count = random.Between(1, 3); k < count; ++k) {
      const size_t samples = std::max<size_t>(DrawLength(random, lengths), windowed ? 5 : 1);
      std::vector<double> times = DrawTimes(random, samples, windowed);
      protos.push_back(MakeRun(absl::StrCat("proto", k), d, std::move(times),
                               WalkValues(random, samples, d, 20.0 * k)));
    }
  } else if (structure == 2) {
    c.traits.push_back("length_clusters");
    const size_t bands[][2] = {{1, 3}, {15, 30}, {120, 200}};
    const size_t first = random.Between(0, 2);
    for (size_t k = 0, count = random.Between(2, 3); k < count; ++k) {
      const size_t* band = bands[(first + k) % 3];
      const size_t samples = random.Between(band[0], band[1]);
      std::vector<double> times = DrawTimes(random, samples, false);
      protos.push_back(MakeRun(absl::StrCat("proto", k), d, std::move(times),
                               WalkValues(random, samples, d, 0.0)));
    }
  } else if (structure == 1) {
    c.traits.push_back("spread");
  }
  if (structure == 3) {
    const bool sorted = random.Chance(0.5);
    c.traits.push_back(sorted ? "sorted_ladder" : "shuffled_ladder");
    c.rows = LengthLadder(random, "sim", n, d, sorted);
    c.cols = LengthLadder(random, "ref", m, d, sorted);
  } else {
    c.rows = DrawSet(random, "sim", n, d, lengths, windowed, protos);
    c.cols = DrawSet(random, "ref", m, d, lengths, windowed, protos);
  }

  if (random.Chance(0.3) && n >= 2) {
    c.traits.push_back("duplicate_row");
    c.rows[n - 1] = c.rows[0];
  }
  if (random.Chance(0.3) && m >= 2) {
    c.traits.push_back("duplicate_col");
    c.cols[0] = c.cols[m - 1];
  }
  if (random.Chance(0.3) && n >= 2) {
    c.traits.push_back("near_tie_rows");
    c.rows[1] = NearTwin(c.rows[0], "sim_twin");
  }
  if (random.Chance(0.3)) {
    c.traits.push_back("near_tie_across");
    c.cols[m - 1] = NearTwin(c.rows[0], "ref_twin");
  }
  if (random.Chance(0.2)) {
    c.traits.push_back("flat_runs");
    for (auto* set : {&c.rows, &c.cols}) {
      for (Series& run : *set) {
        if (random.Chance(0.5)) run = Flattened(std::move(run));
      }
    }
  }
  if (random.Chance(0.05) && n == m) {
    c.traits.push_back("same_sets");
    c.cols = c.rows;
  }

  // One draw per statement: the order of a call's arguments is the compiler's choice.
  const double nus[] = {0.001, 0.1, 1.0};
  c.twed.nu = nus[random.Between(0, 2)];
  if (structure >= 2) {
    c.twed.lambda = random.Uniform(0.3, 2.0);
  } else {
    c.twed.lambda = random.Chance(0.5) ? 0.0 : random.Uniform(0.05, 2.0);
  }
  c.twed.p = random.Chance(0.5) ? 1.0 : 2.0;
  if (windowed) {
    const double widest = WidestGap(c.rows, c.cols);
    c.twed.time_window = widest * random.Uniform(1.01, 4.0);
  }

  c.transport.order = random.Chance(0.5) ? 1.0 : 2.0;
  if (random.Chance(1.0 / 40)) c.transport.order = 1.5;
  switch (random.Between(0, 2)) {
    case 0:
      break;  // uniform
    case 1:
      c.transport.row_weights = DrawWeights(random, n, 0.0);
      c.transport.col_weights = DrawWeights(random, m, 0.0);
      break;
    default:
      c.transport.row_weights = DrawWeights(random, n, 0.3);
      c.transport.col_weights = DrawWeights(random, m, 0.3);
      c.traits.push_back("zero_weights");
      break;
  }
  return c;
}

}  // namespace wasserwarp::test_data

#endif  // WASSERWARP_TESTS_LAZY_TRANSPORT_INSTANCES_H_
