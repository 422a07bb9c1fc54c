#include "flag_definition.h"

#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace wasserwarp::cli {
namespace {

// Where the usage column starts; a flag wider than that gets a line of its own.
constexpr size_t kUsageColumn = 23;

std::string FlagLines(const DocumentedFlag& flag) {
  std::string head = absl::StrCat("  ", flag.name);
  if (!flag.value_name.empty()) absl::StrAppend(&head, " ", flag.value_name);
  std::string out;
  if (head.size() < kUsageColumn) {
    out = head + std::string(kUsageColumn - head.size(), ' ');
  } else {
    out = absl::StrCat(head, "\n", std::string(kUsageColumn, ' '));
  }
  bool first = true;
  for (absl::string_view line : absl::StrSplit(flag.usage, '\n')) {
    if (!first) absl::StrAppend(&out, std::string(kUsageColumn, ' '));
    absl::StrAppend(&out, line, "\n");
    first = false;
  }
  return out;
}

}  // namespace

absl::StatusOr<double> GivenNumber(const ParsedArgs& args, absl::string_view flag) {
  absl::StatusOr<std::optional<double>> value = args.Number(flag);
  if (!value.ok()) return value.status();
  return value->value_or(0.0);
}

absl::StatusOr<int> GivenInteger(const ParsedArgs& args, absl::string_view flag) {
  absl::StatusOr<std::optional<int>> value = args.Integer(flag);
  if (!value.ok()) return value.status();
  return value->value_or(0);
}

DocumentedFlag DescribedAs(const DocumentedFlag& flag, absl::string_view usage) {
  DocumentedFlag described = flag;
  described.usage = usage;
  return described;
}

std::string HelpText(absl::string_view intro, const std::vector<FlagSection>& sections) {
  std::string out(intro);
  for (const FlagSection& section : sections) {
    absl::StrAppend(&out, "\n", section.title, ":\n");
    for (const DocumentedFlag& flag : section.flags) absl::StrAppend(&out, FlagLines(flag));
  }
  return out;
}

std::vector<FlagSpec> FlagSpecs(const std::vector<FlagSection>& sections) {
  std::vector<FlagSpec> specs;
  for (const FlagSection& section : sections) {
    specs.insert(specs.end(), section.flags.begin(), section.flags.end());
  }
  return specs;
}

}  // namespace wasserwarp::cli
