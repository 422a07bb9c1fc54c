// Times SolveAssignment on one n x n matrix read from a file of raw
// little-endian doubles, row-major: the C++ half of bench/assignment_vs_scipy.py.
// Prints "seconds cost rounds arcs scanned" on one line: the best of --repeats
// solves, their optimal cost, and what the candidate solver did (its rounds,
// candidates and the candidates its augmenting paths scanned).
//
//   assignment_solve FILE N [--repeats R] [--method auto|dense|sparse]
//                    [--candidates K] [--violators V] [--max-scanned S]
//                    (SparseOptions, for tuning)

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "absl/status/statusor.h"
#include "transport/assignment.h"
#include "transport/assignment_internal.h"
#include "wasserwarp/cost_matrix.h"

namespace {

using wasserwarp::Assignment;
using wasserwarp::CostMatrix;
namespace internal = wasserwarp::assignment_internal;

int Run(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s FILE N [--repeats R] [--method auto|dense|sparse]\n", argv[0]);
    return 2;
  }
  const std::string path = argv[1];
  const size_t n = std::strtoul(argv[2], nullptr, 10);
  int repeats = 3;
  internal::Method method = internal::Method::kAuto;
  internal::SparseOptions options;
  for (int a = 3; a + 1 < argc; a += 2) {
    if (std::strcmp(argv[a], "--repeats") == 0) {
      repeats = std::max(1, std::atoi(argv[a + 1]));
    } else if (std::strcmp(argv[a], "--candidates") == 0) {
      options.candidates = std::atoi(argv[a + 1]);
    } else if (std::strcmp(argv[a], "--violators") == 0) {
      options.violators_per_row = std::atoi(argv[a + 1]);
    } else if (std::strcmp(argv[a], "--max-scanned") == 0) {
      options.max_scanned_arcs_per_entry = std::atof(argv[a + 1]);
    } else if (std::strcmp(argv[a], "--method") == 0) {
      const std::string name = argv[a + 1];
      method = name == "dense"    ? internal::Method::kDense
               : name == "sparse" ? internal::Method::kSparse
                                  : internal::Method::kAuto;
    }
  }
  CostMatrix costs(n, n);
  std::ifstream in(path, std::ios::binary);
  // The bench writes the file on this machine, so its byte order is ours.
  in.read(reinterpret_cast<char*>(costs.values.data()),
          static_cast<std::streamsize>(costs.values.size() * sizeof(double)));
  if (!in) {
    std::fprintf(stderr, "cannot read %zu x %zu doubles from %s\n", n, n, path.c_str());
    return 1;
  }
  double best = 1e300;
  double cost = 0.0;
  internal::SparseStats stats;
  for (int r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    absl::StatusOr<Assignment> result =
        internal::SolveAssignmentWith(costs, method, options, &stats);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!result.ok()) {
      std::fprintf(stderr, "%s\n", result.status().ToString().c_str());
      return 1;
    }
    best = std::min(best, seconds);
    cost = result->cost;
  }
  std::printf("%.6f %.17g %d %zu %llu\n", best, cost, stats.rounds, stats.arcs,
              static_cast<unsigned long long>(stats.scanned_arcs));
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return Run(argc, argv); }
