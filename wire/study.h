// Parameter studies on the wire: a request's StudyParameters as the core's options, and the
// core's sensitivity and identification reports as protos and back, number for number.

#ifndef WASSERWARP_WIRE_STUDY_H_
#define WASSERWARP_WIRE_STUDY_H_

#include <map>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "wasserwarp/identification.h"
#include "wasserwarp/sensitivity.h"
#include "wasserwarp/v1/validation.pb.h"

namespace wasserwarp::wire {

// One of sensitivity and identify is set; the options' study part in both. The reference
// groups stay keyed by run id until the runs are known (ReferenceGroupsFor).
struct StudyRequest {
  std::optional<SensitivityOptions> sensitivity;
  std::optional<IdentifyOptions> identify;
  std::map<std::string, std::string> reference_groups;
};

// InvalidArgument about the field ("sensitivity.nominal", "resamples", ...; the caller puts
// "study." before it) for a request without an analysis, a sensitivity without a nominal
// vector, a non-finite value, and what ValidateStudyOptions refuses.
absl::StatusOr<StudyRequest> StudyRequestFromProto(const v1::StudyParameters& proto);

// What the CLI sends for the options it read; `groups` by reference run id, empty for none.
v1::StudyParameters StudyParametersOf(const SensitivityOptions& options);
v1::StudyParameters StudyParametersOf(const IdentifyOptions& options,
                                      const std::map<std::string, std::string>& groups);

void SensitivityToProto(const SensitivityReport& report, v1::SensitivityReport& proto);
SensitivityReport SensitivityFromProto(const v1::SensitivityReport& proto);
void IdentificationToProto(const IdentificationReport& report, v1::IdentificationReport& proto);
IdentificationReport IdentificationFromProto(const v1::IdentificationReport& proto);

}  // namespace wasserwarp::wire

#endif  // WASSERWARP_WIRE_STUDY_H_
