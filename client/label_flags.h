// --label key=value, the labels a validation is created with (ValidateRequest.labels, the
// report's `labels`): read and checked here with the core's rule, so that a bad label is refused
// with its name before any run is read, whether the validation runs here or on a server.

#ifndef WASSERWARP_CLIENT_LABEL_FLAGS_H_
#define WASSERWARP_CLIENT_LABEL_FLAGS_H_

#include <map>
#include <string>

#include "flag_definition.h"

namespace wasserwarp::cli {

using Labels = std::map<std::string, std::string>;

// --label KEY=VALUE..., repeatable; a key given twice is an error.
extern const FlagDefinition<Labels> kLabelFlag;

}  // namespace wasserwarp::cli

#endif  // WASSERWARP_CLIENT_LABEL_FLAGS_H_
