#include "ops/exposure_rules.h"

#include "absl/strings/str_cat.h"
#include "wire/loopback_address.h"

namespace wasserwarp::service {
namespace {

bool WebViewOpen(const ServerConfig& config) {
  return !config.http.listen.empty() && !wire::IsLoopbackAddress(config.http.listen) &&
         config.auth_tokens_file.empty();
}

bool GrpcOpen(const ServerConfig& config) {
  return !wire::IsLoopbackAddress(config.listen) && !AuthenticatesCallers(config);
}

}  // namespace

bool AuthenticatesCallers(const ServerConfig& config) {
  return !config.auth_tokens_file.empty() || !config.tls.client_ca_file.empty();
}

absl::Status CheckExposure(const ServerConfig& config) {
  if (config.allow_unauthenticated) return absl::OkStatus();
  if (GrpcOpen(config)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "--listen ", config.listen,
        " is not a loopback address and no caller would be authenticated: set "
        "--auth_tokens_file (bearer tokens) or --tls_cert, --tls_key and --tls_client_ca "
        "(mutual TLS), or --allow_unauthenticated to let every caller in as one principal"));
  }
  if (WebViewOpen(config)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "--http_listen ", config.http.listen,
        " is not a loopback address and no browser would be authenticated: set "
        "--auth_tokens_file, or --allow_unauthenticated to show every record to everyone"));
  }
  return absl::OkStatus();
}

bool ServesUnauthenticatedBeyondLoopback(const ServerConfig& config) {
  return GrpcOpen(config) || WebViewOpen(config);
}

std::string UnauthenticatedWarning(const ServerConfig& config) {
  return absl::StrCat(
      "--allow_unauthenticated: listening on ", config.listen,
      config.http.listen.empty() ? "" : absl::StrCat(" and ", config.http.listen),
      " without authentication: every caller shares one principal and sees every session "
      "and validation; set --auth_tokens_file or --tls_client_ca for anything but a trusted "
      "network");
}

absl::StatusOr<ReflectionMode> ParseReflectionMode(absl::string_view text) {
  for (const ReflectionMode mode :
       {ReflectionMode::kAuto, ReflectionMode::kOn, ReflectionMode::kOff}) {
    if (text == ReflectionModeName(mode)) return mode;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("--reflection must be auto, on or off, got \"", text, "\""));
}

absl::string_view ReflectionModeName(ReflectionMode mode) {
  switch (mode) {
    case ReflectionMode::kOn:
      return "on";
    case ReflectionMode::kOff:
      return "off";
    case ReflectionMode::kAuto:
      break;
  }
  return "auto";
}

bool ServesReflection(const ServerConfig& config) {
  if (config.reflection == ReflectionMode::kAuto) return wire::IsLoopbackAddress(config.listen);
  return config.reflection == ReflectionMode::kOn;
}

}  // namespace wasserwarp::service
