#include "label_flags.h"

#include "absl/strings/str_cat.h"

namespace wasserwarp::cli {

absl::Status ReadLabels(absl::string_view flag, const ParsedArgs& args,
                        google::protobuf::Map<std::string, std::string>& labels) {
  for (const std::string& label : args.Values(flag)) {
    const size_t equals = label.find('=');
    if (equals == 0 || equals == std::string::npos) {
      return FlagError(flag, absl::StrCat("expected KEY=VALUE, got \"", label, "\""));
    }
    labels[label.substr(0, equals)] = label.substr(equals + 1);
  }
  return absl::OkStatus();
}

}  // namespace wasserwarp::cli
