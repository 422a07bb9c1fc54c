// Access control by bearer token: the --auth_tokens_file, which maps tokens
// to the principals that own sessions, and the lookup of the token a call
// presents. Reloadable while the server runs (SIGHUP, and when its content
// changes: ValidationServer polls ReloadIfChanged).
//
// The file holds one `principal:token` per line. Blank lines and lines
// starting with '#' are skipped; spaces and tabs around the principal and the
// token are ignored. A principal may hold several tokens (for rotation); a
// token belongs to one principal.

#ifndef WASSERWARP_SERVER_OPS_AUTH_TOKENS_H_
#define WASSERWARP_SERVER_OPS_AUTH_TOKENS_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"

namespace wasserwarp::service {

struct TokenEntry {
  std::string principal;
  std::string token;
};

// Printable ASCII without spaces, not empty: what a gRPC metadata value can carry after
// "Bearer ", and what a log line can show of a principal. Tokens and principals are this.
bool IsTokenText(absl::string_view text);

// The entries of a token file's `text`; InvalidArgument naming
// `file_name`:line for a malformed line, a duplicate token, or no entry at all.
absl::StatusOr<std::vector<TokenEntry>> ParseTokenFile(std::string_view text,
                                                       std::string_view file_name);

// a == b, in a time that depends on the length of `presented` only, never on
// where the first difference is or on the content of `secret`.
bool ConstantTimeEquals(std::string_view presented, std::string_view secret);

// The principal of `token` among `entries`. Every entry is compared, with no
// early exit, so the time taken does not tell which entry matched or how
// close a guess came.
std::optional<std::string> FindPrincipal(const std::vector<TokenEntry>& entries,
                                         std::string_view token);

// The tokens of one file, swapped whole on reload: a call sees the old set or
// the new one, never a mix. Thread-safe.
class AuthTokens {
 public:
  // Reads `path`; its errors name the file and line.
  static absl::StatusOr<std::unique_ptr<AuthTokens>> Load(std::string path);

  // Reads the file again. On error the tokens in use stay and the error is
  // returned for the caller to report.
  absl::Status Reload();

  // Reads the file and reloads it when its content differs from the last content read (loaded
  // or refused): Kubernetes updates a Secret by swapping a `..data` symlink, so the content is
  // compared, not the modification time. True when it reloaded; an error, the tokens in use
  // staying, for an unreadable file or new content that does not parse (reported once, until
  // the content changes again).
  absl::StatusOr<bool> ReloadIfChanged();

  // The principal that `token` authenticates, if any.
  std::optional<std::string> PrincipalOf(std::string_view token) const;

  // Whether `principal` still holds a token: a browser signed in with one it no longer holds
  // (its tokens were removed by a reload) is signed out.
  bool HoldsPrincipal(std::string_view principal) const;

  const std::string& path() const { return path_; }
  // How many tokens are in use.
  size_t size() const;

 private:
  using Entries = std::vector<TokenEntry>;

  AuthTokens(std::string path, std::shared_ptr<const Entries> entries, std::string text);
  static absl::StatusOr<std::string> ReadText(const std::string& path);
  static absl::StatusOr<std::shared_ptr<const Entries>> Parse(const std::string& text,
                                                              const std::string& path);
  std::shared_ptr<const Entries> Current() const;

  const std::string path_;
  mutable absl::Mutex mu_;
  // Copied out under the lock, so lookups never wait for a reload's file read.
  std::shared_ptr<const Entries> entries_ ABSL_GUARDED_BY(mu_);
  // The file's content at the last read, for ReloadIfChanged; only its caller and Reload
  // touch it.
  absl::Mutex reload_mu_;
  std::string last_text_ ABSL_GUARDED_BY(reload_mu_);
};

// A warning naming `path` when the token file is readable by others (it holds every principal's
// secret); nothing when it is not, or cannot be examined.
std::optional<std::string> TokenFilePermissionWarning(const std::string& path);

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_OPS_AUTH_TOKENS_H_
