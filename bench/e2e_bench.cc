// End to end: generates the workload (e2e_workload.h), runs the real CLI's
// `validate` on it as a child process and prints DP cells per second, wall
// seconds and the child's peak resident memory.
//
//   e2e_bench --cli build/client/wasserwarp --dir build/e2e
//             [--runs 100] [--samples 2000] [--channels 1] [--seed 1]

#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "e2e_workload.h"
#include "nlohmann/json.hpp"

extern char** environ;

namespace wasserwarp::bench {
namespace {

int Fail(const std::string& message) {
  std::fprintf(stderr, "e2e_bench: %s\n", message.c_str());
  return 1;
}

int Main(int argc, char** argv) {
  std::map<std::string, std::string> flags = {
      {"--runs", "100"}, {"--samples", "2000"}, {"--channels", "1"}, {"--seed", "1"}};
  for (int k = 1; k + 1 < argc; k += 2) flags[argv[k]] = argv[k + 1];
  if (argc % 2 == 0 || !flags.count("--cli") || !flags.count("--dir")) {
    return Fail("usage: e2e_bench --cli PATH --dir DIR [--runs N] [--samples N] [--channels N]");
  }
  Workload workload;
  if (!absl::SimpleAtoi(flags["--runs"], &workload.runs) ||
      !absl::SimpleAtoi(flags["--samples"], &workload.samples) ||
      !absl::SimpleAtoi(flags["--channels"], &workload.channels) ||
      !absl::SimpleAtoi(flags["--seed"], &workload.seed) || workload.runs < 1 ||
      workload.samples < 1 || workload.channels < 1) {
    return Fail("--runs, --samples and --channels take positive integers, --seed an integer");
  }
  const std::filesystem::path dir = flags["--dir"];
  if (absl::Status written = WriteWorkload(workload, dir); !written.ok()) {
    return Fail(std::string(written.message()));
  }

  const std::string report = (dir / "report.json").string();
  std::vector<std::string> args = {
      flags["--cli"],         "validate", "--sim", (dir / "sim").string(), "--ref",
      (dir / "ref").string(), "--json",   report};
  std::vector<char*> child_argv;
  for (std::string& arg : args) child_argv.push_back(arg.data());
  child_argv.push_back(nullptr);

  const auto start = std::chrono::steady_clock::now();
  pid_t pid = 0;
  if (int error = posix_spawn(&pid, child_argv[0], nullptr, nullptr, child_argv.data(), environ);
      error != 0) {
    return Fail(std::string("cannot run ") + child_argv[0] + ": " + std::strerror(error));
  }
  int status = 0;
  rusage usage{};
  if (wait4(pid, &status, 0, &usage) != pid) return Fail("wait4 failed");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return Fail("validate failed");

  std::ifstream in(report);
  const nlohmann::json json = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded() || !json.contains("dp_cells")) return Fail(report + ": no dp_cells");
  const double cells = json["dp_cells"].get<double>();
  std::printf(
      "e2e: validate of %d x %d runs of %d samples, %d channel(s): %.4g DP cells in %.2f s = "
      "%.3g cells/s; peak resident memory %.1f MiB; user+sys CPU %.2f s\n",
      workload.runs, workload.runs, workload.samples, workload.channels, cells, seconds,
      cells / seconds, static_cast<double>(usage.ru_maxrss) / 1024.0,
      static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
          1e-6 * static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec));
  return 0;
}

}  // namespace
}  // namespace wasserwarp::bench

int main(int argc, char** argv) { return wasserwarp::bench::Main(argc, argv); }
