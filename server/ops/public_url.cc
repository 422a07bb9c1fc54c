#include "ops/public_url.h"

#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace wasserwarp::service {
namespace {

absl::Status BadUrl(absl::string_view url, absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("--http_public_url \"", url, "\" ", why,
                   "; expected e.g. https://wasserwarp.example.com or https://host/prefix"));
}

}  // namespace

absl::StatusOr<std::string> NormalizePublicUrl(absl::string_view url) {
  absl::string_view rest;
  if (absl::StartsWithIgnoreCase(url, "https://")) {
    rest = url.substr(8);
  } else if (absl::StartsWithIgnoreCase(url, "http://")) {
    rest = url.substr(7);
  } else {
    return BadUrl(url, "is not an http or https URL");
  }
  for (const char c : url) {
    // Links go into logs, protos and pages as they are: nothing there may need escaping.
    if (absl::ascii_isspace(static_cast<unsigned char>(c)) ||
        !absl::ascii_isprint(static_cast<unsigned char>(c)) || c == '"' || c == '<' || c == '>') {
      return BadUrl(url, "holds whitespace or a character a link cannot carry");
    }
  }
  if (absl::StrContains(url, "?") || absl::StrContains(url, "#")) {
    return BadUrl(url, "has a query or fragment, which the record's name cannot follow");
  }
  const absl::string_view host = rest.substr(0, rest.find('/'));
  if (host.empty() || host.front() == ':') return BadUrl(url, "has no host");
  if (absl::StrContains(host, "@")) return BadUrl(url, "carries credentials");
  std::string normalized(url);
  while (absl::EndsWith(normalized, "/")) normalized.pop_back();
  return normalized;
}

std::string RecordLink(absl::string_view public_url, absl::string_view name) {
  if (public_url.empty()) return "";
  return absl::StrCat(public_url, "/", name);
}

}  // namespace wasserwarp::service
