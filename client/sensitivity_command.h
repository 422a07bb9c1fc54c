// `wasserwarp sensitivity --sim PATH... --sim-params FILE --ref PATH... --nominal K=V,...`: how
// strongly W and the quantities of interest react to each model parameter around its nominal
// value, and whether that is more than the references' own spread.

#ifndef WASSERWARP_CLIENT_SENSITIVITY_COMMAND_H_
#define WASSERWARP_CLIENT_SENSITIVITY_COMMAND_H_

#include "command.h"

namespace wasserwarp::cli {

Command SensitivityCommand();

}  // namespace wasserwarp::cli

#endif  // WASSERWARP_CLIENT_SENSITIVITY_COMMAND_H_
