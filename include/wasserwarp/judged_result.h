// What a release pipeline's test and metrics reports need of a judged result (a validation, a
// comparison, a parameter study), whichever command judged it: the JUnit XML
// (wasserwarp/junit_report.h) and OpenMetrics (wasserwarp/openmetrics_report.h) writers read
// only this, so that both say the same about every command.

#ifndef WASSERWARP_JUDGED_RESULT_H_
#define WASSERWARP_JUDGED_RESULT_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"

namespace wasserwarp {

// One decision: a JUnit testcase, and the wasserwarp_rule_* samples labelled rule="<name>".
struct JudgedRule {
  std::string name;  // "max_distance", "max_ratio", "alpha", a study's check, ...
  bool pass = true;
  // Absent for a check that has no number (the surface of an identification is convex).
  std::optional<double> value;
  std::optional<double> threshold;
  // What `value` is, in words; for a check without a value, what its failure means.
  std::string basis;
};

// A number of the result: property wasserwarp.<name>, gauge wasserwarp_<name>. Names are
// [a-z_]+, legal in both.
struct JudgedMeasure {
  std::string name;
  double value = 0.0;
};

struct JudgedResult {
  std::string suite;      // the testsuite's name
  std::string classname;  // of every testcase, e.g. "wasserwarp.validate"
  absl::Time timestamp;   // when the command started
  double seconds = 0.0;   // the command's wall time
  std::vector<JudgedMeasure> measures;
  // JUnit properties only, wasserwarp.<key>, empty values left out: engine_version, link.
  std::map<std::string, std::string> texts;
  std::map<std::string, std::string> labels;  // the validation's labels
  std::vector<JudgedRule> rules;              // in the order the command judged them
  // Not OK: the command could not run, and there is nothing else to report.
  absl::Status error;
  // Set: nothing was judged yet (a stored validation still queued or running), and why.
  std::optional<std::string> skipped;
};

}  // namespace wasserwarp

#endif  // WASSERWARP_JUDGED_RESULT_H_
