// The word people read for a validation's state: "QUEUED", "SUCCEEDED", ..., the enum value's
// name without its VALIDATION_STATE_ prefix, as logs, the web view and the CLI print it.

#ifndef WASSERWARP_WIRE_STATE_WORD_H_
#define WASSERWARP_WIRE_STATE_WORD_H_

#include <string>

#include "wasserwarp/v1/validation.pb.h"

namespace wasserwarp::wire {

std::string StateWord(v1::ValidationState state);

}  // namespace wasserwarp::wire

#endif  // WASSERWARP_WIRE_STATE_WORD_H_
