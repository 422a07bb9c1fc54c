// --label KEY=VALUE...: the labels of a session (`sessions create`) and of a validation record
// (`validate --server`), by which records are found later (`validations list --filter`).

#ifndef WASSERWARP_CLIENT_LABEL_FLAGS_H_
#define WASSERWARP_CLIENT_LABEL_FLAGS_H_

#include <google/protobuf/map.h>

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "args.h"
#include "flag_definition.h"

namespace wasserwarp::cli {

// Each command describes what its labels label (DescribedAs).
inline constexpr DocumentedFlag kLabelFlag = {"--label", Arity::kMany, "KEY=VALUE...",
                                              "labels; repeatable"};

// Adds the values of `flag` to `labels`; InvalidArgument naming the flag for a value without
// '=' or with an empty key. The server checks the keys' and values' grammar.
absl::Status ReadLabels(absl::string_view flag, const ParsedArgs& args,
                        google::protobuf::Map<std::string, std::string>& labels);

}  // namespace wasserwarp::cli

#endif  // WASSERWARP_CLIENT_LABEL_FLAGS_H_
