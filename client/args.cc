#include "args.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace wasserwarp::cli {
namespace {

// "-" (stdin/stdout) and negative numbers are values; "-x" and "--x" are flags, so that a
// mistyped single-dash flag is reported instead of being taken as a file name.
bool IsFlag(absl::string_view arg) {
  return arg.size() >= 2 && arg[0] == '-' &&
         (arg[1] == '-' || std::isalpha(static_cast<unsigned char>(arg[1])));
}

}  // namespace

absl::Status FlagError(absl::string_view flag, absl::string_view problem) {
  return absl::InvalidArgumentError(absl::StrCat(flag, ": ", problem));
}

const std::string* ParsedArgs::Value(absl::string_view flag) const {
  const auto it = values_.find(flag);
  return it == values_.end() || it->second.empty() ? nullptr : &it->second.front();
}

std::vector<std::string> ParsedArgs::Values(absl::string_view flag) const {
  const auto it = values_.find(flag);
  return it == values_.end() ? std::vector<std::string>() : it->second;
}

absl::StatusOr<std::optional<double>> ParsedArgs::Number(absl::string_view flag) const {
  const std::string* text = Value(flag);
  if (text == nullptr) return std::nullopt;
  double value = 0.0;
  if (!absl::SimpleAtod(*text, &value)) {
    return FlagError(flag, absl::StrCat("expected a number, got \"", *text, "\""));
  }
  if (!std::isfinite(value)) {
    return FlagError(flag, absl::StrCat("expected a finite number, got \"", *text, "\""));
  }
  return value;
}

absl::StatusOr<double> ParsedArgs::Number(absl::string_view flag, double default_value) const {
  absl::StatusOr<std::optional<double>> value = Number(flag);
  if (!value.ok()) return value.status();
  return value->value_or(default_value);
}

absl::StatusOr<std::optional<int>> ParsedArgs::Integer(absl::string_view flag) const {
  const std::string* text = Value(flag);
  if (text == nullptr) return std::nullopt;
  int value = 0;
  if (!absl::SimpleAtoi(*text, &value)) {
    return FlagError(flag, absl::StrCat("expected an integer, got \"", *text, "\""));
  }
  return value;
}

absl::StatusOr<ParsedArgs> ParseArgs(const std::vector<std::string>& args,
                                     const std::vector<FlagSpec>& flags) {
  ParsedArgs parsed;
  for (size_t i = 0; i < args.size(); ++i) {
    if (!IsFlag(args[i])) {
      parsed.positional_.push_back(args[i]);
      continue;
    }
    const size_t equals = args[i].find('=');
    const bool has_value = equals != std::string::npos;
    const absl::string_view name = absl::string_view(args[i]).substr(0, equals);
    const auto spec = std::find_if(flags.begin(), flags.end(),
                                   [name](const FlagSpec& flag) { return flag.name == name; });
    if (spec == flags.end()) {
      return absl::InvalidArgumentError(absl::StrCat("unknown flag ", name));
    }
    std::vector<std::string>& stored = parsed.values_[std::string(name)];
    if (spec->arity == Arity::kSwitch) {
      if (has_value) return FlagError(name, "takes no value");
      continue;
    }
    if (spec->arity == Arity::kOne && !stored.empty()) return FlagError(name, "given twice");
    const size_t before = stored.size();
    // An empty `--flag=` counts as a missing value rather than as an empty path or name.
    if (has_value && equals + 1 < args[i].size()) stored.push_back(args[i].substr(equals + 1));
    if (spec->arity == Arity::kMany || !has_value) {
      while (i + 1 < args.size() && !IsFlag(args[i + 1]) &&
             (spec->arity == Arity::kMany || stored.size() == before)) {
        stored.push_back(args[++i]);
      }
    }
    if (stored.size() == before) return FlagError(name, "needs a value");
  }
  return parsed;
}

bool WantsHelp(const std::vector<std::string>& args) {
  return std::any_of(args.begin(), args.end(),
                     [](const std::string& arg) { return arg == "--help" || arg == "-h"; });
}

}  // namespace wasserwarp::cli
