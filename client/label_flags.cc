#include "label_flags.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "wasserwarp/field_error.h"
#include "wasserwarp/labels.h"

namespace wasserwarp::cli {
namespace {

absl::Status ReadLabels(absl::string_view flag, const ParsedArgs& args, Labels& labels) {
  for (const std::string& item : args.Values(flag)) {
    const size_t equals = item.find('=');
    if (equals == std::string::npos) {
      return FlagError(flag, absl::StrCat("\"", item, "\" is not KEY=VALUE"));
    }
    const std::string key = item.substr(0, equals);
    if (!labels.emplace(key, item.substr(equals + 1)).second) {
      return FlagError(flag, absl::StrCat("label \"", key, "\" is given twice"));
    }
  }
  // The core's message names the label and says what is wrong with it; the field path is the
  // service's, not the command line's.
  if (absl::Status status = CheckLabels(labels, "labels"); !status.ok()) {
    return FlagError(flag, status.message());
  }
  return absl::OkStatus();
}

}  // namespace

const FlagDefinition<Labels> kLabelFlag = {
    "--label", Arity::kMany, "KEY=VALUE...",
    "label the validation (repeatable): keys [a-z][a-z0-9_.-]{0,62},\n"
    "optionally with a domain/ prefix, values of at most 256\n"
    "characters, at most 64 labels; in the JSON's `labels`",
    &ReadLabels};

}  // namespace wasserwarp::cli
