// The core names the option an error concerns neutrally ("nu", "permutations"; see
// wasserwarp/field_error.h); the CLI's user set it with a flag. This is the one table
// between the two; cli_main.cc renders every error through it.

#ifndef WASSERWARP_CLIENT_FLAG_TERMS_H_
#define WASSERWARP_CLIENT_FLAG_TERMS_H_

#include "absl/status/status.h"

namespace wasserwarp::cli {

// `status` with its core field renamed to the flag that sets it ("nu: must be >= 0" ->
// "--nu: must be >= 0"). Field paths of the service's requests (`parameters.nu`) are kept:
// with --server they are what the server names. Unknown fields are returned unchanged.
absl::Status InFlagTerms(const absl::Status& status);

}  // namespace wasserwarp::cli

#endif  // WASSERWARP_CLIENT_FLAG_TERMS_H_
