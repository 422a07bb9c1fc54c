#include "sessions/session_encoding.h"

#include <utility>

#include "wire/convert.h"
#include "wire/parameters.h"

namespace wasserwarp::service {

std::string SettingsBytes(const SessionSettings& settings) {
  v1::Session proto;
  *proto.mutable_default_parameters() = wire::ToProto(settings.default_parameters);
  for (const auto& [key, value] : settings.labels) (*proto.mutable_labels())[key] = value;
  if (settings.idle_ttl.has_value()) {
    *proto.mutable_idle_ttl() = wire::ToProtoDuration(*settings.idle_ttl);
  }
  return proto.SerializeAsString();
}

std::optional<SessionSettings> SettingsFromBytes(std::string_view bytes) {
  v1::Session proto;
  if (!proto.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) return std::nullopt;
  absl::StatusOr<ParameterOverrides> defaults =
      wire::OverridesFromProto(proto.default_parameters());
  if (!defaults.ok()) return std::nullopt;
  SessionSettings settings;
  settings.default_parameters = *std::move(defaults);
  settings.labels.insert(proto.labels().begin(), proto.labels().end());
  if (proto.has_idle_ttl()) settings.idle_ttl = wire::FromProtoDuration(proto.idle_ttl());
  return settings;
}

}  // namespace wasserwarp::service
