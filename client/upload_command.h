// `wasserwarp upload --server HOST:PORT --session ID`: runs into a session on the server,
// where they stay for validations until the session is deleted or expires.

#ifndef WASSERWARP_CLIENT_UPLOAD_COMMAND_H_
#define WASSERWARP_CLIENT_UPLOAD_COMMAND_H_

#include "command.h"

namespace wasserwarp::cli {

Command UploadCommand();

}  // namespace wasserwarp::cli

#endif  // WASSERWARP_CLIENT_UPLOAD_COMMAND_H_
