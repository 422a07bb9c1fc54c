// Whether a host:port names this machine only: the one rule by which the server decides that
// it may listen without authentication, and a client that it may send a token in plaintext.

#ifndef WASSERWARP_WIRE_LOOPBACK_ADDRESS_H_
#define WASSERWARP_WIRE_LOOPBACK_ADDRESS_H_

#include "absl/strings/string_view.h"

namespace wasserwarp::wire {

// The host of a gRPC address: "HOST:PORT", "[IPV6]:PORT", a "dns:///", "ipv4:" or "ipv6:"
// target, without brackets. Empty for ":PORT" (every interface).
absl::string_view HostOfAddress(absl::string_view address);

// True for "localhost", an IPv4 address in 127.0.0.0/8, ::1 (also as ::ffff:127.x.x.x), and
// unix sockets. Every other name is false: names are not resolved, so "0.0.0.0", "[::]", an
// empty host and any other host name count as reachable from elsewhere.
bool IsLoopbackAddress(absl::string_view address);

}  // namespace wasserwarp::wire

#endif  // WASSERWARP_WIRE_LOOPBACK_ADDRESS_H_
