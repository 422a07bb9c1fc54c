// Signing a browser in and out: GET /signin shows the form, POST /signin checks the token it
// sends (AuthTokens compares in constant time, as for gRPC calls) and sets the session cookie,
// POST /signout ends the session. Failed attempts are bounded per address (sign_in_throttle.h).

#ifndef WASSERWARP_SERVER_HTTP_SIGNIN_PAGE_H_
#define WASSERWARP_SERVER_HTTP_SIGNIN_PAGE_H_

#include "absl/time/time.h"
#include "http/http_exchange.h"
#include "http/sign_in_throttle.h"
#include "http/web_auth.h"

namespace wasserwarp::service::http {

// GET /signin.
HttpResponse SignInForm(const HttpRequest& request, const WebAuth& auth);

// POST /signin.
HttpResponse SignIn(const HttpRequest& request, const WebAuth& auth, SignInThrottle& throttle,
                    absl::Time now);

// POST /signout.
HttpResponse SignOut(const HttpRequest& request, const WebAuth& auth);

}  // namespace wasserwarp::service::http

#endif  // WASSERWARP_SERVER_HTTP_SIGNIN_PAGE_H_
