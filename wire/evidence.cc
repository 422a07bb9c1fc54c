#include "wire/evidence.h"

namespace wasserwarp::wire {

void RunSourceToProto(const RunSource& source, v1::RunSource& proto) {
  proto.set_file(source.file);
  proto.set_sha256(source.sha256);
}

std::optional<RunSource> RunSourceFromProto(bool has_source, const v1::RunSource& proto) {
  if (!has_source) return std::nullopt;
  return RunSource{.file = proto.file(), .sha256 = proto.sha256()};
}

void EngineToProto(const EngineInfo& engine, v1::EngineInfo& proto) {
  proto.set_version(engine.version);
  proto.set_commit(engine.commit);
  proto.set_build_type(engine.build_type);
  proto.set_simd_target(engine.simd_target);
}

EngineInfo EngineFromProto(const v1::EngineInfo& proto) {
  return {.version = proto.version(),
          .commit = proto.commit(),
          .build_type = proto.build_type(),
          .simd_target = proto.simd_target()};
}

std::map<std::string, std::string> LabelsFromProto(
    const google::protobuf::Map<std::string, std::string>& labels) {
  return std::map<std::string, std::string>(labels.begin(), labels.end());
}

void LabelsToProto(const std::map<std::string, std::string>& labels,
                   google::protobuf::Map<std::string, std::string>& proto) {
  proto.clear();
  for (const auto& [key, value] : labels) proto[key] = value;
}

void EvidenceToProto(const ValidationReport& report, v1::ValidationReport& proto) {
  LabelsToProto(report.labels, *proto.mutable_labels());
  if (report.engine.has_value()) EngineToProto(*report.engine, *proto.mutable_engine());
  proto.set_request_digest(report.request_digest);
  proto.set_link(report.link);
}

void EvidenceFromProto(const v1::ValidationReport& proto, ValidationReport& report) {
  report.labels = LabelsFromProto(proto.labels());
  if (proto.has_engine()) report.engine = EngineFromProto(proto.engine());
  report.request_digest = proto.request_digest();
  report.link = proto.link();
}

}  // namespace wasserwarp::wire
