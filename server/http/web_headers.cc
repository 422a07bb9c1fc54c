#include "http/web_headers.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "wasserwarp/sha256.h"

namespace wasserwarp::service::http {
namespace {

// What a policy allows besides its hashes: images only as data: URLs (the report's), forms only
// to this server, no frame around the page and no <base> to redirect its links.
constexpr char kPolicyRest[] =
    "img-src data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

std::string HashSource(absl::string_view content) {
  const std::string bytes =
      absl::HexStringToBytes(Sha256Hex(std::string_view(content.data(), content.size())));
  return absl::StrCat("'sha256-", absl::Base64Escape(bytes), "'");
}

// The hashes of the contents of every `<tag ...>...</tag>` in `html` whose opening tag does not
// contain `skip_marker` (case-insensitive tag names, as browsers read them).
std::vector<std::string> InlineHashes(absl::string_view html, absl::string_view tag,
                                      absl::string_view skip_marker) {
  const std::string lower = absl::AsciiStrToLower(html);
  const std::string open = absl::StrCat("<", tag);
  const std::string close = absl::StrCat("</", tag);
  std::vector<std::string> hashes;
  size_t at = 0;
  while ((at = lower.find(open, at)) != std::string::npos) {
    const size_t tag_end = lower.find('>', at);
    if (tag_end == std::string::npos) break;
    const size_t end = lower.find(close, tag_end);
    if (end == std::string::npos) break;
    const absl::string_view opening(lower.data() + at, tag_end - at);
    const char after = lower[at + open.size()];
    // <style ...> or <script ...>, not <scripts>.
    if ((after == '>' || absl::ascii_isspace(static_cast<unsigned char>(after))) &&
        (skip_marker.empty() || !absl::StrContains(opening, skip_marker))) {
      hashes.push_back(HashSource(html.substr(tag_end + 1, end - tag_end - 1)));
    }
    at = end;
  }
  return hashes;
}

// The hashes of the values of `style="..."` attributes (the report sizes its charts' boxes
// so), which CSP admits by hash only with 'unsafe-hashes'. Values are taken as written: the
// pages put no character references in them.
std::vector<std::string> StyleAttributeHashes(absl::string_view html) {
  constexpr absl::string_view kAttribute = " style=\"";
  std::vector<std::string> hashes;
  for (size_t at = html.find(kAttribute); at != absl::string_view::npos;
       at = html.find(kAttribute, at + 1)) {
    const size_t begin = at + kAttribute.size();
    const size_t end = html.find('"', begin);
    if (end == absl::string_view::npos) break;
    std::string hash = HashSource(html.substr(begin, end - begin));
    if (std::find(hashes.begin(), hashes.end(), hash) == hashes.end()) {
      hashes.push_back(std::move(hash));
    }
  }
  return hashes;
}

std::string SourceList(const std::vector<std::string>& hashes) {
  return hashes.empty() ? "'none'" : absl::StrJoin(hashes, " ");
}

}  // namespace

std::string ContentSecurityPolicy(absl::string_view html) {
  std::vector<std::string> styles = InlineHashes(html, "style", "");
  const std::vector<std::string> attributes = StyleAttributeHashes(html);
  if (!attributes.empty()) {
    styles.push_back("'unsafe-hashes'");
    styles.insert(styles.end(), attributes.begin(), attributes.end());
  }
  return absl::StrCat("default-src 'none'; script-src ",
                      SourceList(InlineHashes(html, "script", "application/json")), "; style-src ",
                      SourceList(styles), "; ", kPolicyRest);
}

void AddSecurityHeaders(HttpResponse& response, bool private_answer) {
  const bool html = absl::StartsWith(response.content_type, "text/html");
  response.headers.emplace_back("Content-Security-Policy",
                                html ? ContentSecurityPolicy(response.body)
                                     : absl::StrCat("default-src 'none'; ", kPolicyRest));
  response.headers.emplace_back("X-Content-Type-Options", "nosniff");
  response.headers.emplace_back("Referrer-Policy", "no-referrer");
  response.headers.emplace_back("X-Frame-Options", "DENY");
  if (private_answer) response.headers.emplace_back("Cache-Control", "no-store");
}

}  // namespace wasserwarp::service::http
