#include "wire/loopback_address.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/strip.h"

namespace wasserwarp::wire {

absl::string_view HostOfAddress(absl::string_view address) {
  // gRPC's name schemes; "dns://AUTHORITY/HOST:PORT" names its host after the third slash.
  if (absl::ConsumePrefix(&address, "dns:")) {
    if (absl::ConsumePrefix(&address, "//")) {
      const size_t slash = address.find('/');
      address = slash == absl::string_view::npos ? address : address.substr(slash + 1);
    }
  } else if (!absl::ConsumePrefix(&address, "ipv4:")) {
    absl::ConsumePrefix(&address, "ipv6:");
  }
  if (absl::ConsumePrefix(&address, "[")) {
    return address.substr(0, address.find(']'));
  }
  const size_t colon = address.rfind(':');
  // No colon: no port; more than one without brackets: a bare IPv6 address without a port.
  if (colon == absl::string_view::npos || address.find(':') != colon) return address;
  return address.substr(0, colon);
}

bool IsLoopbackAddress(absl::string_view address) {
  if (absl::StartsWith(address, "unix:") || absl::StartsWith(address, "unix-abstract:")) {
    return true;
  }
  const std::string host(HostOfAddress(address));
  if (absl::EqualsIgnoreCase(host, "localhost")) return true;
  in_addr v4 = {};
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6 = {};
  if (inet_pton(AF_INET6, host.c_str(), &v6) != 1) return false;
  if (IN6_IS_ADDR_LOOPBACK(&v6)) return true;
  return IN6_IS_ADDR_V4MAPPED(&v6) && v6.s6_addr[12] == 127;
}

}  // namespace wasserwarp::wire
