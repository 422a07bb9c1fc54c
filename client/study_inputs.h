// What `sensitivity` and `identify` share: the runs and their parameter file, the validation
// options the study's cost matrix is computed with, the bootstrap's options, and the one cost
// matrix itself, computed here or, with --server, by two validations on a wasserwarp-server.

#ifndef WASSERWARP_CLIENT_STUDY_INPUTS_H_
#define WASSERWARP_CLIENT_STUDY_INPUTS_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "args.h"
#include "flag_definition.h"
#include "run_flags.h"
#include "wasserwarp/parameter_study.h"
#include "wasserwarp/run_parameters.h"
#include "wasserwarp/v1/validation.pb.h"
#include "wasserwarp/validation.h"

namespace wasserwarp::cli {

inline constexpr DocumentedFlag kSimParamsFlag = {
    "--sim-params", Arity::kOne, "FILE",
    "the parameters of each simulated run (required): a CSV with the\n"
    "header run_id,<param>,...[,trial]; runs with the same values form a\n"
    "design point, runs of one trial share their random inputs"};

inline constexpr DocumentedFlag kNominalFlag = {"--nominal", Arity::kOne, "K=V[,K=V...]",
                                                "the nominal parameter vector"};

struct StudyInputs {
  RunSets runs;
  // Each simulated run's parameters and trial, in run order: what an upload sends.
  std::vector<SimulationInputs> inputs;
  StudyDesign design;
  ValidationOptions validation;  // how the cost matrix is computed
  StudyOptions study;
};

// The sections every study command lists: runs (--sim, --ref, --sim-params), comparison (the
// validation parameter flags and --qoi), resampling (--resamples, --confidence, --splits,
// --seed, --threads), server, and output (--json, --report). `extra_runs` go with the runs.
std::vector<FlagSection> StudySections(const std::vector<DocumentedFlag>& extra_runs,
                                       const std::vector<DocumentedFlag>& extra_analysis);

// Reads and checks every option before any run is read, then the runs and the parameter file;
// errors name the flag, or the file, line and column.
absl::StatusOr<StudyInputs> ReadStudyInputs(const ParsedArgs& args, absl::string_view command);

// --nominal, parsed; nothing when not given.
absl::StatusOr<std::optional<std::map<std::string, double>>> ReadNominal(const ParsedArgs& args);

// The study's costs here, checked against this machine's limits first.
absl::StatusOr<StudyCosts> ComputeCosts(const StudyInputs& inputs);

// "fixed: zeta=0.7, mass=1500\n", the summary's line for a design's fixed parameters; empty
// without any.
std::string FixedParametersLine(const std::vector<FixedParameter>& fixed);

// With --server: the runs with their parameters and trials in a session of its own, the study
// `study` asks for computed there as one validation with progress on stderr, and its report as
// it came; the session is deleted whatever happened.
absl::StatusOr<v1::ValidationReport> StudyOnServer(const ParsedArgs& args,
                                                   const StudyInputs& inputs,
                                                   v1::StudyParameters study,
                                                   absl::string_view command);

}  // namespace wasserwarp::cli

#endif  // WASSERWARP_CLIENT_STUDY_INPUTS_H_
