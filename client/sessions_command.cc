#include "sessions_command.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "flag_definition.h"
#include "label_flags.h"
#include "resource_format.h"
#include "server_flags.h"
#include "validation_client.h"
#include "validation_flags.h"
#include "wasserwarp/prepare.h"
#include "wire/resource_names.h"

namespace wasserwarp::cli {
namespace {

using Client = client::ValidationClient;

// What a subcommand does on the server, once its flags have been read and checked: a usage
// error should not depend on the server being up.
using Action = std::function<absl::Status(Client& client)>;

struct Subcommand {
  absl::string_view name;
  // Flags besides --server and the security flags that it takes.
  std::vector<DocumentedFlag> flags;
  absl::StatusOr<Action> (*prepare)(const ParsedArgs& args);
};

std::string FormatDuration(const google::protobuf::Duration& duration) {
  return absl::FormatDuration(absl::Seconds(duration.seconds()) +
                              absl::Nanoseconds(duration.nanos()));
}

std::string FormatBytes(int64_t bytes) {
  if (bytes < 1024) return absl::StrCat(bytes, " B");
  double value = static_cast<double>(bytes);
  for (const char* unit : {"KiB", "MiB", "GiB"}) {
    value /= 1024.0;
    if (value < 1024.0 || absl::string_view(unit) == "GiB") {
      return absl::StrFormat("%.1f %s", value, unit);
    }
  }
  return "";
}

// The parameters a session sets; the others are the server's defaults.
std::string FormatParameters(const v1::ValidationParameters& params) {
  std::vector<std::string> set;
  if (params.has_nu()) set.push_back(absl::StrFormat("nu %g", params.nu()));
  if (params.has_deletion_penalty()) {
    set.push_back(absl::StrFormat("lambda %g", params.deletion_penalty()));
  }
  if (params.has_p()) set.push_back(absl::StrFormat("p %g", params.p()));
  if (params.has_time_window()) {
    set.push_back(absl::StrFormat("time window %g s", params.time_window()));
  }
  if (params.align() != v1::ALIGNMENT_UNSPECIFIED) {
    const Align align = params.align() == v1::ALIGNMENT_NONE ? Align::kNone : Align::kStart;
    set.push_back(absl::StrCat("align ", std::string(AlignName(align))));
  }
  if (params.scale() != v1::SCALING_UNSPECIFIED) {
    const Scale scale =
        params.scale() == v1::SCALING_REFERENCE_STD ? Scale::kReferenceStd : Scale::kNone;
    set.push_back(absl::StrCat("scale ", std::string(ScaleName(scale))));
  }
  if (params.has_order()) set.push_back(absl::StrFormat("order %g", params.order()));
  if (!params.channels().empty()) {
    set.push_back(absl::StrCat("channels ", absl::StrJoin(params.channels(), ",")));
  }
  return set.empty() ? "the server's" : absl::StrJoin(set, ", ");
}

absl::Status ReadTtl(absl::string_view flag, const ParsedArgs& args, v1::Session& settings) {
  const std::string& text = *args.Value(flag);
  absl::Duration ttl;
  if (!absl::ParseDuration(text, &ttl) || ttl <= absl::ZeroDuration() ||
      ttl == absl::InfiniteDuration()) {
    return FlagError(flag,
                     absl::StrCat("expected a duration such as 8h or 90m, got \"", text, "\""));
  }
  const int64_t seconds = absl::ToInt64Seconds(ttl);
  settings.mutable_idle_ttl()->set_seconds(seconds);
  settings.mutable_idle_ttl()->set_nanos(
      static_cast<int32_t>(absl::ToInt64Nanoseconds(ttl - absl::Seconds(seconds))));
  return absl::OkStatus();
}

absl::Status ReadSessionLabels(absl::string_view flag, const ParsedArgs& args,
                               v1::Session& settings) {
  Labels labels;
  if (absl::Status status = kLabelFlag.read(flag, args, labels); !status.ok()) return status;
  settings.mutable_labels()->insert(labels.begin(), labels.end());
  return absl::OkStatus();
}

// What `create` sets besides the default parameters.
const FlagDefinition<v1::Session> kSettingFlags[] = {
    {"--ttl", Arity::kOne, "DURATION",
     "create: delete the session after it has been idle this long,\n"
     "e.g. 90m or 720h (default: the server's)",
     &ReadTtl},
    {kLabelFlag.name, kLabelFlag.arity, kLabelFlag.value_name,
     "create: labels to tell sessions apart; repeatable", &ReadSessionLabels},
};

absl::Status ReadSettings(const ParsedArgs& args, v1::Session& settings) {
  absl::StatusOr<v1::ValidationParameters> defaults = GivenParameters(args);
  if (!defaults.ok()) return defaults.status();
  *settings.mutable_default_parameters() = *std::move(defaults);
  return ReadFlags<v1::Session>(kSettingFlags, args, settings);
}

absl::StatusOr<Action> Create(const ParsedArgs& args) {
  const std::string* session_id = args.Value(kSessionFlag.name);
  v1::Session settings;
  if (absl::Status status = ReadSettings(args, settings); !status.ok()) return status;
  return [session_id = session_id == nullptr ? "" : *session_id,
          settings = std::move(settings)](Client& client) -> absl::Status {
    absl::StatusOr<v1::Session> session = client.CreateSession(session_id, settings);
    if (!session.ok()) return session.status();
    // The id alone, so that a script can capture it when the server chose it.
    std::printf("%s\n", std::string(wire::SessionIdOf(session->name())).c_str());
    return absl::OkStatus();
  };
}

constexpr DocumentedFlag kShowDeletedFlag = {
    "--show-deleted", Arity::kSwitch, "",
    "list: the tombstones of expired and deleted sessions too, which\n"
    "keep their validation records readable, with a state column"};

absl::StatusOr<Action> List(const ParsedArgs& args) {
  const bool show_deleted = args.Has(kShowDeletedFlag.name);
  return [show_deleted](Client& client) -> absl::Status {
    absl::StatusOr<std::vector<v1::Session>> sessions = client.ListSessions(show_deleted);
    if (!sessions.ok()) return sessions.status();
    if (sessions->empty()) {
      std::puts("no sessions");
      return absl::OkStatus();
    }
    // A tombstone's expiry is when it went, so that column says "deleted" for it.
    std::vector<Row> rows = {{"session", "simulated", "reference", "held", "expires", "labels"}};
    if (show_deleted) rows[0].insert(rows[0].begin() + 1, "state");
    for (const v1::Session& session : *sessions) {
      const bool tombstone = session.state() == v1::Session::STATE_EXPIRED ||
                             session.state() == v1::Session::STATE_DELETED;
      Row row = {std::string(wire::SessionIdOf(session.name())),
                 absl::StrCat(session.simulation_run_count()),
                 absl::StrCat(session.reference_run_count()),
                 FormatBytes(session.bytes_held()),
                 tombstone ? absl::StrCat("gone ", FormatTimestamp(session.delete_time()))
                           : FormatTimestamp(session.expire_time()),
                 FormatLabels(session.labels())};
      if (show_deleted) row.insert(row.begin() + 1, std::string(SessionStateName(session.state())));
      rows.push_back(std::move(row));
    }
    std::fputs(FormatTable(rows).c_str(), stdout);
    return absl::OkStatus();
  };
}

// The run's channels as a CSV header names them: `yaw_rate[deg/s]` where the run has a unit.
std::string ChannelsWithUnits(const v1::RunInfo& run) {
  std::vector<std::string> names;
  for (int c = 0; c < run.channels_size(); ++c) {
    const bool has_unit = c < run.units_size() && !run.units(c).empty();
    names.push_back(has_unit ? absl::StrCat(run.channels(c), "[", run.units(c), "]")
                             : run.channels(c));
  }
  return absl::StrJoin(names, ",");
}

std::string FormatSession(const v1::Session& session) {
  std::string out = absl::StrFormat("session: %s\n", wire::SessionIdOf(session.name()));
  absl::StrAppendFormat(&out, "created: %s\n", FormatTimestamp(session.create_time()));
  if (session.state() == v1::Session::STATE_EXPIRED ||
      session.state() == v1::Session::STATE_DELETED) {
    // A tombstone: its runs are listed as of its last validation, without their samples.
    absl::StrAppendFormat(&out, "state: %s at %s; its validation records stay readable\n",
                          SessionStateName(session.state()),
                          FormatTimestamp(session.delete_time()));
  }
  absl::StrAppendFormat(&out, "expires: %s (after %s idle)\n",
                        FormatTimestamp(session.expire_time()), FormatDuration(session.idle_ttl()));
  absl::StrAppendFormat(&out, "labels: %s\n", FormatLabels(session.labels()));
  absl::StrAppendFormat(&out, "default parameters: %s\n",
                        FormatParameters(session.default_parameters()));
  absl::StrAppendFormat(&out, "runs: %d simulated, %d reference, %s held\n",
                        session.simulation_run_count(), session.reference_run_count(),
                        FormatBytes(session.bytes_held()));
  if (session.runs().empty()) return out;
  std::vector<Row> rows = {{"role", "id", "samples", "weight", "channels"}};
  for (const v1::RunInfo& run : session.runs()) {
    rows.push_back({run.role() == v1::ROLE_SIMULATION ? "simulation" : "reference", run.series_id(),
                    absl::StrCat(run.samples()),
                    run.has_weight() ? absl::StrFormat("%g", run.weight()) : "-",
                    ChannelsWithUnits(run)});
  }
  absl::StrAppend(&out, FormatTable(rows));
  return out;
}

absl::StatusOr<Action> Show(const ParsedArgs& args) {
  absl::StatusOr<std::string> session_id = RequiredSession(args, "sessions show");
  if (!session_id.ok()) return session_id.status();
  return [session_id = *std::move(session_id)](Client& client) -> absl::Status {
    absl::StatusOr<v1::Session> session = client.GetSession(session_id);
    if (!session.ok()) return session.status();
    std::fputs(FormatSession(*session).c_str(), stdout);
    return absl::OkStatus();
  };
}

absl::StatusOr<Action> Delete(const ParsedArgs& args) {
  absl::StatusOr<std::string> session_id = RequiredSession(args, "sessions delete");
  if (!session_id.ok()) return session_id.status();
  return [session_id = *std::move(session_id)](Client& client) -> absl::Status {
    if (absl::Status deleted = client.DeleteSession(session_id); !deleted.ok()) return deleted;
    std::printf("deleted session %s\n", session_id.c_str());
    return absl::OkStatus();
  };
}

std::vector<DocumentedFlag> CreateFlags() {
  std::vector<DocumentedFlag> flags = ValidationParameterFlags();
  flags.push_back(kSessionFlag);
  const std::vector<DocumentedFlag> settings = Documented<v1::Session>(kSettingFlags);
  flags.insert(flags.end(), settings.begin(), settings.end());
  return flags;
}

const std::vector<Subcommand>& Subcommands() {
  static const std::vector<Subcommand>* const subcommands = new std::vector<Subcommand>{
      {"create", CreateFlags(), &Create},
      {"list", {kShowDeletedFlag}, &List},
      {"show", {kSessionFlag}, &Show},
      {"delete", {kSessionFlag}, &Delete},
  };
  return *subcommands;
}

// Every flag of every subcommand, for the parser; each subcommand then refuses the others.
std::vector<FlagSpec> SessionsFlags() {
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

absl::Status RunSessions(const ParsedArgs& args) {
  const std::vector<std::string>& positional = args.positional();
  const auto subcommand = positional.empty()
                              ? Subcommands().end()
                              : std::find_if(Subcommands().begin(), Subcommands().end(),
                                             [&](const Subcommand& candidate) {
                                               return candidate.name == positional[0];
                                             });
  if (subcommand == Subcommands().end()) {
    return absl::InvalidArgumentError(
        positional.empty() ? "sessions: expected create, list, show or delete"
                           : absl::StrCat("sessions: unknown subcommand \"", positional[0],
                                          "\"; expected create, list, show or delete"));
  }
  if (positional.size() > 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "sessions ", subcommand->name, ": unexpected argument \"", positional[1], "\""));
  }
  for (const FlagSpec& flag : SessionsFlags()) {
    const bool allowed =
        flag.name == kServerFlag.name || IsSecurityFlag(flag.name) ||
        std::any_of(subcommand->flags.begin(), subcommand->flags.end(),
                    [&](const DocumentedFlag& own) { return own.name == flag.name; });
    if (!allowed && args.Has(flag.name)) {
      return absl::InvalidArgumentError(
          absl::StrCat("sessions ", subcommand->name, ": ", flag.name, " does not apply"));
    }
  }
  absl::StatusOr<Action> action = subcommand->prepare(args);
  if (!action.ok()) return action.status();
  absl::StatusOr<std::unique_ptr<Client>> client =
      ConnectToServer(args, absl::StrCat("sessions ", subcommand->name));
  if (!client.ok()) return client.status();
  return (*action)(**client);
}

// The parser takes SessionsFlags(); these are the same flags, as a person reads them.
std::vector<FlagSection> SessionsSections() {
  std::vector<DocumentedFlag> options = {kServerFlag, kSessionFlag, kShowDeletedFlag};
  const std::vector<DocumentedFlag> settings = Documented<v1::Session>(kSettingFlags);
  options.insert(options.end(), settings.begin(), settings.end());
  const std::vector<DocumentedFlag> security = SecurityFlags();
  options.insert(options.end(), security.begin(), security.end());
  return {
      {"options", options},
      {"default parameters of the session's validations (create; an option "
       "left out takes\n"
       "the server's default, shown in parentheses)",
       ValidationParameterFlags()},
  };
}

}  // namespace

Command SessionsCommand() {
  return {
      .name = "sessions",
      .synopsis =
          "sessions create|list|show|delete --server HOST:PORT "
          "[--session ID] [options]",
      .usage = HelpText("usage: wasserwarp sessions create --server HOST:PORT [--session ID] "
                        "[options]\n"
                        "       wasserwarp sessions list --server HOST:PORT [--show-deleted]\n"
                        "       wasserwarp sessions show --server HOST:PORT --session ID\n"
                        "       wasserwarp sessions delete --server HOST:PORT --session ID\n"
                        "\n"
                        "A session on a wasserwarp-server holds runs between uploads and "
                        "validations, so that\n"
                        "a bench uploads its reference runs once and validates against them "
                        "for weeks (see\n"
                        "'wasserwarp upload' and 'wasserwarp validate --session'). It is "
                        "deleted with\n"
                        "'sessions delete' or by the server after it has been idle for its "
                        "time to live.\n"
                        "\n"
                        "  create   creates a session and prints its id; without --session "
                        "the server\n"
                        "           chooses one\n"
                        "  list     one line per session: runs, bytes held, expiry, labels; with\n"
                        "           --show-deleted also the tombstones and each one's state\n"
                        "  show     the session's settings and the runs it holds, with "
                        "samples and channels\n"
                        "  delete   deletes the session's runs; one with validation records "
                        "stays as a\n"
                        "           tombstone that keeps them readable (deleting the "
                        "tombstone purges them)\n",
                        SessionsSections()),
      .flags = SessionsFlags(),
      .run = &RunSessions,
  };
}

}  // namespace wasserwarp::cli
