#include "validations_history.h"

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "output_file.h"
#include "report_page.h"
#include "validation_history.h"
#include "validation_query_flags.h"
#include "wasserwarp/history_html.h"
#include "wire/validation_history.h"

namespace wasserwarp::cli {

absl::StatusOr<HistoryAction> PrepareHistory(const ParsedArgs& args) {
  const std::string* by = args.Value(kByFlag.name);
  if (by == nullptr) {
    return absl::InvalidArgumentError("validations history: --by labels.KEY is required");
  }
  absl::StatusOr<std::string> key = wire::HistoryLabelKey(*by);
  if (!key.ok()) return FlagError(kByFlag.name, key.status().message());
  absl::StatusOr<client::ValidationQuery> query =
      ReadValidationQuery(args, "validations history", /*all_by_default=*/true, kDefaultListLimit);
  if (!query.ok()) return query.status();
  return [&args, key = *std::move(key),
          query = *std::move(query)](client::ValidationClient& client) -> absl::StatusOr<Judged> {
    absl::StatusOr<std::vector<v1::Validation>> records = client.ListValidations(query);
    if (!records.ok()) return records.status();
    const ValidationHistory history = wire::HistoryOf(*records, key, query.filter);
    absl::StatusOr<std::FILE*> table_stream =
        WriteJsonIfAsked(args, [&] { return HistoryToJson(history); });
    if (!table_stream.ok()) return table_stream.status();
    std::fputs(FormatHistoryTable(history).c_str(), *table_stream);
    std::fputs(HistoryNote(history).c_str(), stderr);
    NoteLimitReached(query, records->size(), stderr);
    if (absl::Status written = WritePageIfAsked(args,
                                                [&]() -> absl::StatusOr<std::string> {
                                                  return RenderHistoryHtml(history,
                                                                           PageOptionsNow());
                                                });
        !written.ok()) {
      return written;
    }
    // A history judges nothing; 'validations latest' gives a pipeline its gate.
    return Judgement::kPass;
  };
}

}  // namespace wasserwarp::cli
