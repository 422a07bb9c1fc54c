// A small HTTP client for tests of the web view: civetweb's client API for whole requests
// (plain or TLS, checking the server's certificate against a CA), and a raw socket for requests
// that a well-behaved client never sends (too large, too slow).

#ifndef WASSERWARP_TESTS_HTTP_TEST_CLIENT_H_
#define WASSERWARP_TESTS_HTTP_TEST_CLIENT_H_

#include <arpa/inet.h>
#include <civetweb.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace wasserwarp::testing {

struct HttpAnswer {
  // 0 when no answer came; `error` says why.
  int status = 0;
  std::string error;
  // Lowercase names; a name sent twice keeps both values, in order.
  std::multimap<std::string, std::string> headers;
  std::string body;

  std::string Header(const std::string& name) const {
    const auto it = headers.find(absl::AsciiStrToLower(name));
    return it == headers.end() ? "" : it->second;
  }
};

struct HttpCall {
  std::string method = "GET";
  std::string target = "/";
  // "Name: value" lines.
  std::vector<std::string> headers;
  std::string body;
  // Set: TLS, the server's certificate checked against this CA.
  std::string ca_file;
};

// host:port split; the port 0 when it does not parse.
inline std::pair<std::string, int> HostPort(const std::string& address) {
  const size_t colon = address.rfind(':');
  int port = 0;
  if (colon == std::string::npos || !absl::SimpleAtoi(address.substr(colon + 1), &port)) {
    return {address, 0};
  }
  return {address.substr(0, colon), port};
}

inline HttpAnswer Http(const std::string& address, const HttpCall& call) {
  static std::once_flag library;
  std::call_once(library, [] {
    mg_init_library(MG_FEATURES_TLS);
    // A TLS close to a server that closed first writes to a closed socket.
    signal(SIGPIPE, SIG_IGN);
  });
  const auto [host, port] = HostPort(address);
  HttpAnswer answer;
  char error[256] = {};
  mg_client_options options = {};
  options.host = host.c_str();
  options.port = port;
  options.server_cert = call.ca_file.empty() ? nullptr : call.ca_file.c_str();
  options.host_name = host.c_str();
  mg_connection* connection = call.ca_file.empty()
                                  ? mg_connect_client(host.c_str(), port, 0, error, sizeof error)
                                  : mg_connect_client_secure(&options, error, sizeof error);
  if (connection == nullptr) {
    answer.error = error;
    return answer;
  }
  std::string request = absl::StrCat(call.method, " ", call.target, " HTTP/1.1\r\nHost: ", address,
                                     "\r\nConnection: close\r\n");
  for (const std::string& header : call.headers) absl::StrAppend(&request, header, "\r\n");
  if (!call.body.empty() || call.method == "POST") {
    absl::StrAppend(&request, "Content-Length: ", call.body.size(), "\r\n");
  }
  absl::StrAppend(&request, "\r\n", call.body);
  mg_write(connection, request.data(), request.size());
  if (mg_get_response(connection, error, sizeof error, 30000) < 0) {
    answer.error = error;
    mg_close_connection(connection);
    return answer;
  }
  const mg_response_info* info = mg_get_response_info(connection);
  answer.status = info->status_code;
  for (int i = 0; i < info->num_headers; ++i) {
    answer.headers.emplace(absl::AsciiStrToLower(info->http_headers[i].name),
                           info->http_headers[i].value);
  }
  char buffer[16384];
  int got = 0;
  while ((got = mg_read(connection, buffer, sizeof buffer)) > 0) {
    answer.body.append(buffer, static_cast<size_t>(got));
  }
  mg_close_connection(connection);
  return answer;
}

// A plaintext TCP connection to `address`; -1 when it fails.
inline int ConnectRaw(const std::string& address) {
  const auto [host, port] = HostPort(address);
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in to = {};
  to.sin_family = AF_INET;
  to.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, host.c_str(), &to.sin_addr);
  if (connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

// Everything `fd` receives until the peer closes it or `limit` passes; `closed` says which.
inline std::string ReceiveUntilClosed(int fd, std::chrono::milliseconds limit, bool& closed) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  std::string received;
  closed = false;
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd p = {.fd = fd, .events = POLLIN, .revents = 0};
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (poll(&p, 1, static_cast<int>(std::max<int64_t>(left.count(), 1))) <= 0) continue;
    char buffer[4096];
    const ssize_t got = recv(fd, buffer, sizeof buffer, 0);
    if (got <= 0) {
      closed = true;
      return received;
    }
    received.append(buffer, static_cast<size_t>(got));
  }
  return received;
}

}  // namespace wasserwarp::testing

#endif  // WASSERWARP_TESTS_HTTP_TEST_CLIENT_H_
