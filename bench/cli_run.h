// Runs the real CLI's `validate` as a child process, for the end-to-end benchmarks
// (e2e_bench.cc, path_sweep.cc): its wall and CPU seconds, peak memory, and JSON report.

#ifndef WASSERWARP_BENCH_CLI_RUN_H_
#define WASSERWARP_BENCH_CLI_RUN_H_

#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"

extern char** environ;

namespace wasserwarp::bench {

struct Measured {
  double seconds = 0.0;
  double cpu_seconds = 0.0;
  double peak_mib = 0.0;
  nlohmann::json report;
};

inline std::vector<char*> Argv(std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  return argv;
}

// Runs `args` to its end, its standard output to /dev/null where `quiet`; its report from
// `report_path`.
inline std::optional<Measured> RunValidate(std::vector<std::string> args,
                                           const std::string& report_path, std::string& error,
                                           bool quiet = false) {
  std::vector<char*> argv = Argv(args);
  const auto start = std::chrono::steady_clock::now();
  pid_t pid = 0;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (quiet) posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  const int failed = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (failed != 0) {
    error = std::string("cannot run ") + argv[0] + ": " + std::strerror(failed);
    return std::nullopt;
  }
  int status = 0;
  rusage usage{};
  if (wait4(pid, &status, 0, &usage) != pid) {
    error = "wait4 failed";
    return std::nullopt;
  }
  Measured measured;
  measured.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // 1 is a verdict of FAIL, with its report written like any other.
  if (!WIFEXITED(status) || (WEXITSTATUS(status) != 0 && WEXITSTATUS(status) != 1)) {
    error = "validate failed";
    return std::nullopt;
  }
  measured.peak_mib = static_cast<double>(usage.ru_maxrss) / 1024.0;
  measured.cpu_seconds =
      static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
      1e-6 * static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
  std::ifstream in(report_path);
  measured.report = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (measured.report.is_discarded() || !measured.report.contains("dp_cells")) {
    error = report_path + ": no dp_cells";
    return std::nullopt;
  }
  return measured;
}

}  // namespace wasserwarp::bench

#endif  // WASSERWARP_BENCH_CLI_RUN_H_
