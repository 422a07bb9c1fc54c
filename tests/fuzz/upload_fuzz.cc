// UploadSeries message sequences, as a hostile or broken client could send
// them, through the stream's state machine (UploadState) on a fresh session
// store with small limits. Messages are drawn field by field, so that most
// reach the checks deep in a run, or parsed from raw bytes, so that any wire
// content can arrive. Whatever the sequence, once the stream is over:
// - nothing stays reserved: the store holds exactly its sessions' runs;
// - every committed run is valid, within the limits, in a session the
//   stream's principal owns, and is what the response reports;
// - a committed run's parameters and trial follow the parameter file's rules
//   (run_parameters.h), and only simulated runs have them;
// - every refusal carries a message and one of the codes a client is told.

#include <fuzzer/FuzzedDataProvider.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "fuzz_numbers.h"
#include "google/protobuf/stubs/logging.h"
#include "ops/server_config.h"
#include "rpc/upload_state.h"
#include "sessions/session_store.h"
#include "wasserwarp/run_parameters.h"
#include "wasserwarp/series.h"
#include "wasserwarp/v1/validation.pb.h"

namespace wasserwarp::fuzz {
namespace {

using service::SessionLimits;
using service::SessionSettings;
using service::SessionSnapshot;
using service::SessionStore;
using service::StoredRun;
using service::UploadState;

// Owned by different principals, so that writing into another's session is
// tried too.
constexpr const char* kSessionIds[] = {"mine", "theirs"};
constexpr const char* kOwners[] = {"", "mallory"};
constexpr size_t kMaxMessages = 48;

void Require(bool condition, std::string_view what) {
  if (condition) return;
  std::fprintf(stderr, "upload_fuzz: %.*s\n", static_cast<int>(what.size()), what.data());
  std::abort();
}

// Small enough that every limit is reached by short inputs.
SessionLimits FuzzLimits() {
  SessionLimits limits;
  limits.max_sessions = 4;
  limits.max_runs_per_session = 4;
  limits.max_samples_per_run = 64;
  limits.max_session_bytes = 4096;
  limits.max_total_bytes = 6144;
  return limits;
}

std::string DrawSessionName(FuzzedDataProvider& input) {
  switch (input.ConsumeIntegralInRange<int>(0, 15)) {
    case 0:
      return "sessions/theirs";
    case 1:
      return "sessions/missing";
    case 2:
      return "mine";  // not a resource name
    case 3:
      return input.ConsumeRandomLengthString(40);
    case 4:
    case 5:
    case 6:
      return "sessions/mine";
    default:
      return "";
  }
}

// Most streams start right, so that most inputs get to the runs.
std::string DrawFirstSessionName(FuzzedDataProvider& input) {
  return input.ConsumeIntegralInRange<int>(0, 7) == 0 ? DrawSessionName(input) : "sessions/mine";
}

// What the stream has declared so far, so that most messages fit it: the
// checks deep in a run are reached only by runs that are right up to there.
struct StreamShape {
  int channels = 1;
  int samples = 0;
  double last_time = 0.0;
};

// A well-formed draw three times in four; otherwise anything.
bool DrawWellFormed(FuzzedDataProvider& input) {
  return input.ConsumeIntegralInRange<int>(0, 3) != 0;
}

// A parameter study's inputs: names and trials mostly right, and anything the rules refuse
// (a digit first, a comma, too long, control bytes), with edgy values.
void DrawStudyInputs(FuzzedDataProvider& input, bool well_formed, v1::SeriesHeader& header) {
  constexpr const char* kNames[] = {"front_cornering", "yaw_inertia", "mass.kg"};
  constexpr const char* kTrials[] = {"t1", "t2", "seed-7"};
  const int parameters = input.ConsumeIntegralInRange<int>(0, well_formed ? 3 : 80);
  for (int k = 0; k < parameters; ++k) {
    const std::string name = well_formed || input.ConsumeBool()
                                 ? kNames[input.ConsumeIntegralInRange<size_t>(0, 2)]
                                 : input.ConsumeRandomLengthString(80);
    const double value =
        well_formed ? input.ConsumeIntegralInRange<int>(-4096, 4096) / 16.0 : EdgyDouble(input);
    (*header.mutable_parameters())[name] = value;
  }
  if (input.ConsumeBool()) {
    header.set_trial(well_formed || input.ConsumeBool()
                         ? kTrials[input.ConsumeIntegralInRange<size_t>(0, 2)]
                         : input.ConsumeRandomLengthString(140));
  }
}

void DrawHeader(FuzzedDataProvider& input, StreamShape& shape, v1::SeriesHeader& header) {
  constexpr const char* kIds[] = {"a", "b", "c"};
  constexpr const char* kChannels[] = {"x", "y", "z"};
  shape.samples = 0;
  if (DrawWellFormed(input)) {
    shape.last_time = 0.0;
    header.set_role(input.ConsumeBool() ? v1::ROLE_SIMULATION : v1::ROLE_REFERENCE);
    header.set_series_id(kIds[input.ConsumeIntegralInRange<size_t>(0, std::size(kIds) - 1)]);
    shape.channels = input.ConsumeIntegralInRange<int>(1, 3);
    for (int c = 0; c < shape.channels; ++c) header.add_channels(kChannels[c]);
    if (input.ConsumeBool()) header.set_weight(input.ConsumeIntegralInRange<int>(0, 16) / 4.0);
    if (header.role() == v1::ROLE_SIMULATION && input.ConsumeBool()) {
      DrawStudyInputs(input, true, header);
    }
    return;
  }
  header.set_role(static_cast<v1::Role>(input.ConsumeIntegralInRange<int>(0, 3)));
  header.set_series_id(input.ConsumeRandomLengthString(64));
  shape.channels = input.ConsumeIntegralInRange<int>(0, 3);
  for (int c = 0; c < shape.channels; ++c) {
    header.add_channels(input.ConsumeBool() ? kChannels[input.ConsumeIntegralInRange<size_t>(0, 2)]
                                            : input.ConsumeRandomLengthString(8));
  }
  if (input.ConsumeBool()) header.set_weight(EdgyDouble(input));
  if (input.ConsumeBool()) DrawStudyInputs(input, false, header);
}

void DrawChunk(FuzzedDataProvider& input, StreamShape& shape, v1::SeriesChunk& chunk) {
  const int samples = input.ConsumeIntegralInRange<int>(0, 12);
  if (DrawWellFormed(input)) {
    for (int i = 0; i < samples; ++i) {
      shape.last_time += input.ConsumeIntegralInRange<int>(1, 64) / 64.0;
      chunk.add_times(shape.last_time);
      for (int c = 0; c < shape.channels; ++c) {
        chunk.add_values(input.ConsumeIntegralInRange<int>(-4096, 4096) / 16.0);
      }
    }
    shape.samples += samples;
    return;
  }
  for (int i = 0; i < samples; ++i) {
    shape.last_time = NextTime(input, shape.last_time);
    chunk.add_times(shape.last_time);
  }
  const int values =
      input.ConsumeBool() ? samples * shape.channels : input.ConsumeIntegralInRange<int>(0, 40);
  for (int k = 0; k < values; ++k) chunk.add_values(EdgyDouble(input));
  shape.samples += samples;
}

void DrawEnd(FuzzedDataProvider& input, const StreamShape& shape, v1::SeriesEnd& end) {
  switch (input.ConsumeIntegralInRange<int>(0, 3)) {
    case 0:
      end.set_expected_samples(shape.samples);
      break;
    case 1:
      end.set_expected_samples(input.ConsumeIntegral<int64_t>());
      break;
    default:
      break;  // unset: no expectation
  }
}

v1::UploadSeriesRequest DrawMessage(FuzzedDataProvider& input, bool first, StreamShape& shape) {
  v1::UploadSeriesRequest message;
  const int kind = input.ConsumeIntegralInRange<int>(0, 15);
  if (kind == 0) {
    // Any bytes that parse as the message.
    const std::string bytes = input.ConsumeRandomLengthString(256);
    if (!message.ParseFromString(bytes)) message.Clear();
    return message;
  }
  message.set_session(first ? DrawFirstSessionName(input) : DrawSessionName(input));
  if (kind <= 4) {
    DrawHeader(input, shape, *message.mutable_header());
  } else if (kind <= 11) {
    DrawChunk(input, shape, *message.mutable_chunk());
  } else if (kind <= 14) {
    DrawEnd(input, shape, *message.mutable_end());
  }
  return message;
}

void RequireClientStatus(const absl::Status& status) {
  using Code = absl::StatusCode;
  const Code code = status.code();
  Require(code == Code::kInvalidArgument || code == Code::kNotFound ||
              code == Code::kAlreadyExists || code == Code::kResourceExhausted,
          absl::StrCat("unexpected status ", status.ToString()));
  Require(!status.message().empty(), "a refusal without a message");
}

// What a run carries for a parameter study, as the upload's checks promise it.
void CheckStudyInputs(const StoredRun& run) {
  const SimulationInputs& inputs = run.inputs;
  Require(run.role == RunRole::kSimulation || (inputs.parameters.empty() && inputs.trial.empty()),
          "a reference run with parameters or a trial");
  Require(inputs.parameters.size() <= kMaxRunParameters, "over kMaxRunParameters");
  for (const auto& [name, value] : inputs.parameters) {
    Require(ParameterNameFault(name).empty(), absl::StrCat("a bad parameter name ", name));
    Require(std::isfinite(value), absl::StrCat("a non-finite parameter ", name));
  }
  Require(TrialFault(inputs.trial).empty(), absl::StrCat("a bad trial ", inputs.trial));
}

// The store after the stream: only committed runs remain, and they are the
// ones the response reports.
void CheckStore(SessionStore& store, const SessionLimits& limits, const std::string& principal,
                const v1::UploadSeriesResponse& response) {
  int64_t held = 0;
  int64_t runs = 0;
  int64_t samples = 0;
  for (size_t s = 0; s < std::size(kSessionIds); ++s) {
    absl::StatusOr<SessionSnapshot> snapshot = store.Snapshot(kSessionIds[s], kOwners[s]);
    Require(snapshot.ok(), "a session vanished");
    const std::vector<StoredRun>* sides[] = {&snapshot->simulation, &snapshot->reference};
    const int64_t session_runs =
        static_cast<int64_t>(snapshot->simulation.size() + snapshot->reference.size());
    Require(session_runs <= limits.max_runs_per_session, "over --max_runs_per_session");
    Require(session_runs == 0 || kOwners[s] == principal,
            "runs committed into another principal's session");
    for (const std::vector<StoredRun>* side : sides) {
      for (const StoredRun& run : *side) {
        Require(ValidateSeries(*run.series).ok(), "an invalid run was committed");
        CheckStudyInputs(run);
        Require(static_cast<int64_t>(run.series->samples()) <= limits.max_samples_per_run,
                "over --max_samples_per_run");
        held += run.bytes;
        samples += static_cast<int64_t>(run.series->samples());
        ++runs;
      }
    }
  }
  Require(store.total_bytes() == held,
          absl::StrCat("the store counts ", store.total_bytes(), " bytes, its runs hold ", held));
  Require(held <= limits.max_total_bytes, "over --max_total_bytes");
  Require(response.committed_runs_size() == runs, "the response misses committed runs");
  Require(response.committed_samples() == samples, "the response miscounts samples");
}

// One stream drawn from `data` on a fresh store.
void CheckStream(const uint8_t* data, size_t size) {
  FuzzedDataProvider input(data, size);
  const SessionLimits limits = FuzzLimits();
  SessionStore store(limits);
  for (size_t s = 0; s < std::size(kSessionIds); ++s) {
    SessionSettings settings;
    settings.owner = kOwners[s];
    Require(store.Create(kSessionIds[s], settings).ok(), "cannot create a session");
  }
  // Mostly the owner of "mine"; sometimes another principal, to whom it does
  // not exist.
  const std::string principal = kOwners[input.ConsumeIntegralInRange<int>(0, 7) == 0 ? 1 : 0];
  v1::UploadSeriesResponse response;
  {
    UploadState state(store, limits, &response, principal);
    StreamShape shape;
    bool failed = false;
    for (size_t m = 0; m < kMaxMessages && input.remaining_bytes() > 0; ++m) {
      const absl::Status status = state.Handle(DrawMessage(input, m == 0, shape));
      if (!status.ok()) {
        RequireClientStatus(status);
        // As the reactor does when it ends the call.
        state.Discard();
        failed = true;
        break;
      }
    }
    // Otherwise the client cancelled: the state goes without an end.
    if (!failed && input.ConsumeBool()) {
      const absl::Status status = state.EndOfStream();
      if (!status.ok()) RequireClientStatus(status);
    }
  }
  CheckStore(store, limits, principal, response);
}

}  // namespace
}  // namespace wasserwarp::fuzz

// Raw bytes often hold invalid UTF-8 in string fields, which protobuf logs on
// every parse; the refusal is what matters, not the log line.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  google::protobuf::SetLogHandler(nullptr);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  wasserwarp::fuzz::CheckStream(data, size);
  return 0;
}
