#include "embedded_limits.h"

#include <unistd.h>

#include <cstdint>
#include <vector>

#include "absl/strings/str_format.h"
#include "wasserwarp/prepare.h"

namespace wasserwarp::cli {
namespace {

uint64_t PhysicalMemoryBytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_size <= 0) return 0;
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page_size);
}

std::vector<RunShape> Shapes(const std::vector<Series>& runs) {
  std::vector<RunShape> shapes;
  shapes.reserve(runs.size());
  for (const Series& run : runs) shapes.push_back(ShapeOf(run));
  return shapes;
}

}  // namespace

ValidationLimits EmbeddedLimits(bool html_report) {
  ValidationLimits limits;
  limits.samples_per_run = {kMaxResampledSamples, "the embedded engine's samples per run"};
  const uint64_t memory = PhysicalMemoryBytes();
  limits.bytes = {memory / 4 * 3,
                  absl::StrFormat("three quarters of this machine's %.1f GiB of memory",
                                  static_cast<double>(memory) / (1 << 30))};
  // The report and its JSON text.
  limits.report_copies = 1;
  limits.html_report = html_report;
  return limits;
}

absl::Status CheckEmbeddedValidation(const std::vector<Series>& simulation,
                                     const std::vector<Series>& reference,
                                     const ValidationOptions& options, bool html_report) {
  ValidationLimits limits = EmbeddedLimits(html_report);
  limits.threads = options.compute.max_threads;
  return CheckValidationSize(Shapes(simulation), Shapes(reference), options, limits);
}

}  // namespace wasserwarp::cli
