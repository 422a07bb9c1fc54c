// The CSV readers on arbitrary bytes, as a run file (ParseSeriesCsv) and as a
// weights file (ReadWeightsCsv). Either the input is refused with an
// InvalidArgument that starts with the file's name, or what was read holds
// together: a run is valid and reads back bit for bit from its own shortest
// round-trip printing; weights are finite and non-negative.

#include <sys/mman.h>
#include <unistd.h>

#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "wasserwarp/csv.h"
#include "wasserwarp/series.h"

namespace wasserwarp::fuzz {
namespace {

constexpr char kRunSource[] = "fuzz.csv";

void Require(bool condition, std::string_view what) {
  if (condition) return;
  std::fprintf(stderr, "csv_fuzz: %.*s\n", static_cast<int>(what.size()), what.data());
  std::abort();
}

void RequireRefusal(const absl::Status& status, std::string_view source) {
  Require(status.code() == absl::StatusCode::kInvalidArgument,
          absl::StrCat("unexpected status ", status.ToString()));
  Require(absl::StartsWith(status.message(), absl::string_view(source.data(), source.size())),
          absl::StrCat("error does not name the file: ", status.message()));
}

std::string Shortest(double x) {
  char buffer[32];
  const std::to_chars_result result = std::to_chars(buffer, buffer + sizeof(buffer), x);
  return std::string(buffer, result.ptr);
}

std::string PrintCsv(const Series& run) {
  std::string text = "time";
  for (const std::string& channel : run.channels) absl::StrAppend(&text, ",", channel);
  text += "\n";
  for (size_t i = 0; i < run.samples(); ++i) {
    text += Shortest(run.times[i]);
    for (size_t c = 0; c < run.num_channels(); ++c) {
      absl::StrAppend(&text, ",", Shortest(run.value(i, c)));
    }
    text += "\n";
  }
  return text;
}

bool SameBits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

void CheckRunFile(std::string_view content) {
  const absl::StatusOr<Series> run = ParseSeriesCsv(content, kRunSource, "fuzz");
  if (!run.ok()) {
    RequireRefusal(run.status(), kRunSource);
    return;
  }
  Require(ValidateSeries(*run).ok(), "a parsed run fails ValidateSeries");
  const absl::StatusOr<Series> again = ParseSeriesCsv(PrintCsv(*run), kRunSource, "fuzz");
  Require(again.ok(), absl::StrCat("a parsed run does not parse back: ",
                                   again.ok() ? "" : again.status().ToString()));
  Require(again->channels == run->channels, "channels change on the round trip");
  Require(SameBits(again->times, run->times), "times change on the round trip");
  Require(SameBits(again->values, run->values), "values change on the round trip");
}

// ReadWeightsCsv takes a path: the input goes through an in-memory file.
void CheckWeightsFile(std::string_view content) {
  static const int fd = memfd_create("weights.csv", 0);
  Require(fd >= 0, "memfd_create failed");
  Require(ftruncate(fd, 0) == 0, "ftruncate failed");
  Require(pwrite(fd, content.data(), content.size(), 0) == static_cast<ssize_t>(content.size()),
          "pwrite failed");
  const std::string path = absl::StrCat("/proc/self/fd/", fd);
  const absl::StatusOr<std::map<std::string, double>> weights = ReadWeightsCsv(path);
  if (!weights.ok()) {
    RequireRefusal(weights.status(), path);
    return;
  }
  Require(!weights->empty(), "no weights, yet no error");
  for (const auto& [id, weight] : *weights) {
    Require(!id.empty(), "a weight for an empty run id");
    Require(std::isfinite(weight) && weight >= 0.0,
            absl::StrCat("weight ", Shortest(weight), " accepted for \"", id, "\""));
  }
}

}  // namespace
}  // namespace wasserwarp::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view content(reinterpret_cast<const char*>(data), size);
  wasserwarp::fuzz::CheckRunFile(content);
  wasserwarp::fuzz::CheckWeightsFile(content);
  return 0;
}
