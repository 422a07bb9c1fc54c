// The command-line grammar shared by every command: `--flag value`, `--flag=value`, switches,
// and flags such as `--sim` that take every following argument up to the next flag.

#ifndef WASSERWARP_CLIENT_ARGS_H_
#define WASSERWARP_CLIENT_ARGS_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace wasserwarp::cli {

enum class Arity {
  kSwitch,  // present or not, no value
  kOne,     // exactly one value, at most once
  kMany,    // one or more values; may be repeated, the values add up
};

struct FlagSpec {
  absl::string_view name;  // with the leading dashes, e.g. "--time-window"
  Arity arity;
};

class ParsedArgs {
 public:
  const std::vector<std::string>& positional() const { return positional_; }
  bool Has(absl::string_view flag) const { return values_.contains(flag); }
  // The value of a kOne flag; nullptr when it was not given.
  const std::string* Value(absl::string_view flag) const;
  // The values of a kMany flag; empty when it was not given.
  std::vector<std::string> Values(absl::string_view flag) const;
  // A kOne flag as a finite number; InvalidArgument naming the flag otherwise.
  absl::StatusOr<std::optional<double>> Number(absl::string_view flag) const;
  absl::StatusOr<double> Number(absl::string_view flag, double default_value) const;
  absl::StatusOr<std::optional<int>> Integer(absl::string_view flag) const;

 private:
  friend absl::StatusOr<ParsedArgs> ParseArgs(const std::vector<std::string>& args,
                                              const std::vector<FlagSpec>& flags);

  std::vector<std::string> positional_;
  std::map<std::string, std::vector<std::string>, std::less<>> values_;
};

// InvalidArgument naming the flag for an unknown flag, a missing value, a value given to a
// switch, or a kOne flag given twice.
absl::StatusOr<ParsedArgs> ParseArgs(const std::vector<std::string>& args,
                                     const std::vector<FlagSpec>& flags);

// InvalidArgument "<flag>: <problem>", the form of every error about a flag's value.
absl::Status FlagError(absl::string_view flag, absl::string_view problem);

// True for `--help` or `-h` anywhere in `args`: help wins over every other argument.
bool WantsHelp(const std::vector<std::string>& args);

}  // namespace wasserwarp::cli

#endif  // WASSERWARP_CLIENT_ARGS_H_
