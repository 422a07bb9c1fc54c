#include "validations_command.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "flag_definition.h"
#include "output_file.h"
#include "pipeline_reports.h"
#include "progress_bar.h"
#include "report_output.h"
#include "resource_format.h"
#include "server_flags.h"
#include "validation_client.h"
#include "validation_query_flags.h"
#include "validations_history.h"
#include "wire/resource_names.h"

namespace wasserwarp::cli {
namespace {

using Client = client::ValidationClient;
using Clock = std::chrono::steady_clock;

constexpr DocumentedFlag kValidationFlag = {
    "--validation", Arity::kOne, "V",
    "the validation: its id, or its name sessions/ID/validations/V\n"
    "(as 'validate --detach' prints it)"};

// What a subcommand does on the server, once its flags have been read and checked: a usage
// error should not depend on the server being up.
using Action = std::function<absl::StatusOr<Judged>(Client& client)>;

struct Subcommand {
  absl::string_view name;
  // Flags besides --server and the security flags that it takes.
  std::vector<DocumentedFlag> flags;
  absl::StatusOr<Action> (*prepare)(const ParsedArgs& args);
};

bool HasEnded(const v1::Validation& validation) {
  return validation.state() == v1::VALIDATION_STATE_SUCCEEDED ||
         validation.state() == v1::VALIDATION_STATE_FAILED ||
         validation.state() == v1::VALIDATION_STATE_CANCELLED;
}

// The validation's full name from --validation (or the argument after the subcommand), an id
// or a full name, and --session.
absl::StatusOr<std::string> ValidationNameOf(const ParsedArgs& args, absl::string_view command) {
  const std::string* validation = args.Value(kValidationFlag.name);
  if (validation == nullptr && args.positional().size() > 1) validation = &args.positional()[1];
  if (validation == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(command, ": ", kValidationFlag.name, " ",
                                                   kValidationFlag.value_name, " is required"));
  }
  const std::string* session = args.Value(kSessionFlag.name);
  if (absl::StartsWith(*validation, "sessions/")) {
    absl::StatusOr<wire::ValidationIds> ids =
        wire::ValidationIdsFromName(*validation, kValidationFlag.name);
    if (!ids.ok()) {
      return FlagError(
          kValidationFlag.name,
          absl::StrCat("expected an id or sessions/ID/validations/V, got \"", *validation, "\""));
    }
    if (session != nullptr && *session != ids->session_id) {
      return FlagError(kValidationFlag.name,
                       absl::StrCat("names a validation of session ", ids->session_id,
                                    ", not of --session ", *session));
    }
    return *validation;
  }
  absl::StatusOr<std::string> session_id = RequiredSession(args, command);
  if (!session_id.ok()) return session_id.status();
  if (!wire::ValidateSessionId(*validation).ok()) {
    return FlagError(kValidationFlag.name,
                     absl::StrCat("expected an id of [a-z0-9][a-z0-9-_.]{0,62} or "
                                  "sessions/ID/validations/V, got \"",
                                  *validation, "\""));
  }
  return wire::ValidationName(*session_id, *validation);
}

// A validation still queued or running: what it is doing, for a person.
std::string FormatPending(const v1::Validation& validation) {
  std::string out = absl::StrFormat("validation %s is %s", validation.name(),
                                    ValidationStateName(validation.state()));
  if (validation.attempts() > 1)
    absl::StrAppendFormat(&out, " (attempt %d)", validation.attempts());
  absl::StrAppendFormat(&out, "\ncreated: %s\n", FormatTimestamp(validation.create_time()));
  if (validation.state() == v1::VALIDATION_STATE_RUNNING) {
    absl::StrAppendFormat(&out, "started: %s\n", FormatTimestamp(validation.start_time()));
    const v1::ValidateProgress& progress = validation.progress();
    // Until its worker first records progress, a running validation still shows the queue's.
    const bool started =
        progress.phase() != v1::PHASE_UNSPECIFIED && progress.phase() != v1::PHASE_QUEUED;
    absl::StrAppendFormat(&out, "progress: %s, %s",
                          started ? PhaseName(progress.phase()) : "starting", WorkDone(progress));
    if (progress.resamples_total() > 0) {
      absl::StrAppendFormat(&out, ", %d/%d resamples", progress.resamples_done(),
                            progress.resamples_total());
    }
    absl::StrAppend(&out, "\n");
  }
  absl::StrAppend(&out, "it has not ended; 'wasserwarp validations watch' follows it\n");
  return out;
}

// What validate would have ended with: the stored error, with the exit status of its code.
absl::Status StoredError(const v1::Validation& validation) {
  const auto code = static_cast<absl::StatusCode>(validation.error().code());
  const bool cancelled = validation.state() == v1::VALIDATION_STATE_CANCELLED;
  const std::string message =
      absl::StrCat("validation ", validation.name(),
                   cancelled ? " was cancelled: " : " failed: ", validation.error().message());
  if (code == absl::StatusCode::kOk) {
    return cancelled ? absl::CancelledError(message) : absl::UnknownError(message);
  }
  return absl::Status(code, message);
}

// --report needs the page, which a validation has only when it asked for it.
absl::Status CheckPageAsked(const ParsedArgs& args, const v1::Validation& validation) {
  if (!args.Has(kReportFlag.name) || validation.request().include_html_report()) {
    return absl::OkStatus();
  }
  return absl::FailedPreconditionError(
      absl::StrCat("validation ", validation.name(),
                   " did not ask for the HTML page, so there is none to write to --report; "
                   "create the validation with 'validate --report'"));
}

// An ended validation as validate would have shown it; a SUCCEEDED one as WatchValidation
// returns it, with the values of its report's bulky parts.
absl::StatusOr<Judged> ShowEnded(const ParsedArgs& args, Client& client, v1::Validation validation,
                                 Clock::time_point start) {
  if (validation.state() != v1::VALIDATION_STATE_SUCCEEDED) return StoredError(validation);
  if (absl::Status asked = CheckPageAsked(args, validation); !asked.ok()) return asked;
  std::string page;
  absl::StatusOr<ValidationReport> report = client.ReportOf(validation, &page);
  if (!report.ok()) return report.status();
  return WriteResults(args, *report, page, start, validation.name());
}

absl::StatusOr<Action> List(const ParsedArgs& args) {
  absl::StatusOr<client::ValidationQuery> query =
      ReadValidationQuery(args, "validations list", /*all_by_default=*/false, kDefaultListLimit);
  if (!query.ok()) return query.status();
  return [&args, query = *std::move(query)](Client& client) -> absl::StatusOr<Judged> {
    absl::StatusOr<std::vector<v1::Validation>> validations = client.ListValidations(query);
    if (!validations.ok()) return validations.status();
    absl::StatusOr<std::FILE*> table_stream =
        WriteJsonIfAsked(args, [&] { return ValidationsToJson(*validations); });
    if (!table_stream.ok()) return table_stream.status();
    NoteLimitReached(query, validations->size(), stderr);
    if (validations->empty()) {
      std::fputs("no validations\n", *table_stream);
      return Judgement::kPass;
    }
    // The outcome is kept beside the report, so the list shows how each ended without reading
    // reports. Across sessions the id alone does not name a record.
    const bool across = query.session_id.empty();
    std::vector<Row> rows = {
        {across ? "name" : "id", "state", "created", "ended", "W", "verdict", "labels", "error"}};
    for (const v1::Validation& validation : *validations) {
      const v1::ValidationOutcome& outcome = validation.outcome();
      rows.push_back(
          {across ? validation.name()
                  : std::string(validation.name().substr(validation.name().rfind('/') + 1)),
           std::string(ValidationStateName(validation.state())),
           FormatTimestamp(validation.create_time()), FormatTimestamp(validation.end_time()),
           validation.has_outcome() ? absl::StrFormat("%.6g", outcome.distance()) : "-",
           !outcome.has_passed() ? "-"
           : outcome.passed()    ? "PASS"
                                 : "FAIL",
           FormatLabels(validation.labels()),
           validation.has_error() ? validation.error().message() : "-"});
    }
    std::fputs(FormatTable(rows).c_str(), *table_stream);
    return Judgement::kPass;
  };
}

// `validations show` of the record GetValidation returned: an ended one exactly as validate
// would have printed it, with its exit status, so that a stored validation reads like a fresh
// one (its record's own fields are in 'validations list --json'); one still queued or running
// with its record's fields.
absl::StatusOr<Judged> ShowRecord(const ParsedArgs& args, Client& client,
                                  const v1::Validation& validation, Clock::time_point start) {
  if (!HasEnded(validation)) {
    absl::StatusOr<std::FILE*> stream =
        WriteJsonIfAsked(args, [&] { return ValidationToJson(validation); });
    if (!stream.ok()) return stream.status();
    std::fputs(FormatPending(validation).c_str(), *stream);
    std::fputs(FormatRecordFields(validation).c_str(), *stream);
    return Judgement::kNotEnded;
  }
  if (validation.state() != v1::VALIDATION_STATE_SUCCEEDED) return StoredError(validation);
  if (absl::Status asked = CheckPageAsked(args, validation); !asked.ok()) return asked;
  // GetValidation's report lacks the values of the matrices and the page; the stream of an
  // ended validation has them, at once.
  absl::StatusOr<v1::Validation> full = client.WatchValidation(validation.name());
  if (!full.ok()) return full.status();
  return ShowEnded(args, client, *std::move(full), start);
}

absl::StatusOr<Action> Show(const ParsedArgs& args) {
  const Clock::time_point start = Clock::now();
  absl::StatusOr<std::string> name = ValidationNameOf(args, "validations show");
  if (!name.ok()) return name.status();
  return [&args, name = *std::move(name), start](Client& client) -> absl::StatusOr<Judged> {
    absl::StatusOr<v1::Validation> validation = client.GetValidation(name);
    if (!validation.ok()) return validation.status();
    return ShowRecord(args, client, *validation, start);
  };
}

// The newest record the query finds, shown as `show` shows it, so that its exit status is
// validate's: a pipeline gates on a validation run earlier.
absl::StatusOr<Action> Latest(const ParsedArgs& args) {
  const Clock::time_point start = Clock::now();
  absl::StatusOr<client::ValidationQuery> query =
      ReadValidationQuery(args, "validations latest", /*all_by_default=*/true, 1);
  if (!query.ok()) return query.status();
  query->limit = 1;
  query->order_by = "create_time desc";
  return [&args, query = *std::move(query), start](Client& client) -> absl::StatusOr<Judged> {
    absl::StatusOr<std::vector<v1::Validation>> newest = client.ListValidations(query);
    if (!newest.ok()) return newest.status();
    if (newest->empty()) {
      return absl::NotFoundError(absl::StrCat(
          "validations latest: no validation ",
          query.session_id.empty() ? "of any session"
                                   : absl::StrCat("of session ", query.session_id),
          query.filter.empty() ? "" : absl::StrCat(" matches the filter ", query.filter)));
    }
    // The listing leaves out the report; show reads it whole.
    absl::StatusOr<v1::Validation> validation = client.GetValidation(newest->front().name());
    if (!validation.ok()) return validation.status();
    // Which record the gate judged, on stderr, so that stdout stays what show prints.
    std::fprintf(stderr, "latest: %s\n%s", validation->name().c_str(),
                 FormatRecordFields(*validation).c_str());
    return ShowRecord(args, client, *validation, start);
  };
}

absl::StatusOr<Action> Delete(const ParsedArgs& args) {
  absl::StatusOr<std::string> name = ValidationNameOf(args, "validations delete");
  if (!name.ok()) return name.status();
  return [name = *std::move(name)](Client& client) -> absl::StatusOr<Judged> {
    if (absl::Status deleted = client.DeleteValidation(name); !deleted.ok()) return deleted;
    std::printf("deleted validation %s\n", name.c_str());
    return Judgement::kPass;
  };
}

absl::StatusOr<Action> Watch(const ParsedArgs& args) {
  const Clock::time_point start = Clock::now();
  absl::StatusOr<std::string> name = ValidationNameOf(args, "validations watch");
  if (!name.ok()) return name.status();
  return [&args, name = *std::move(name), start](Client& client) -> absl::StatusOr<Judged> {
    ProgressBar bar(stderr);
    absl::StatusOr<v1::Validation> validation = client.WatchValidation(
        name, [&bar](const v1::ValidateProgress& progress) { bar.Update(progress); });
    bar.Clear();
    if (!validation.ok()) return validation.status();
    return ShowEnded(args, client, *std::move(validation), start);
  };
}

absl::StatusOr<Action> Cancel(const ParsedArgs& args) {
  absl::StatusOr<std::string> name = ValidationNameOf(args, "validations cancel");
  if (!name.ok()) return name.status();
  return [&args, name = *std::move(name)](Client& client) -> absl::StatusOr<Judged> {
    absl::StatusOr<v1::Validation> validation = client.CancelValidation(name);
    if (!validation.ok()) return validation.status();
    absl::StatusOr<std::FILE*> stream =
        WriteJsonIfAsked(args, [&] { return ValidationToJson(*validation); });
    if (!stream.ok()) return stream.status();
    // A running validation ends when its job stops, so it may still be running here.
    std::fprintf(*stream, "%s: %s\n", validation->name().c_str(),
                 std::string(ValidationStateName(validation->state())).c_str());
    return Judgement::kPass;
  };
}

constexpr absl::string_view kSubcommandNames =
    "list, show, history, latest, cancel, watch or delete";

const std::vector<Subcommand>& Subcommands() {
  static const std::vector<Subcommand>* const subcommands = new std::vector<Subcommand>{
      {"list",
       {kSessionFlag, kAllSessionsFlag, kFilterFlag, kOrderByFlag, kLimitFlag, kStateFlag,
        kJsonFlag},
       &List},
      {"show",
       {kSessionFlag, kValidationFlag, kJsonFlag, kReportFlag, kCostMatrixFlag, kJunitFlag,
        kOpenMetricsFlag},
       &Show},
      {"history",
       {kSessionFlag, kAllSessionsFlag, kFilterFlag, kByFlag, kLimitFlag, kStateFlag, kJsonFlag,
        kReportFlag},
       &PrepareHistory},
      {"latest",
       {kSessionFlag, kAllSessionsFlag, kFilterFlag, kStateFlag, kJsonFlag, kReportFlag,
        kCostMatrixFlag, kJunitFlag, kOpenMetricsFlag},
       &Latest},
      {"delete", {kSessionFlag, kValidationFlag}, &Delete},
      {"cancel", {kSessionFlag, kValidationFlag, kJsonFlag}, &Cancel},
      {"watch", {kSessionFlag, kValidationFlag, kJsonFlag, kReportFlag, kCostMatrixFlag}, &Watch},
  };
  return *subcommands;
}

// Every flag of every subcommand, for the parser; each subcommand then refuses the others.
std::vector<FlagSpec> ValidationsFlags() {
  std::vector<FlagSpec> flags = {kServerFlag};
  const std::vector<DocumentedFlag> security = SecurityFlags();
  flags.insert(flags.end(), security.begin(), security.end());
  for (const Subcommand& subcommand : Subcommands()) {
    for (const FlagSpec& flag : subcommand.flags) {
      const bool known = std::any_of(flags.begin(), flags.end(),
                                     [&](const FlagSpec& seen) { return seen.name == flag.name; });
      if (!known) flags.push_back(flag);
    }
  }
  return flags;
}

absl::StatusOr<Judged> RunValidations(const ParsedArgs& args) {
  const std::vector<std::string>& positional = args.positional();
  const auto subcommand = positional.empty()
                              ? Subcommands().end()
                              : std::find_if(Subcommands().begin(), Subcommands().end(),
                                             [&](const Subcommand& candidate) {
                                               return candidate.name == positional[0];
                                             });
  if (subcommand == Subcommands().end()) {
    return absl::InvalidArgumentError(
        positional.empty() ? absl::StrCat("validations: expected ", kSubcommandNames)
                           : absl::StrCat("validations: unknown subcommand \"", positional[0],
                                          "\"; expected ", kSubcommandNames));
  }
  const std::string command = absl::StrCat("validations ", subcommand->name);
  // A subcommand on one validation takes its name as an argument too.
  const bool takes_name =
      std::any_of(subcommand->flags.begin(), subcommand->flags.end(),
                  [](const DocumentedFlag& flag) { return flag.name == kValidationFlag.name; });
  if (takes_name && positional.size() == 2 && args.Has(kValidationFlag.name)) {
    return absl::InvalidArgumentError(absl::StrCat(command, ": give the validation as ",
                                                   kValidationFlag.name,
                                                   " or as an argument, not both"));
  }
  if (positional.size() > (takes_name ? 2u : 1u)) {
    return absl::InvalidArgumentError(
        absl::StrCat(command, ": unexpected argument \"", positional[1], "\""));
  }
  for (const FlagSpec& flag : ValidationsFlags()) {
    const bool allowed =
        flag.name == kServerFlag.name || IsSecurityFlag(flag.name) ||
        std::any_of(subcommand->flags.begin(), subcommand->flags.end(),
                    [&](const DocumentedFlag& own) { return own.name == flag.name; });
    if (!allowed && args.Has(flag.name)) {
      return absl::InvalidArgumentError(absl::StrCat(command, ": ", flag.name, " does not apply"));
    }
  }
  absl::StatusOr<Action> action = subcommand->prepare(args);
  if (!action.ok()) return action.status();
  absl::StatusOr<std::unique_ptr<Client>> client = ConnectToServer(args, command);
  if (!client.ok()) return client.status();
  return (*action)(**client);
}

// The parser takes ValidationsFlags(); these are the same flags, as a person reads them.
std::vector<FlagSection> ValidationsSections() {
  std::vector<DocumentedFlag> options = {
      kServerFlag,
      DescribedAs(kSessionFlag,
                  "the session the validations belong to (required, but for a\n"
                  "--validation that gives the full name, and for list with\n"
                  "--all-sessions; history and latest: every session without it)"),
      DescribedAs(kValidationFlag,
                  "show, watch, cancel, delete: the validation: its id, or its\n"
                  "name sessions/ID/validations/V (as 'validate --detach' prints\n"
                  "it); also as the argument after the subcommand")};
  const std::vector<DocumentedFlag> security = SecurityFlags();
  options.insert(options.end(), security.begin(), security.end());
  return {
      {"options", options},
      {"which records (list, history, latest)",
       {kAllSessionsFlag, kFilterFlag, kStateFlag,
        DescribedAs(kOrderByFlag,
                    "list: \"create_time desc\" (the default: newest first) or\n"
                    "\"create_time\""),
        DescribedAs(kLimitFlag,
                    "list, history: at most N validations, the first in their\n"
                    "order (default 1000)"),
        kByFlag}},
      {"output",
       {DescribedAs(kJsonFlag,
                    "show, watch, latest: write the JSON report as 'validate --json'\n"
                    "does; list: the validations as a JSON array (name, state,\n"
                    "labels, outcome, principal, times, ...); history: the records\n"
                    "in order as a JSON array; cancel: the validation as JSON\n"
                    "(FILE, or - for stdout and the text on stderr)"),
        DescribedAs(kReportFlag,
                    "show, watch, latest: write the HTML page, which the validation\n"
                    "must have asked for ('validate --report'); history: a page\n"
                    "plotting W and the ratio over the --by label's values"),
        DescribedAs(kCostMatrixFlag,
                    "show, watch, latest: include the cost matrices the validation\n"
                    "asked for in the JSON report"),
        DescribedAs(kJunitFlag, "show, latest: write the result as JUnit XML, as 'validate' does"),
        DescribedAs(kOpenMetricsFlag,
                    "show, latest: write the result as OpenMetrics text, as\n"
                    "'validate' does")}},
  };
}

}  // namespace

Command ValidationsCommand() {
  return {
      .name = "validations",
      .synopsis =
          "validations list|show|history|latest|cancel|watch|delete --server HOST:PORT "
          "[options]",
      .usage = HelpText(
          "usage: wasserwarp validations list --server HOST:PORT (--session ID | "
          "--all-sessions)\n"
          "                                   [--filter F] [--order-by ORDER] [--limit N]\n"
          "                                   [--state STATE] [--json FILE|-]\n"
          "       wasserwarp validations show|watch --server HOST:PORT [--session ID]\n"
          "                                   (--validation V | V) [--json FILE|-]\n"
          "                                   [--report FILE] [--cost-matrix]\n"
          "       wasserwarp validations history --server HOST:PORT --filter F --by "
          "labels.KEY\n"
          "                                   [--session ID] [--json FILE|-] [--report "
          "FILE.html]\n"
          "       wasserwarp validations latest --server HOST:PORT --filter F [--session ID]\n"
          "                                   [--json FILE|-] [--report FILE]\n"
          "       wasserwarp validations cancel|delete --server HOST:PORT [--session ID]\n"
          "                                   (--validation V | V)\n"
          "\n"
          "A server keeps each validation, with its report, as a record: those of 'validate\n"
          "--session' and those queued with 'validate --detach', which prints the "
          "validation's\n"
          "name and ends at once. Records stay when their session's runs go, until they are\n"
          "deleted; 'validate --label KEY=VALUE' labels them so that they can be found.\n"
          "\n"
          "  list     validations newest first: id, state, times, W, verdict, labels, error\n"
          "  show     an ended validation's record and report, exactly as 'validate' prints "
          "it,\n"
          "           with its exit status: 0 PASS (or no verdict), 1 FAIL; a failed or\n"
          "           cancelled one's error, with the exit status validate gives it (2 or 3); "
          "a\n"
          "           validation still queued or running: its state and progress, exit "
          "status 4\n"
          "  history  the matching records in the order of the --by label's values: W, "
          "ratio\n"
          "           and interval, p, verdict and name\n"
          "  latest   the newest matching record, shown and with the exit status as 'show',\n"
          "           so that a pipeline can gate on a validation run earlier\n"
          "  watch    follows the validation with a progress bar (on a terminal) until it "
          "ends,\n"
          "           then shows it as 'show' does\n"
          "  cancel   cancels the validation and prints its state: a queued one ends "
          "cancelled at\n"
          "           once, a running one when its job stops\n"
          "  delete   deletes an ended validation's record\n",
          ValidationsSections()),
      .flags = ValidationsFlags(),
      .judge = &RunValidations,
  };
}

}  // namespace wasserwarp::cli
