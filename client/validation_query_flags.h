// The flags that select validation records on a server for `validations list`, `history` and
// `latest`: --session or --all-sessions, --state, --filter, --order-by and --limit.

#ifndef WASSERWARP_CLIENT_VALIDATION_QUERY_FLAGS_H_
#define WASSERWARP_CLIENT_VALIDATION_QUERY_FLAGS_H_

#include <cstdio>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "args.h"
#include "flag_definition.h"
#include "validation_client.h"

namespace wasserwarp::cli {

inline constexpr DocumentedFlag kAllSessionsFlag = {
    "--all-sessions", Arity::kSwitch, "",
    "the validations of every session of the caller, tombstones\n"
    "included, instead of one --session's"};
inline constexpr DocumentedFlag kFilterFlag = {
    "--filter", Arity::kOne, "F",
    "only validations matching F, comparisons joined with AND:\n"
    "labels.KEY = \"v\", labels.KEY != \"v\", state = SUCCEEDED,\n"
    "outcome.passed = true, create_time >= \"2026-03-01T00:00:00Z\""};
inline constexpr DocumentedFlag kOrderByFlag = {
    "--order-by", Arity::kOne, "ORDER",
    "\"create_time desc\" (the default: newest first) or \"create_time\""};
inline constexpr DocumentedFlag kStateFlag = {
    "--state", Arity::kOne, "STATE",
    "only those in this state: queued, running, succeeded,\n"
    "failed or cancelled"};
inline constexpr DocumentedFlag kLimitFlag = {
    "--limit", Arity::kOne, "N", "at most N validations, the first in their order (default 1000)"};

// What a list reads at most when --limit is not given: a history of a model's releases is
// hundreds of records, and a listing of every record ever kept is not what a person wants.
inline constexpr int kDefaultListLimit = 1000;

// The query the flags given ask for. Without --session, every session's when `all_by_default`
// (history, latest), else --session or --all-sessions is required; `--limit` defaults to
// `default_limit`. Errors name the flag and `command`.
absl::StatusOr<client::ValidationQuery> ReadValidationQuery(const ParsedArgs& args,
                                                            absl::string_view command,
                                                            bool all_by_default, int default_limit);

// A note on `stream` when `found` records filled the query's limit, so that a person knows
// there may be more.
void NoteLimitReached(const client::ValidationQuery& query, size_t found, std::FILE* stream);

}  // namespace wasserwarp::cli

#endif  // WASSERWARP_CLIENT_VALIDATION_QUERY_FLAGS_H_
