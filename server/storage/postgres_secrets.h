// The store's password: where it comes from (--postgres_password_file) and how it is kept out of
// every message and log line that names the database. libpq may echo any part of a connection
// string it could not parse, so a message is masked against every form the password can take.

#ifndef WASSERWARP_SERVER_STORAGE_POSTGRES_SECRETS_H_
#define WASSERWARP_SERVER_STORAGE_POSTGRES_SECRETS_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace wasserwarp::service::postgres {

// `url` (a libpq connection URI or key=value string) with any password replaced by "****":
// the userinfo password and a password query parameter of a URI, and the password keyword
// of the key=value form. What every message that names the database shows.
std::string RedactedUrl(std::string_view url);

// `message` with every password of `url`, as written or percent-decoded, and `password` (the
// one from --postgres_password_file; empty: none) replaced by "****".
std::string WithoutPasswords(std::string message, std::string_view url,
                             std::string_view password = {});

// The first line of `path` (--postgres_password_file) without its line end. InvalidArgument
// naming the file when it cannot be read or its first line is empty.
absl::StatusOr<std::string> ReadPasswordFile(const std::string& path);

}  // namespace wasserwarp::service::postgres

#endif  // WASSERWARP_SERVER_STORAGE_POSTGRES_SECRETS_H_
