#include "rpc/session_proto.h"

#include <string>

#include "wire/convert.h"
#include "wire/evidence.h"
#include "wire/parameters.h"
#include "wire/resource_names.h"

namespace wasserwarp::service {

static_assert(static_cast<int>(RunRole::kSimulation) == v1::ROLE_SIMULATION &&
                  static_cast<int>(RunRole::kReference) == v1::ROLE_REFERENCE,
              "a role's number is the API's");

v1::Session ToProto(const SessionRecord& session, bool with_runs) {
  v1::Session out;
  out.set_name(wire::SessionName(session.id));
  *out.mutable_default_parameters() = wire::ToProto(session.default_parameters);
  for (const auto& [key, value] : session.labels) (*out.mutable_labels())[key] = value;
  *out.mutable_idle_ttl() = wire::ToProtoDuration(session.idle_ttl);
  *out.mutable_create_time() = wire::ToProtoTime(session.create_time);
  *out.mutable_expire_time() = wire::ToProtoTime(session.expire_time);
  if (with_runs) {
    for (const RunRecord& run : session.runs) *out.add_runs() = ToProto(run);
  }
  out.set_simulation_run_count(session.simulation_run_count);
  out.set_reference_run_count(session.reference_run_count);
  out.set_bytes_held(session.bytes_held);
  out.set_state(v1::Session::STATE_ACTIVE);
  return out;
}

v1::RunInfo ToProto(const RunRecord& run) {
  v1::RunInfo info;
  info.set_series_id(run.series_id);
  info.set_role(ToProto(run.role));
  info.set_samples(run.samples);
  for (const std::string& channel : run.channels) info.add_channels(channel);
  if (run.weight.has_value()) info.set_weight(*run.weight);
  info.mutable_parameters()->insert(run.inputs.parameters.begin(), run.inputs.parameters.end());
  info.set_trial(run.inputs.trial);
  if (run.source.has_value()) wire::RunSourceToProto(*run.source, *info.mutable_source());
  *info.mutable_commit_time() = wire::ToProtoTime(run.commit_time);
  for (const std::string& unit : run.units) info.add_units(unit);
  return info;
}

v1::Role ToProto(RunRole role) { return static_cast<v1::Role>(role); }

std::optional<RunRole> RoleFromProto(v1::Role role) { return RoleFromNumber(role); }

}  // namespace wasserwarp::service
