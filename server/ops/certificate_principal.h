// Principals from client certificates (mutual TLS): a call's principal is an identity its
// certificate carries, a SAN URI, a SAN DNS name or the subject's CN, the first one found in
// --tls_principal_from's order, optionally mapped through --tls_principal_map.
//
// The map file holds one `identity principal` per line: the principal is the last word, the
// identity everything before it (a CN may hold spaces). Blank lines and lines starting with
// '#' are skipped. With a map, an identity it does not list is refused. The map is read again
// when its content changes (ReloadMapIfChanged, --credentials_refresh_interval), as the token
// file is.

#ifndef WASSERWARP_SERVER_OPS_CERTIFICATE_PRINCIPAL_H_
#define WASSERWARP_SERVER_OPS_CERTIFICATE_PRINCIPAL_H_

#include <grpcpp/security/auth_context.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "ops/server_config.h"

namespace wasserwarp::service {

enum class PrincipalSource { kSanUri, kSanDns, kCommonName };

// "san_uri,san_dns,cn" or a part of it, in order of preference; InvalidArgument naming
// --tls_principal_from for an unknown, repeated or missing source.
absl::StatusOr<std::vector<PrincipalSource>> ParsePrincipalSources(absl::string_view list);

using PrincipalMap = std::map<std::string, std::string, std::less<>>;

// The entries of a map file's `text`; InvalidArgument naming `file_name`:line for a line
// without both parts, a principal that is not printable ASCII without spaces, or an identity
// listed twice.
absl::StatusOr<PrincipalMap> ParsePrincipalMap(absl::string_view text, absl::string_view file_name);

// The identity the first of `sources` gives in `context` (the first value gRPC lists where the
// certificate has several), if any.
std::optional<std::string> CertificateIdentity(const grpc::AuthContext& context,
                                               const std::vector<PrincipalSource>& sources);

class CertificatePrincipals {
 public:
  // Reads tls.principal_from and tls.principal_map_file; errors name the flag or file:line.
  static absl::StatusOr<std::unique_ptr<CertificatePrincipals>> Make(const TlsConfig& tls);

  // The principal of the call's client certificate; Unauthenticated, saying why, for a call
  // without one, an identity that is not printable ASCII, or one the map does not list.
  absl::StatusOr<std::string> PrincipalOf(const grpc::AuthContext& context) const;

  bool has_map() const { return !map_file_.empty(); }

  // Reads the map file again; true when its content changed and the new map is in use. An
  // unreadable or malformed file keeps the map in use (the error names file:line).
  absl::StatusOr<bool> ReloadMapIfChanged();

 private:
  CertificatePrincipals(std::vector<PrincipalSource> sources, std::string map_file)
      : sources_(std::move(sources)), map_file_(std::move(map_file)) {}

  std::shared_ptr<const PrincipalMap> Map() const;

  const std::vector<PrincipalSource> sources_;
  // Empty: no map.
  const std::string map_file_;
  absl::Mutex reload_mu_;
  // What the file held at the last read, good or bad: a bad file is reported once.
  std::optional<std::string> map_text_ ABSL_GUARDED_BY(reload_mu_);
  mutable absl::Mutex mu_;
  std::shared_ptr<const PrincipalMap> map_ ABSL_GUARDED_BY(mu_);
};

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_OPS_CERTIFICATE_PRINCIPAL_H_
