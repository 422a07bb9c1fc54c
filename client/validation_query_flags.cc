#include "validation_query_flags.h"

#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "resource_format.h"
#include "server_flags.h"

namespace wasserwarp::cli {

absl::StatusOr<client::ValidationQuery> ReadValidationQuery(const ParsedArgs& args,
                                                            absl::string_view command,
                                                            bool all_by_default,
                                                            int default_limit) {
  client::ValidationQuery query;
  const bool all = args.Has(kAllSessionsFlag.name);
  if (all && args.Has(kSessionFlag.name)) {
    return FlagError(kAllSessionsFlag.name, "does not go with --session: give one or the other");
  }
  if (!all && (args.Has(kSessionFlag.name) || !all_by_default)) {
    if (!args.Has(kSessionFlag.name)) {
      return absl::InvalidArgumentError(
          absl::StrCat(command, ": --session ID or --all-sessions is required"));
    }
    absl::StatusOr<std::string> session_id = RequiredSession(args, command);
    if (!session_id.ok()) return session_id.status();
    query.session_id = *std::move(session_id);
  }
  absl::StatusOr<std::optional<int>> limit = args.Integer(kLimitFlag.name);
  if (!limit.ok()) return limit.status();
  if (limit->has_value() && **limit < 1) {
    return FlagError(kLimitFlag.name, absl::StrCat("must be at least 1, got ", **limit));
  }
  query.limit = limit->value_or(default_limit);
  if (const std::string* name = args.Value(kStateFlag.name)) {
    std::optional<v1::ValidationState> named = ValidationStateNamed(*name);
    if (!named.has_value()) {
      return FlagError(kStateFlag.name,
                       absl::StrCat("expected queued, running, succeeded, failed or cancelled, "
                                    "got \"",
                                    *name, "\""));
    }
    query.state = *named;
  }
  // The server parses both and names the position of what it cannot; checking here would
  // only repeat its grammar.
  if (const std::string* filter = args.Value(kFilterFlag.name)) query.filter = *filter;
  if (const std::string* order = args.Value(kOrderByFlag.name)) query.order_by = *order;
  return query;
}

void NoteLimitReached(const client::ValidationQuery& query, size_t found, std::FILE* stream) {
  if (query.limit <= 0 || found < static_cast<size_t>(query.limit)) return;
  std::fprintf(stream, "note: the first %d validations; there may be more (--limit N)\n",
               query.limit);
}

}  // namespace wasserwarp::cli
