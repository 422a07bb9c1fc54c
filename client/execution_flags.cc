#include "execution_flags.h"

#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace wasserwarp::cli {
namespace {

absl::Status ReadThreads(absl::string_view flag, const ParsedArgs& args,
                         CostMatrixOptions& compute) {
  absl::StatusOr<int> threads = GivenInteger(args, flag);
  if (!threads.ok()) return threads.status();
  if (*threads < 1) return FlagError(flag, "must be at least 1");
  compute.max_threads = *threads;
  return absl::OkStatus();
}

absl::Status ReadSeed(absl::string_view flag, const ParsedArgs& args, uint64_t& seed) {
  const std::string& text = *args.Value(flag);
  if (!absl::SimpleAtoi(text, &seed)) {
    return FlagError(flag, absl::StrCat("expected a non-negative integer, got \"", text, "\""));
  }
  return absl::OkStatus();
}

}  // namespace

const FlagDefinition<CostMatrixOptions> kThreadsFlag = {
    "--threads", Arity::kOne, "N", "worker threads (default: every core)", &ReadThreads};

const FlagDefinition<uint64_t> kSeedFlag = {"--seed", Arity::kOne, "S",
                                            "random seed; the same seed gives the same interval\n"
                                            "whatever the thread count (default 1)",
                                            &ReadSeed};

}  // namespace wasserwarp::cli
