// `wasserwarp validations history`: a model's validation records in the order of one label's
// values (4.10.0 after 4.9.2), as a table, a JSON array (--json) and a page plotting W and the
// ratio over them (--report).

#ifndef WASSERWARP_CLIENT_VALIDATIONS_HISTORY_H_
#define WASSERWARP_CLIENT_VALIDATIONS_HISTORY_H_

#include <functional>

#include "absl/status/statusor.h"
#include "args.h"
#include "command.h"
#include "flag_definition.h"
#include "validation_client.h"

namespace wasserwarp::cli {

inline constexpr DocumentedFlag kByFlag = {
    "--by", Arity::kOne, "labels.KEY",
    "history: order the records by this label's values, versions as\n"
    "versions (4.10.0 after 4.9.2, 4.2.0-rc1 before 4.2.0), dates\n"
    "in time order; records without it are left out (required)"};

// What the subcommand does on the server once its flags are checked.
using HistoryAction = std::function<absl::StatusOr<Judged>(client::ValidationClient&)>;

// Reads --by and the query flags; the action lists the records, prints the table (on stderr
// with --json -), notes on stderr what was left out, and writes --json and --report.
absl::StatusOr<HistoryAction> PrepareHistory(const ParsedArgs& args);

}  // namespace wasserwarp::cli

#endif  // WASSERWARP_CLIENT_VALIDATIONS_HISTORY_H_
