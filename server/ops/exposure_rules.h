// What the server shows to callers it cannot tell apart: it refuses to listen beyond loopback
// without authentication unless told so, and serves reflection by default only on loopback.

#ifndef WASSERWARP_SERVER_OPS_EXPOSURE_RULES_H_
#define WASSERWARP_SERVER_OPS_EXPOSURE_RULES_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ops/server_config.h"

namespace wasserwarp::service {

// Whether calls are authenticated: by tokens (--auth_tokens_file) or by client certificates
// (--tls_client_ca).
bool AuthenticatesCallers(const ServerConfig& config);

// FailedPrecondition, naming the flags that would fix it, when --listen (or --http_listen) is
// not a loopback address and nothing authenticates callers there (the web view has no client
// certificates: it needs tokens), unless --allow_unauthenticated.
absl::Status CheckExposure(const ServerConfig& config);

// True when the server runs as CheckExposure allows only with --allow_unauthenticated: the
// start warns then (UnauthenticatedWarning).
bool ServesUnauthenticatedBeyondLoopback(const ServerConfig& config);
std::string UnauthenticatedWarning(const ServerConfig& config);

// --reflection's values: auto, on, off.
absl::StatusOr<ReflectionMode> ParseReflectionMode(absl::string_view text);
absl::string_view ReflectionModeName(ReflectionMode mode);
// Whether the server serves reflection: auto is on only when --listen is loopback.
bool ServesReflection(const ServerConfig& config);

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_OPS_EXPOSURE_RULES_H_
