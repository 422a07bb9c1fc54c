#include "wasserwarp/tolerance_band.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "wasserwarp/field_error.h"

namespace wasserwarp {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

absl::Status SpecError(std::string_view spec, absl::string_view problem) {
  return absl::InvalidArgumentError(absl::StrCat("band \"", std::string(spec), "\": ", problem));
}

// The term of `band` that `key` names; nullptr for an unknown key.
double* TermOf(ToleranceBand& band, absl::string_view key) {
  if (key == "abs") return &band.abs;
  if (key == "rel") return &band.rel;
  if (key == "lead") return &band.lead;
  if (key == "lag") return &band.lag;
  return nullptr;
}

// Walks increasing times forward: the value of a run at times that never decrease, linearly
// interpolated between its samples and clamped to its range; on a sample, the sample's value.
class ForwardInterpolator {
 public:
  ForwardInterpolator(const std::vector<double>& times, const std::vector<double>& values)
      : times_(times), values_(values) {}

  double At(double t) {
    while (left_ + 1 < times_.size() && times_[left_ + 1] <= t) ++left_;
    if (left_ + 1 == times_.size() || t <= times_[left_]) return values_[left_];
    const double share = (t - times_[left_]) / (times_[left_ + 1] - times_[left_]);
    return values_[left_] + share * (values_[left_ + 1] - values_[left_]);
  }

 private:
  const std::vector<double>& times_;
  const std::vector<double>& values_;
  size_t left_ = 0;
};

std::vector<double> ChannelValues(const Series& run, size_t channel, double divisor) {
  std::vector<double> values(run.samples());
  for (size_t i = 0; i < run.samples(); ++i) values[i] = run.value(i, channel) * divisor;
  return values;
}

}  // namespace

absl::StatusOr<ToleranceBand> ParseToleranceBand(std::string_view spec) {
  const size_t colon = spec.rfind(':');
  if (colon == std::string_view::npos) {
    return SpecError(spec, "expected CHANNEL:abs=A,rel=R,lead=S,lag=S");
  }
  ToleranceBand band;
  band.channel = std::string(spec.substr(0, colon));
  if (band.channel.empty()) return SpecError(spec, "names no channel before ':'");
  const absl::string_view terms(spec.data() + colon + 1, spec.size() - colon - 1);
  if (terms.empty()) return SpecError(spec, "gives no tolerance after ':'");
  std::set<std::string> seen;
  for (absl::string_view term : absl::StrSplit(terms, ',')) {
    const std::vector<absl::string_view> key_value = absl::StrSplit(term, absl::MaxSplits('=', 1));
    if (key_value.size() != 2) {
      return SpecError(spec, absl::StrCat("term \"", term, "\" is not KEY=VALUE"));
    }
    double* target = TermOf(band, key_value[0]);
    if (target == nullptr) {
      return SpecError(spec,
                       absl::StrCat("unknown term \"", key_value[0], "\" (abs, rel, lead or lag)"));
    }
    if (!seen.insert(std::string(key_value[0])).second) {
      return SpecError(spec, absl::StrCat("term \"", key_value[0], "\" is given twice"));
    }
    if (!absl::SimpleAtod(key_value[1], target)) {
      return SpecError(spec, absl::StrCat(key_value[0], " \"", key_value[1], "\" is not a number"));
    }
  }
  return band;
}

std::string ToleranceBandSpec(const ToleranceBand& band) {
  return absl::StrCat(band.channel, ":abs=", band.abs, ",rel=", band.rel, ",lead=", band.lead,
                      ",lag=", band.lag);
}

absl::Status ValidateToleranceBands(const std::vector<ToleranceBand>& bands) {
  std::set<std::string> channels;
  for (const ToleranceBand& band : bands) {
    const std::pair<const char*, double> terms[] = {
        {"abs", band.abs}, {"rel", band.rel}, {"lead", band.lead}, {"lag", band.lag}};
    for (const auto& [name, value] : terms) {
      if (!(std::isfinite(value) && value >= 0.0)) {
        return InvalidFieldError("bands",
                                 absl::StrCat("band of channel \"", band.channel, "\": ", name,
                                              " must be a finite number >= 0, got ", value));
      }
    }
    if (band.channel.empty()) return InvalidFieldError("bands", "a band names no channel");
    if (!channels.insert(band.channel).second) {
      return InvalidFieldError("bands",
                               absl::StrCat("channel \"", band.channel, "\" has two bands"));
    }
  }
  return absl::OkStatus();
}

BandEnvelope ToleranceEnvelope(const std::vector<double>& times, const std::vector<double>& values,
                               const ToleranceBand& band) {
  const size_t n = times.size();
  BandEnvelope envelope{std::vector<double>(n), std::vector<double>(n)};
  if (n == 0) return envelope;
  ForwardInterpolator at_start(times, values);
  ForwardInterpolator at_end(times, values);
  // Indices of the samples inside the window whose values decrease (for the maximum) or
  // increase (for the minimum) from the front: each sample enters and leaves once.
  std::deque<size_t> maxima;
  std::deque<size_t> minima;
  size_t next = 0;  // the first sample not yet inside
  for (size_t k = 0; k < n; ++k) {
    const double start = std::max(times[k] - band.lag, times.front());
    const double end = std::min(times[k] + band.lead, times.back());
    for (; next < n && times[next] <= end; ++next) {
      while (!maxima.empty() && values[maxima.back()] <= values[next]) maxima.pop_back();
      maxima.push_back(next);
      while (!minima.empty() && values[minima.back()] >= values[next]) minima.pop_back();
      minima.push_back(next);
    }
    while (times[maxima.front()] < start) maxima.pop_front();
    while (times[minima.front()] < start) minima.pop_front();
    const double start_value = at_start.At(start);
    const double end_value = at_end.At(end);
    const double tolerance = std::max(band.abs, band.rel * std::abs(values[k]));
    envelope.lower[k] = std::min({values[minima.front()], start_value, end_value}) - tolerance;
    envelope.upper[k] = std::max({values[maxima.front()], start_value, end_value}) + tolerance;
  }
  return envelope;
}

BandScore ScoreToleranceBand(const Series& sim, const Series& ref, size_t channel, double divisor,
                             const ToleranceBand& band) {
  BandScore score{.samples = 0, .inside = kNaN, .max_excursion = kNaN, .first_violation = {}};
  if (sim.samples() == 0 || ref.samples() == 0) return score;
  const double from = std::max(sim.times.front(), ref.times.front());
  const double to = std::min(sim.times.back(), ref.times.back());
  const std::vector<double> ref_values = ChannelValues(ref, channel, divisor);
  const std::vector<double> sim_values = ChannelValues(sim, channel, divisor);
  const BandEnvelope envelope = ToleranceEnvelope(ref.times, ref_values, band);
  ForwardInterpolator simulated(sim.times, sim_values);
  uint64_t inside = 0;
  double max_excursion = 0.0;
  for (size_t k = 0; k < ref.samples(); ++k) {
    const double t = ref.times[k];
    if (t < from || t > to) continue;
    ++score.samples;
    const double value = simulated.At(t);
    const double excursion = std::max({envelope.lower[k] - value, value - envelope.upper[k], 0.0});
    if (excursion == 0.0) {
      ++inside;
      continue;
    }
    max_excursion = std::max(max_excursion, excursion);
    if (!score.first_violation.has_value()) score.first_violation = t;
  }
  if (score.samples == 0) return score;
  score.inside = static_cast<double>(inside) / static_cast<double>(score.samples);
  score.max_excursion = max_excursion;
  return score;
}

double WorstBandInside(const std::vector<PairBand>& pairs) {
  double worst = 1.0;
  for (const PairBand& pair : pairs) {
    worst = std::min(worst, std::isnan(pair.score.inside) ? 0.0 : pair.score.inside);
  }
  return worst;
}

}  // namespace wasserwarp
