// A flag's definition: its name and arity for the parser, its lines of --help, and how its value is
// read into the options it sets. Each concern keeps its flags in one table of these
// (comparison_flags.h, verdict_flags.h, ...), and a command's flag list and help text are generated
// from the sections it lists, so that a flag is named, described and read in one place only.

#ifndef WASSERWARP_CLIENT_FLAG_DEFINITION_H_
#define WASSERWARP_CLIENT_FLAG_DEFINITION_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "args.h"

namespace wasserwarp::cli {

// What the parser and the help text need of a flag, whatever it sets.
struct DocumentedFlag : FlagSpec {
  absl::string_view value_name;  // "S" of "--time-window S"; empty for a switch
  // What the flag does, one help line per '\n'-separated line, without the flag column.
  absl::string_view usage;
};

// A flag that sets part of a `Target`.
template <typename Target>
struct FlagDefinition : DocumentedFlag {
  // Called only when the flag was given: checks its value and sets what it sets. `flag` is the
  // definition's name, for the error, which says "<flag>: <problem>".
  absl::Status (*read)(absl::string_view flag, const ParsedArgs& args, Target& target);
};

// Reads every flag of `table` that `args` holds, in the table's order; the first error wins.
template <typename Target>
absl::Status ReadFlags(absl::Span<const FlagDefinition<Target>> table, const ParsedArgs& args,
                       Target& target) {
  for (const FlagDefinition<Target>& flag : table) {
    if (!args.Has(flag.name)) continue;
    if (absl::Status status = flag.read(flag.name, args, target); !status.ok()) return status;
  }
  return absl::OkStatus();
}

// For readers: the value of a number or integer flag that was given, checked as ParsedArgs::Number
// and ParsedArgs::Integer check it.
absl::StatusOr<double> GivenNumber(const ParsedArgs& args, absl::string_view flag);
absl::StatusOr<int> GivenInteger(const ParsedArgs& args, absl::string_view flag);

template <typename Target>
absl::Status ReadFlag(const FlagDefinition<Target>& flag, const ParsedArgs& args, Target& target) {
  return ReadFlags<Target>({&flag, 1}, args, target);
}

template <typename Target>
std::vector<DocumentedFlag> Documented(absl::Span<const FlagDefinition<Target>> table) {
  return std::vector<DocumentedFlag>(table.begin(), table.end());
}

// `flag` as one command describes it, where the flag means something particular there. The flag
// keeps a view of `usage`, which must outlive it: a string literal.
DocumentedFlag DescribedAs(const DocumentedFlag& flag, absl::string_view usage);

// A titled block of a command's help; every flag a command takes is in one of its sections.
struct FlagSection {
  std::string title;  // "comparison", printed as "comparison:"
  std::vector<DocumentedFlag> flags;
};

// `intro`, then each section after a blank line: its title, then a line per flag, the flag and its
// value name in a column of their own and the usage beside them.
std::string HelpText(absl::string_view intro, const std::vector<FlagSection>& sections);

// The flags of every section, for the parser.
std::vector<FlagSpec> FlagSpecs(const std::vector<FlagSection>& sections);

}  // namespace wasserwarp::cli

#endif  // WASSERWARP_CLIENT_FLAG_DEFINITION_H_
