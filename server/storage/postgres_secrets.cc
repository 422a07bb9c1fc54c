#include "storage/postgres_secrets.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"

namespace wasserwarp::service::postgres {
namespace {

constexpr char kMask[] = "****";

absl::string_view View(std::string_view s) { return absl::string_view(s.data(), s.size()); }

bool IsSpace(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

// The password-bearing parts of a URI: the userinfo's password and password= parameters.
// The userinfo ends at the last '@' so that a password with an unescaped '@', '/' or '?' is
// masked whole; that masks too much only for URIs with an '@' in a parameter, which is safe.
std::string RedactUri(std::string_view url, std::vector<std::string>* secrets) {
  const size_t start = url.find("://") + 3;
  std::string out(url.substr(0, start));
  size_t rest = start;
  const size_t at = url.rfind('@');
  if (at != std::string_view::npos && at >= start) {
    const size_t colon = url.find(':', start);
    if (colon < at) {
      out.append(url.substr(start, colon + 1 - start));
      secrets->emplace_back(url.substr(colon + 1, at - colon - 1));
      out.append(kMask);
      rest = at;
    }
  }
  const size_t query = url.find('?', rest);
  out.append(url.substr(rest, query == std::string_view::npos ? query : query - rest));
  if (query == std::string_view::npos) return out;
  out.push_back('?');
  bool first = true;
  for (absl::string_view parameter : absl::StrSplit(View(url.substr(query + 1)), '&')) {
    if (!first) out.push_back('&');
    first = false;
    if (absl::StartsWith(parameter, "password=")) {
      secrets->emplace_back(parameter.substr(9));
      absl::StrAppend(&out, "password=", kMask);
    } else {
      absl::StrAppend(&out, parameter);
    }
  }
  return out;
}

// A key=value connection string with every password value masked; values may be quoted with
// backslash escapes, as libpq reads them.
std::string RedactKeywords(std::string_view s, std::vector<std::string>* secrets) {
  std::string out;
  size_t i = 0;
  const size_t n = s.size();
  auto copy_spaces = [&] {
    while (i < n && IsSpace(s[i])) out.push_back(s[i++]);
  };
  while (i < n) {
    copy_spaces();
    const size_t key_start = i;
    while (i < n && s[i] != '=' && !IsSpace(s[i])) ++i;
    const std::string_view key = s.substr(key_start, i - key_start);
    out.append(key);
    copy_spaces();
    if (i >= n || s[i] != '=') continue;
    out.push_back(s[i++]);
    copy_spaces();
    const size_t value_start = i;
    const bool quoted = i < n && s[i] == '\'';
    if (quoted) ++i;
    while (i < n && (quoted ? s[i] != '\'' : !IsSpace(s[i]))) i += (s[i] == '\\' ? 2 : 1);
    if (quoted && i < n) ++i;
    i = std::min(i, n);
    const std::string_view value = s.substr(value_start, i - value_start);
    if (key == "password") {
      secrets->emplace_back(value);
      out.append(kMask);
    } else {
      out.append(value);
    }
  }
  return out;
}

std::string Redact(std::string_view url, std::vector<std::string>* secrets) {
  if (absl::StartsWith(View(url), "postgresql://") || absl::StartsWith(View(url), "postgres://"))
    return RedactUri(url, secrets);
  return RedactKeywords(url, secrets);
}

std::string PercentDecoded(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    int value = 0;
    if (s[i] == '%' && i + 2 < s.size() && absl::SimpleHexAtoi(View(s.substr(i + 1, 2)), &value)) {
      out.push_back(static_cast<char>(value));
      i += 2;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

}  // namespace

std::string RedactedUrl(std::string_view url) {
  std::vector<std::string> secrets;
  return Redact(url, &secrets);
}

std::string WithoutPasswords(std::string message, std::string_view url, std::string_view password) {
  std::vector<std::string> secrets;
  Redact(url, &secrets);
  if (!password.empty()) secrets.emplace_back(password);
  for (const std::string& secret : secrets) {
    for (const std::string& form : {secret, PercentDecoded(secret)}) {
      if (!form.empty()) absl::StrReplaceAll({{form, kMask}}, &message);
    }
  }
  return message;
}

absl::StatusOr<std::string> ReadPasswordFile(const std::string& path) {
  std::ifstream file(path);
  std::string line;
  if (!file || !std::getline(file, line)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--postgres_password_file ", path, ": cannot be read"));
  }
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (line.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--postgres_password_file ", path, ": its first line is empty"));
  }
  return line;
}

}  // namespace wasserwarp::service::postgres
