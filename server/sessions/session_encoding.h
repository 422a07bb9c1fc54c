// A session's settings as the session stores keep them: a serialized wasserwarp.v1.Session.

#ifndef WASSERWARP_SERVER_SESSIONS_SESSION_ENCODING_H_
#define WASSERWARP_SERVER_SESSIONS_SESSION_ENCODING_H_

#include <optional>
#include <string>
#include <string_view>

#include "sessions/stored_session.h"

namespace wasserwarp::service {

// Default parameters, labels and idle TTL as a serialized wasserwarp.v1.Session; std::nullopt
// for bytes that are not one.
std::string SettingsBytes(const SessionSettings& settings);
std::optional<SessionSettings> SettingsFromBytes(std::string_view bytes);

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_SESSIONS_SESSION_ENCODING_H_
