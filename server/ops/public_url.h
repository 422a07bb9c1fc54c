// --http_public_url: where browsers reach the web view (a proxy's address, or the server's own),
// and the link of a validation record under it, which every answer carrying a Validation and the
// log line of an ended validation give.

#ifndef WASSERWARP_SERVER_OPS_PUBLIC_URL_H_
#define WASSERWARP_SERVER_OPS_PUBLIC_URL_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace wasserwarp::service {

// `url` without its trailing slashes; InvalidArgument naming the flag unless it is an absolute
// http or https URL with a host, no query, no fragment, no credentials and no whitespace.
absl::StatusOr<std::string> NormalizePublicUrl(absl::string_view url);

// The record `name` (sessions/S/validations/V) under the normalised `public_url`; empty without
// one.
std::string RecordLink(absl::string_view public_url, absl::string_view name);

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_OPS_PUBLIC_URL_H_
