// Reading runs from files as a bench writes them: an MDF 4 file of many channels of which a
// validation reads a few, against the same samples of those few channels as wasserwarp's CSV.
// Bytes per second count the file read; values per second the samples x channels delivered.
//
//   build/bench/run_files_bench [--benchmark_filter=...]

#include <benchmark/benchmark.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "mdf4_writer.h"
#include "temporary_directory.h"
#include "wasserwarp/csv.h"
#include "wasserwarp/run_files.h"

namespace wasserwarp {
namespace {

using test_support::Le;
using test_support::LeDouble;
using test_support::Mdf4ChannelSpec;
using test_support::Mdf4Writer;

constexpr uint64_t kRecords = 200'000;
constexpr int kChannels = 64;  // float64 channels besides the time
constexpr int kSelected = 3;   // the ones a validation reads
const std::vector<std::string> kNames = {"c7", "c31", "c60"};

double Value(uint64_t record, int channel) {
  return static_cast<double>((record * 2654435761u + static_cast<uint64_t>(channel) * 40503u) %
                             100003u) *
         1e-3;
}

// One sorted data group of kRecords records: the time and kChannels float64 channels.
std::string MdfFile() {
  Mdf4Writer w;
  std::vector<Mdf4ChannelSpec> channels = {
      {.name = "time", .channel_type = 2, .sync_type = 1, .unit = "s"}};
  for (int c = 0; c < kChannels; ++c) {
    channels.push_back({.name = "c" + std::to_string(c), .byte_offset = 8u * (c + 1)});
  }
  std::string data;
  data.reserve(kRecords * 8 * (kChannels + 1));
  for (uint64_t r = 0; r < kRecords; ++r) {
    data += LeDouble(0.001 * static_cast<double>(r));
    for (int c = 0; c < kChannels; ++c) data += LeDouble(Value(r, c));
  }
  w.DataGroup(0,
              {{.name = "bench",
                .cycles = kRecords,
                .data_bytes = 8u * (kChannels + 1),
                .channels = channels}},
              w.Dt(data));
  return w.bytes();
}

// The same samples of the selected channels as a run file.
std::string CsvFile() {
  Series run;
  run.id = "run";
  run.channels = kNames;
  for (uint64_t r = 0; r < kRecords; ++r) {
    run.times.push_back(0.001 * static_cast<double>(r));
    for (const std::string& name : kNames)
      run.values.push_back(Value(r, std::stoi(name.substr(1))));
  }
  return *FormatSeriesCsv(run);
}

struct Files {
  bench::TemporaryDirectory dir{"run_files_bench_"};
  std::string mdf = Write("run.mf4", MdfFile());
  std::string csv = Write("run.csv", CsvFile());

  std::string Write(const std::string& name, const std::string& content) {
    const std::string path = (std::filesystem::path(dir.path()) / name).string();
    std::ofstream(path, std::ios::binary) << content;
    return path;
  }
};

const Files& TheFiles() {
  static const Files* const files = new Files();
  return *files;
}

void Read(benchmark::State& state, const std::string& path) {
  RunFileOptions options;
  if (path.ends_with(".mf4")) options.channels = kNames;
  const auto bytes = static_cast<int64_t>(std::filesystem::file_size(path));
  for (auto _ : state) {
    std::vector<std::string> notes;
    absl::StatusOr<Series> run = ReadRunFile(path, options, notes);
    if (!run.ok() || run->samples() != kRecords || run->num_channels() != kSelected) {
      state.SkipWithError("the run did not read back");
      return;
    }
    benchmark::DoNotOptimize(run->values.data());
  }
  state.SetBytesProcessed(state.iterations() * bytes);
  state.counters["values/s"] =
      benchmark::Counter(static_cast<double>(state.iterations() * kRecords * (kSelected + 1)),
                         benchmark::Counter::kIsRate);
  state.counters["file_MB"] = static_cast<double>(bytes) / 1e6;
}

// 3 of 64 channels (104 MB of records).
void BM_Mdf4FewOfManyChannels(benchmark::State& state) { Read(state, TheFiles().mdf); }
BENCHMARK(BM_Mdf4FewOfManyChannels)->Unit(benchmark::kMillisecond)->UseRealTime();

// The same 3 channels' samples as CSV.
void BM_CsvSameSamples(benchmark::State& state) { Read(state, TheFiles().csv); }
BENCHMARK(BM_CsvSameSamples)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace wasserwarp

BENCHMARK_MAIN();
