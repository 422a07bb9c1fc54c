// Writing a command's output to a file named on the command line (--json FILE).

#ifndef WASSERWARP_CLIENT_OUTPUT_FILE_H_
#define WASSERWARP_CLIENT_OUTPUT_FILE_H_

#include <cstdio>
#include <string>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "args.h"
#include "flag_definition.h"

namespace wasserwarp::cli {

// Creates or truncates `path` and writes `content`; an error "<path>: cannot write" with the
// system's reason otherwise, a full disk included.
absl::Status WriteOutputFile(const std::string& path, const std::string& content);

// Read by WriteJsonIfAsked, for every command with a JSON report.
inline constexpr DocumentedFlag kJsonFlag = {
    "--json", Arity::kOne, "FILE|-",
    "write the JSON report to FILE; with -, to stdout, and the\n"
    "summary to stderr"};

// Writes the JSON document `to_json` makes where --json says (a file, or stdout for "-"),
// and returns the stream the human summary goes to: stderr when the JSON took stdout, so
// that stdout stays one document; stdout otherwise.
absl::StatusOr<std::FILE*> WriteJsonIfAsked(const ParsedArgs& args,
                                            absl::FunctionRef<std::string()> to_json);

}  // namespace wasserwarp::cli

#endif  // WASSERWARP_CLIENT_OUTPUT_FILE_H_
