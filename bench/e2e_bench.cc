// End to end: generates the workload (e2e_workload.h), runs the real CLI's `validate` on it as
// a child process, lazily (the default) and with --exhaustive, and prints DP cells per second,
// wall seconds and the child's peak resident memory of each, and the lazy transport's speed-up.
// With --server, the exhaustive validation also goes through a real `wasserwarp-server` (SQLite,
// loopback) twice: its cost matrix whole, and in tiles (--tile_cells), which prints the overhead
// of tiling in one process and checks that the reports agree. With
// --postgres_url too, it runs the validation on 1, 2, ... --replicas servers sharing that
// database and prints each one's share of the tiles and the wall time.
//
//   e2e_bench --cli build/client/wasserwarp --dir build/e2e
//             [--runs 100] [--samples 2000] [--channels 1] [--seed 1]
//             [--server build/server/wasserwarp-server] [--tile_cells 1073741824]
//             [--repeat 3] [--postgres_url postgresql://...] [--replicas 3]

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "cli_run.h"
#include "e2e_workload.h"
#include "nlohmann/json.hpp"

extern char** environ;

namespace wasserwarp::bench {
namespace {

int Fail(const std::string& message) {
  std::fprintf(stderr, "e2e_bench: %s\n", message.c_str());
  return 1;
}

// A `wasserwarp-server` child on a free loopback port, stopped with SIGTERM at the end.
class Server {
 public:
  Server(std::string program, std::vector<std::string> flags) {
    int out[2];
    if (pipe2(out, O_CLOEXEC) != 0) return;
    std::vector<std::string> args = {std::move(program), "--listen", "127.0.0.1:0",
                                     "--log_level=warn"};
    args.insert(args.end(), flags.begin(), flags.end());
    std::vector<char*> argv = Argv(args);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    const int failed = posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    close(out[1]);
    if (failed != 0) {
      pid_ = -1;
      close(out[0]);
      return;
    }
    std::string line;
    char c = 0;
    pollfd ready = {out[0], POLLIN, 0};
    while (line.find('\n') == std::string::npos && poll(&ready, 1, 30000) > 0 &&
           read(out[0], &c, 1) == 1) {
      line.push_back(c);
    }
    close(out[0]);
    constexpr char kPrefix[] = "listening on ";
    if (absl::StartsWith(line, kPrefix)) {
      address_ = line.substr(sizeof kPrefix - 1, line.find('\n') - (sizeof kPrefix - 1));
    }
  }
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;
  ~Server() {
    if (pid_ <= 0) return;
    kill(pid_, SIGTERM);
    waitpid(pid_, nullptr, 0);
  }

  // Empty when it did not start.
  const std::string& address() const { return address_; }

 private:
  pid_t pid_ = -1;
  std::string address_;
};

// The report without what differs between identical runs: the wall time and, through a
// server, who computed the tiles.
// The report less what says how it was computed, which differs between the lazy transport (the
// embedded and whole runs) and tiles (every pair): its time and tiles, the cells and pairs each
// computed, and the duals (another optimal dual solution certifies the same plan).
nlohmann::json Comparable(nlohmann::json report) {
  for (const char* key : {"seconds", "tiles", "dp_cells", "pairs_computed", "int16_cells",
                          "single_cells", "path", "transport_solves"}) {
    report.erase(key);
  }
  for (const char* key : {"u", "v", "dual", "primal_dual_gap"}) report["certificate"].erase(key);
  return report;
}

void Print(const char* how, const Workload& workload, const Measured& measured) {
  const double cells = measured.report["dp_cells"].get<double>();
  std::printf(
      "e2e (%s): validate of %d x %d runs of %d samples, %d channel(s): %.4g DP cells in %.2f s "
      "= %.3g cells/s; peak resident memory %.1f MiB; user+sys CPU %.2f s\n",
      how, workload.runs, workload.runs, workload.samples, workload.channels, cells,
      measured.seconds, cells / measured.seconds, measured.peak_mib, measured.cpu_seconds);
}

int Main(int argc, char** argv) {
  std::map<std::string, std::string> flags = {
      {"--runs", "100"}, {"--samples", "2000"},          {"--channels", "1"},
      {"--seed", "1"},   {"--tile_cells", "1073741824"}, {"--replicas", "3"},
      {"--repeat", "3"}};
  for (int k = 1; k + 1 < argc; k += 2) flags[argv[k]] = argv[k + 1];
  if (argc % 2 == 0 || !flags.count("--cli") || !flags.count("--dir")) {
    return Fail(
        "usage: e2e_bench --cli PATH --dir DIR [--runs N] [--samples N] [--channels N] "
        "[--server PATH] [--tile_cells N]");
  }
  Workload workload;
  int64_t tile_cells = 0;
  int replicas = 0;
  int repeat = 0;
  if (!absl::SimpleAtoi(flags["--runs"], &workload.runs) ||
      !absl::SimpleAtoi(flags["--samples"], &workload.samples) ||
      !absl::SimpleAtoi(flags["--channels"], &workload.channels) ||
      !absl::SimpleAtoi(flags["--seed"], &workload.seed) ||
      !absl::SimpleAtoi(flags["--tile_cells"], &tile_cells) ||
      !absl::SimpleAtoi(flags["--replicas"], &replicas) || replicas < 1 ||
      !absl::SimpleAtoi(flags["--repeat"], &repeat) || repeat < 1 || workload.runs < 1 ||
      workload.samples < 1 || workload.channels < 1 || tile_cells < 1) {
    return Fail(
        "--runs, --samples, --channels, --tile_cells, --replicas and --repeat take positive "
        "integers, --seed an integer");
  }
  const std::filesystem::path dir = flags["--dir"];
  if (absl::Status written = WriteWorkload(workload, dir); !written.ok()) {
    return Fail(std::string(written.message()));
  }

  const std::string report = (dir / "report.json").string();
  const std::vector<std::string> validate = {
      flags["--cli"],         "validate", "--sim", (dir / "sim").string(), "--ref",
      (dir / "ref").string(), "--json",   report};
  std::string error;
  const std::optional<Measured> embedded = RunValidate(validate, report, error);
  if (!embedded.has_value()) return Fail(error);
  Print("embedded", workload, *embedded);
  // Every pair, as the lazy transport's yardstick and as the server runs below compute them.
  std::vector<std::string> every_pair = validate;
  every_pair.push_back("--exhaustive");
  const std::optional<Measured> embedded_every_pair = RunValidate(every_pair, report, error);
  if (!embedded_every_pair.has_value()) return Fail(error);
  Print("embedded, --exhaustive", workload, *embedded_every_pair);
  std::printf("e2e: the lazy transport in %.2f s against %.2f s exhaustive (%.2fx)\n",
              embedded->seconds, embedded_every_pair->seconds,
              embedded_every_pair->seconds / embedded->seconds);
  if (!flags.count("--server")) return 0;

  // Whole and tiled runs alternate, --repeat times each: this VM's speed drifts by several
  // per cent between runs, and the overhead is the ratio of the medians.
  std::map<bool, std::vector<Measured>> served;
  for (int round = 0; round < repeat; ++round) {
    for (const bool tiled : {false, true}) {
      const std::string data_dir = (dir / (tiled ? "server-tiled" : "server-whole")).string();
      std::filesystem::remove_all(data_dir);
      const Server server(flags["--server"],
                          {"--data_dir", data_dir,
                           tiled ? "--tile_min_pairs=0" : "--tile_min_pairs=9223372036854775807",
                           absl::StrCat("--tile_cells=", tile_cells)});
      if (server.address().empty()) return Fail("the server did not start");
      // Tiles compute every pair, so the whole matrix is computed too: the overhead compares
      // like with like.
      std::vector<std::string> args = every_pair;
      args.insert(args.begin() + 2, {"--server", server.address()});
      const std::optional<Measured> measured = RunValidate(args, report, error);
      if (!measured.has_value()) return Fail(error);
      const std::string how = tiled ? absl::StrCat("server, tiles of ", tile_cells, " cells")
                                    : std::string("server, whole matrix, --exhaustive");
      Print(how.c_str(), workload, *measured);
      served[tiled].push_back(*measured);
    }
  }
  const auto median = [](std::vector<Measured>& runs) -> const Measured& {
    std::sort(runs.begin(), runs.end(),
              [](const Measured& a, const Measured& b) { return a.seconds < b.seconds; });
    return runs[runs.size() / 2];
  };
  const Measured& whole = median(served[false]);
  const Measured& tiled = median(served[true]);
  uint64_t tiles = 0;
  for (const nlohmann::json& share : tiled.report["tiles"]) tiles += share["tiles"].get<uint64_t>();
  std::printf(
      "e2e: %llu tiles; tiling overhead in one process %+.1f %% of the wall time (medians of "
      "%d: %.2f s whole, %.2f s tiled)\n",
      static_cast<unsigned long long>(tiles),
      100.0 * (tiled.seconds - whole.seconds) / whole.seconds, repeat, whole.seconds,
      tiled.seconds);
  const bool equal = Comparable(embedded->report) == Comparable(whole.report) &&
                     Comparable(whole.report) == Comparable(tiled.report);
  std::printf("e2e: embedded, whole and tiled reports %s\n", equal ? "agree" : "DIFFER");
  if (!equal) return 1;
  if (!flags.count("--postgres_url")) return 0;

  for (int count = 1; count <= replicas; ++count) {
    std::vector<std::unique_ptr<Server>> servers;
    for (int k = 1; k <= count; ++k) {
      servers.push_back(std::make_unique<Server>(
          flags["--server"],
          std::vector<std::string>{absl::StrCat("--postgres_url=", flags["--postgres_url"]),
                                   "--tile_min_pairs=0", absl::StrCat("--tile_cells=", tile_cells),
                                   absl::StrCat("--replica_name=r", k)}));
      if (servers.back()->address().empty()) return Fail("a replica did not start");
    }
    std::vector<std::string> args = validate;
    args.insert(args.begin() + 2, {"--server", servers.front()->address()});
    const std::optional<Measured> measured = RunValidate(args, report, error);
    if (!measured.has_value()) return Fail(error);
    std::string shares;
    for (const nlohmann::json& share : measured->report["tiles"]) {
      absl::StrAppend(&shares, " ", share["replica"].get<std::string>(), ": ",
                      share["tiles"].get<uint64_t>(), " tiles,");
    }
    std::printf("e2e (%d replica(s) on PostgreSQL): %.2f s;%s reports %s\n", count,
                measured->seconds, shares.c_str(),
                Comparable(measured->report) == Comparable(whole.report) ? "agree" : "DIFFER");
  }
  return 0;
}

}  // namespace
}  // namespace wasserwarp::bench

int main(int argc, char** argv) { return wasserwarp::bench::Main(argc, argv); }
