// A scrape of a Prometheus /metrics endpoint, for tests: a plain HTTP/1.0 GET over a socket and
// the samples of the text format, looked up by name and labels.

#ifndef WASSERWARP_TESTS_METRICS_SCRAPE_H_
#define WASSERWARP_TESTS_METRICS_SCRAPE_H_

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace wasserwarp::test_support {

using Labels = std::map<std::string, std::string>;

struct HttpResponse {
  std::string status_line;
  std::string body;
};

// The status line and body of GET `path` from `address` (IPv4 host:port); a test failure, and
// an empty response, when the endpoint does not answer.
inline HttpResponse HttpGet(const std::string& address, const std::string& path) {
  const size_t colon = address.rfind(':');
  sockaddr_in peer{};
  peer.sin_family = AF_INET;
  peer.sin_port = htons(static_cast<uint16_t>(std::stoi(address.substr(colon + 1))));
  EXPECT_EQ(inet_pton(AF_INET, address.substr(0, colon).c_str(), &peer.sin_addr), 1) << address;
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  EXPECT_GE(fd, 0);
  HttpResponse response;
  if (connect(fd, reinterpret_cast<const sockaddr*>(&peer), sizeof(peer)) != 0) {
    ADD_FAILURE() << "cannot connect to " << address;
    close(fd);
    return response;
  }
  // HTTP/1.0: the server closes the connection after the body.
  const std::string request = "GET " + path + " HTTP/1.0\r\nHost: " + address + "\r\n\r\n";
  EXPECT_EQ(send(fd, request.data(), request.size(), 0), static_cast<ssize_t>(request.size()));
  std::string raw;
  char buffer[4096];
  for (ssize_t n; (n = recv(fd, buffer, sizeof(buffer), 0)) > 0;) raw.append(buffer, n);
  close(fd);
  const size_t header_end = raw.find("\r\n\r\n");
  response.status_line = raw.substr(0, raw.find("\r\n"));
  if (header_end != std::string::npos) response.body = raw.substr(header_end + 4);
  return response;
}

struct MetricSample {
  std::string name;
  Labels labels;
  double value = 0.0;
};

// The samples of Prometheus' text format: `name{a="x",b="y"} value` lines.
// prometheus-cpp escapes no label value the tests use.
inline std::vector<MetricSample> ParseExposition(const std::string& text) {
  std::vector<MetricSample> samples;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty() || line.front() == '#') continue;
    MetricSample sample;
    const size_t space = line.rfind(' ');
    sample.value = std::strtod(line.c_str() + space + 1, nullptr);
    const std::string series = line.substr(0, space);
    const size_t brace = series.find('{');
    sample.name = series.substr(0, brace);
    if (brace != std::string::npos) {
      std::string rest = series.substr(brace + 1, series.size() - brace - 2);
      while (!rest.empty()) {
        const size_t equals = rest.find("=\"");
        const size_t quote = rest.find('"', equals + 2);
        sample.labels[rest.substr(0, equals)] = rest.substr(equals + 2, quote - equals - 2);
        rest = quote + 2 <= rest.size() ? rest.substr(quote + 2) : "";
      }
    }
    samples.push_back(std::move(sample));
  }
  return samples;
}

class Scrape {
 public:
  explicit Scrape(std::vector<MetricSample> samples) : samples_(std::move(samples)) {}

  // GET http://`address`/metrics, which must answer 200.
  static Scrape Of(const std::string& address) {
    const HttpResponse response = HttpGet(address, "/metrics");
    EXPECT_NE(response.status_line.find(" 200 "), std::string::npos) << response.status_line;
    return Scrape(ParseExposition(response.body));
  }

  // The sum of the samples named `name` whose labels include `labels`;
  // nullopt when there is none.
  std::optional<double> Value(const std::string& name, const Labels& labels = {}) const {
    std::optional<double> sum;
    for (const MetricSample& sample : samples_) {
      if (sample.name != name) continue;
      bool match = true;
      for (const auto& [key, value] : labels) {
        const auto it = sample.labels.find(key);
        match = match && it != sample.labels.end() && it->second == value;
      }
      if (match) sum = sum.value_or(0.0) + sample.value;
    }
    return sum;
  }

  // Value, 0 when absent: counters of labels not seen yet are not exported.
  double Count(const std::string& name, const Labels& labels = {}) const {
    return Value(name, labels).value_or(0.0);
  }

  const std::vector<MetricSample>& samples() const { return samples_; }

 private:
  std::vector<MetricSample> samples_;
};

}  // namespace wasserwarp::test_support

#endif  // WASSERWARP_TESTS_METRICS_SCRAPE_H_
