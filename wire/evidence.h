// What a report says it is evidence of (the validation's labels, the engine that computed it,
// its request digest, where each run came from) between the core's types and the protos. The
// report's conversion (convert.h) uses these, and so do the session's runs (RunSource).

#ifndef WASSERWARP_WIRE_EVIDENCE_H_
#define WASSERWARP_WIRE_EVIDENCE_H_

#include <map>
#include <optional>
#include <string>

#include "google/protobuf/map.h"
#include "wasserwarp/engine_info.h"
#include "wasserwarp/report.h"
#include "wasserwarp/run_source.h"
#include "wasserwarp/v1/validation.pb.h"

namespace wasserwarp::wire {

void RunSourceToProto(const RunSource& source, v1::RunSource& proto);
// std::nullopt for an unset message: the client said nothing of where the run came from.
std::optional<RunSource> RunSourceFromProto(bool has_source, const v1::RunSource& proto);

void EngineToProto(const EngineInfo& engine, v1::EngineInfo& proto);
EngineInfo EngineFromProto(const v1::EngineInfo& proto);

std::map<std::string, std::string> LabelsFromProto(
    const google::protobuf::Map<std::string, std::string>& labels);
void LabelsToProto(const std::map<std::string, std::string>& labels,
                   google::protobuf::Map<std::string, std::string>& proto);

// The report's labels, engine, request digest and link (the runs' sources go with the runs).
void EvidenceToProto(const ValidationReport& report, v1::ValidationReport& proto);
void EvidenceFromProto(const v1::ValidationReport& proto, ValidationReport& report);

}  // namespace wasserwarp::wire

#endif  // WASSERWARP_WIRE_EVIDENCE_H_
