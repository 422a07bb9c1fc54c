#include "wire/state_word.h"

#include "absl/strings/strip.h"

namespace wasserwarp::wire {

std::string StateWord(v1::ValidationState state) {
  return std::string(absl::StripPrefix(v1::ValidationState_Name(state), "VALIDATION_STATE_"));
}

}  // namespace wasserwarp::wire
