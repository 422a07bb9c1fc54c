#include "ops/certificate_principal.h"

#include <grpc/grpc_security_constants.h>

#include <algorithm>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "ops/auth_tokens.h"
#include "ops/flag_file.h"

namespace wasserwarp::service {
namespace {

constexpr std::pair<absl::string_view, PrincipalSource> kSourceNames[] = {
    {"san_uri", PrincipalSource::kSanUri},
    {"san_dns", PrincipalSource::kSanDns},
    {"cn", PrincipalSource::kCommonName},
};

// The auth context property gRPC 1.51 fills from each source of the peer's certificate.
const char* PropertyOf(PrincipalSource source) {
  switch (source) {
    case PrincipalSource::kSanUri:
      return GRPC_PEER_URI_PROPERTY_NAME;
    case PrincipalSource::kSanDns:
      return GRPC_PEER_DNS_PROPERTY_NAME;
    case PrincipalSource::kCommonName:
      break;
  }
  return GRPC_X509_CN_PROPERTY_NAME;
}

// A principal shown in logs and compared with the token file's: printable ASCII, where a
// certificate's CN may also hold spaces.
bool IsPrintable(absl::string_view text) {
  return !text.empty() &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= ' ' && c <= '~'; });
}

}  // namespace

absl::StatusOr<std::vector<PrincipalSource>> ParsePrincipalSources(absl::string_view list) {
  std::vector<PrincipalSource> sources;
  for (const absl::string_view part : absl::StrSplit(list, ',')) {
    const absl::string_view name = absl::StripAsciiWhitespace(part);
    const auto* found = std::find_if(std::begin(kSourceNames), std::end(kSourceNames),
                                     [&](const auto& entry) { return entry.first == name; });
    if (found == std::end(kSourceNames)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--tls_principal_from: \"", name, "\" is none of san_uri, san_dns and cn"));
    }
    if (std::find(sources.begin(), sources.end(), found->second) != sources.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--tls_principal_from: ", name, " is listed twice"));
    }
    sources.push_back(found->second);
  }
  return sources;
}

absl::StatusOr<PrincipalMap> ParsePrincipalMap(absl::string_view text,
                                               absl::string_view file_name) {
  PrincipalMap map;
  int line_number = 0;
  for (const absl::string_view raw_line : absl::StrSplit(text, '\n')) {
    ++line_number;
    const absl::string_view line = absl::StripAsciiWhitespace(raw_line);
    if (line.empty() || line.front() == '#') continue;
    const std::string where = absl::StrCat(file_name, ":", line_number, ": ");
    const size_t space = line.find_last_of(" \t");
    if (space == absl::string_view::npos) {
      return absl::InvalidArgumentError(absl::StrCat(where, "expected identity principal"));
    }
    const absl::string_view identity = absl::StripAsciiWhitespace(line.substr(0, space));
    const absl::string_view principal = line.substr(space + 1);
    if (!IsTokenText(principal)) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, "the principal must be printable ASCII without spaces"));
    }
    if (!map.emplace(std::string(identity), std::string(principal)).second) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, "identity \"", identity, "\" is listed before"));
    }
  }
  return map;
}

std::optional<std::string> CertificateIdentity(const grpc::AuthContext& context,
                                               const std::vector<PrincipalSource>& sources) {
  for (const PrincipalSource source : sources) {
    const std::vector<grpc::string_ref> values = context.FindPropertyValues(PropertyOf(source));
    if (!values.empty()) return std::string(values.front().data(), values.front().size());
  }
  return std::nullopt;
}

absl::StatusOr<std::unique_ptr<CertificatePrincipals>> CertificatePrincipals::Make(
    const TlsConfig& tls) {
  absl::StatusOr<std::vector<PrincipalSource>> sources = ParsePrincipalSources(tls.principal_from);
  if (!sources.ok()) return sources.status();
  std::unique_ptr<CertificatePrincipals> principals(
      new CertificatePrincipals(*std::move(sources), tls.principal_map_file));
  if (principals->has_map()) {
    if (absl::StatusOr<bool> read = principals->ReloadMapIfChanged(); !read.ok()) {
      return read.status();
    }
  }
  return principals;
}

absl::StatusOr<bool> CertificatePrincipals::ReloadMapIfChanged() {
  absl::MutexLock reload_lock(&reload_mu_);
  absl::StatusOr<std::string> text = ReadFlagFile("tls_principal_map", map_file_);
  if (!text.ok()) return text.status();
  if (map_text_ == *text) return false;
  map_text_ = *text;
  absl::StatusOr<PrincipalMap> map = ParsePrincipalMap(*text, map_file_);
  if (!map.ok()) return map.status();
  absl::MutexLock lock(&mu_);
  map_ = std::make_shared<const PrincipalMap>(*std::move(map));
  return true;
}

std::shared_ptr<const PrincipalMap> CertificatePrincipals::Map() const {
  absl::MutexLock lock(&mu_);
  return map_;
}

absl::StatusOr<std::string> CertificatePrincipals::PrincipalOf(
    const grpc::AuthContext& context) const {
  std::optional<std::string> identity = CertificateIdentity(context, sources_);
  if (!identity.has_value()) {
    return absl::UnauthenticatedError(
        "the client certificate carries no identity that --tls_principal_from names");
  }
  if (const std::shared_ptr<const PrincipalMap> map = Map(); map != nullptr) {
    const auto found = map->find(*identity);
    // Never quotes the identity: the log-safe form of certificate text is not this file's job.
    if (found == map->end()) {
      return absl::UnauthenticatedError(
          "the client certificate's identity is not in --tls_principal_map");
    }
    return found->second;
  }
  if (!IsPrintable(*identity)) {
    return absl::UnauthenticatedError(
        "the client certificate's identity is not printable ASCII; map it with "
        "--tls_principal_map");
  }
  return *std::move(identity);
}

}  // namespace wasserwarp::service
