#include "ops/auth_tokens.h"

#include <sys/stat.h>

#include <algorithm>
#include <map>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "ops/flag_file.h"

namespace wasserwarp::service {
namespace {

absl::string_view View(std::string_view s) { return absl::string_view(s.data(), s.size()); }

}  // namespace

bool IsTokenText(absl::string_view text) {
  for (const char c : text) {
    if (c <= ' ' || c > '~') return false;
  }
  return !text.empty();
}

absl::StatusOr<std::vector<TokenEntry>> ParseTokenFile(std::string_view text,
                                                       std::string_view file_name) {
  std::vector<TokenEntry> entries;
  // Token to the line that holds it, to name both lines of a duplicate.
  std::map<std::string, int, std::less<>> token_lines;
  int line_number = 0;
  for (const absl::string_view raw_line : absl::StrSplit(View(text), '\n')) {
    ++line_number;
    const absl::string_view line = absl::StripAsciiWhitespace(raw_line);
    if (line.empty() || line.front() == '#') continue;
    // Errors never quote the line: it may hold a secret.
    const std::string where = absl::StrCat(View(file_name), ":", line_number, ": ");
    const size_t colon = line.find(':');
    if (colon == absl::string_view::npos) {
      return absl::InvalidArgumentError(absl::StrCat(where, "expected principal:token"));
    }
    const absl::string_view principal = absl::StripAsciiWhitespace(line.substr(0, colon));
    const absl::string_view token = absl::StripAsciiWhitespace(line.substr(colon + 1));
    if (!IsTokenText(principal)) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, "the principal must be printable ASCII without spaces, and not empty"));
    }
    if (!IsTokenText(token)) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, "the token of principal \"", principal,
                       "\" must be printable ASCII without spaces, and not empty"));
    }
    const auto [seen, inserted] = token_lines.emplace(std::string(token), line_number);
    if (!inserted) {
      return absl::InvalidArgumentError(absl::StrCat(where, "the token of line ", seen->second,
                                                     " again; a token belongs to one principal"));
    }
    entries.push_back({std::string(principal), std::string(token)});
  }
  if (entries.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(View(file_name), ": holds no principal:token line, so nobody could call"));
  }
  return entries;
}

bool ConstantTimeEquals(std::string_view presented, std::string_view secret) {
  if (secret.empty()) return presented.empty();
  // Every byte of `presented` is compared, against the secret repeated, and
  // the differences are only accumulated: no branch depends on secret data.
  unsigned int difference = presented.size() != secret.size() ? 1u : 0u;
  for (size_t i = 0; i < presented.size(); ++i) {
    difference |= static_cast<unsigned char>(presented[i]) ^
                  static_cast<unsigned char>(secret[i % secret.size()]);
  }
  return difference == 0;
}

std::optional<std::string> FindPrincipal(const std::vector<TokenEntry>& entries,
                                         std::string_view token) {
  const size_t none = entries.size();
  size_t match = none;
  for (size_t i = 0; i < entries.size(); ++i) {
    // All ones when equal, zero otherwise: the match is selected without a branch.
    const size_t mask =
        size_t{0} - static_cast<size_t>(ConstantTimeEquals(token, entries[i].token));
    match = (i & mask) | (match & ~mask);
  }
  if (match == none) return std::nullopt;
  return entries[match].principal;
}

absl::StatusOr<std::unique_ptr<AuthTokens>> AuthTokens::Load(std::string path) {
  absl::StatusOr<std::string> text = ReadText(path);
  if (!text.ok()) return text.status();
  absl::StatusOr<std::shared_ptr<const Entries>> entries = Parse(*text, path);
  if (!entries.ok()) return entries.status();
  return std::unique_ptr<AuthTokens>(
      new AuthTokens(std::move(path), *std::move(entries), *std::move(text)));
}

AuthTokens::AuthTokens(std::string path, std::shared_ptr<const Entries> entries, std::string text)
    : path_(std::move(path)), entries_(std::move(entries)), last_text_(std::move(text)) {}

absl::Status AuthTokens::Reload() {
  absl::MutexLock reload_lock(&reload_mu_);
  absl::StatusOr<std::string> text = ReadText(path_);
  if (!text.ok()) return text.status();
  last_text_ = *text;
  absl::StatusOr<std::shared_ptr<const Entries>> entries = Parse(*text, path_);
  if (!entries.ok()) return entries.status();
  absl::MutexLock lock(&mu_);
  entries_ = *std::move(entries);
  return absl::OkStatus();
}

absl::StatusOr<bool> AuthTokens::ReloadIfChanged() {
  absl::MutexLock reload_lock(&reload_mu_);
  absl::StatusOr<std::string> text = ReadText(path_);
  if (!text.ok()) return text.status();
  if (*text == last_text_) return false;
  last_text_ = *text;
  absl::StatusOr<std::shared_ptr<const Entries>> entries = Parse(*text, path_);
  if (!entries.ok()) return entries.status();
  absl::MutexLock lock(&mu_);
  entries_ = *std::move(entries);
  return true;
}

std::optional<std::string> AuthTokens::PrincipalOf(std::string_view token) const {
  return FindPrincipal(*Current(), token);
}

bool AuthTokens::HoldsPrincipal(std::string_view principal) const {
  const std::shared_ptr<const Entries> entries = Current();
  return std::any_of(entries->begin(), entries->end(),
                     [principal](const TokenEntry& entry) { return entry.principal == principal; });
}

size_t AuthTokens::size() const { return Current()->size(); }

absl::StatusOr<std::string> AuthTokens::ReadText(const std::string& path) {
  return ReadFlagFile("auth_tokens_file", path);
}

absl::StatusOr<std::shared_ptr<const AuthTokens::Entries>> AuthTokens::Parse(
    const std::string& text, const std::string& path) {
  absl::StatusOr<std::vector<TokenEntry>> entries = ParseTokenFile(text, path);
  if (!entries.ok()) return entries.status();
  return std::make_shared<const Entries>(*std::move(entries));
}

std::shared_ptr<const AuthTokens::Entries> AuthTokens::Current() const {
  absl::MutexLock lock(&mu_);
  return entries_;
}

std::optional<std::string> TokenFilePermissionWarning(const std::string& path) {
  struct stat status = {};
  // stat follows the symlinks of a mounted Secret to the file that holds the tokens. Its group
  // may read it: Kubernetes gives a non-root pod its Secret through the pod's fsGroup (mode 0440).
  if (stat(path.c_str(), &status) != 0 || (status.st_mode & S_IROTH) == 0) return std::nullopt;
  return absl::StrFormat(
      "--auth_tokens_file %s is readable by others (mode %04o): anyone who can read it can act "
      "as every principal in it; chmod 600 it (Kubernetes: the Secret volume's defaultMode 0440 "
      "with the pod's fsGroup)",
      path, status.st_mode & 07777);
}

}  // namespace wasserwarp::service
