// `wasserwarp validate --sim PATH... --ref PATH...`: the Wasserstein distance between the
// simulated and the reference runs, as a summary and optionally as the JSON report.

#ifndef WASSERWARP_CLIENT_VALIDATE_COMMAND_H_
#define WASSERWARP_CLIENT_VALIDATE_COMMAND_H_

#include "command.h"

namespace wasserwarp::cli {

Command ValidateCommand();

}  // namespace wasserwarp::cli

#endif  // WASSERWARP_CLIENT_VALIDATE_COMMAND_H_
