// The web view's pieces that need no server: the public URL and links, the
// Content-Security-Policy's hashes, cookies and sign-in sessions, the sign-in throttle, where
// the sign-in form may send a browser, and the flags' checks.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>

#include "absl/time/time.h"
#include "http/sign_in_throttle.h"
#include "http/web_auth.h"
#include "http/web_headers.h"
#include "http/web_sessions.h"
#include "ops/public_url.h"
#include "ops/server_config.h"

namespace wasserwarp::service {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(PublicUrlTest, HttpAndHttpsUrlsLoseTheirTrailingSlash) {
  EXPECT_EQ(*NormalizePublicUrl("https://ww.example.com/"), "https://ww.example.com");
  EXPECT_EQ(*NormalizePublicUrl("http://10.0.0.5:8080/view//"), "http://10.0.0.5:8080/view");
  EXPECT_EQ(RecordLink("https://ww.example.com", "sessions/s/validations/v"),
            "https://ww.example.com/sessions/s/validations/v");
  EXPECT_EQ(RecordLink("", "sessions/s/validations/v"), "");
}

TEST(PublicUrlTest, OtherUrlsAreRefusedNamingTheFlag) {
  for (const char* url :
       {"ftp://x", "ww.example.com", "https://", "https://h/?q=1", "https://h/#top",
        "https://user:pw@h", "https://h/a b", "https://h/\"x"}) {
    const absl::StatusOr<std::string> normalized = NormalizePublicUrl(url);
    EXPECT_FALSE(normalized.ok()) << url;
    EXPECT_THAT(normalized.status().message(), HasSubstr("--http_public_url")) << url;
  }
}

TEST(ContentSecurityPolicyTest, ScriptsAndStylesAreAdmittedByTheirHashOnly) {
  const std::string policy = http::ContentSecurityPolicy(
      "<html><head><style>a</style><SCRIPT>a</SCRIPT>"
      "<script type=\"application/json\" id=\"data\">{}</script></head>"
      "<body><div class=\"chart\" style=\"height:320px\"></div></body></html>");
  EXPECT_THAT(policy, HasSubstr("default-src 'none'"));
  EXPECT_THAT(policy,
              HasSubstr("script-src 'sha256-ypeBEsobvcr6wjGzmiPcTaeG7/gUfE5yuYB3ha/uSLs=';"));
  EXPECT_THAT(policy, HasSubstr("style-src 'sha256-ypeBEsobvcr6wjGzmiPcTaeG7/gUfE5yuYB3ha/uSLs=' "
                                "'unsafe-hashes' "
                                "'sha256-3w63QyaY9Awk+2QYk5ByPhQyoT8uchOrIdyE2R1HIOU='"));
  EXPECT_THAT(policy, HasSubstr("frame-ancestors 'none'"));
  EXPECT_THAT(policy, HasSubstr("form-action 'self'"));
  EXPECT_THAT(policy, Not(HasSubstr("unsafe-inline")));
  EXPECT_THAT(http::ContentSecurityPolicy("<p>no script</p>"),
              HasSubstr("script-src 'none'; style-src 'none'"));
}

TEST(SecurityHeadersTest, EveryAnswerHasThemAndPrivateOnesAreNotCached) {
  http::HttpResponse json{
      .status = 200, .content_type = "application/json", .headers = {}, .body = "{}"};
  http::AddSecurityHeaders(json, /*private_answer=*/true);
  std::map<std::string, std::string> headers(json.headers.begin(), json.headers.end());
  EXPECT_THAT(headers["Content-Security-Policy"], HasSubstr("default-src 'none'"));
  EXPECT_EQ(headers["X-Content-Type-Options"], "nosniff");
  EXPECT_EQ(headers["Referrer-Policy"], "no-referrer");
  EXPECT_EQ(headers["Cache-Control"], "no-store");
  http::HttpResponse form;
  http::AddSecurityHeaders(form, /*private_answer=*/false);
  for (const auto& [name, value] : form.headers) EXPECT_NE(name, "Cache-Control");
}

TEST(WebSessionsTest, SessionsExpireEndAndAreBounded) {
  const absl::Time now = absl::FromUnixSeconds(1'700'000'000);
  http::WebSessions sessions(absl::Hours(12), /*max_sessions=*/2);
  const absl::StatusOr<std::string> a = sessions.SignIn("alice", now);
  ASSERT_TRUE(a.ok());
  EXPECT_THAT(*a, ::testing::MatchesRegex("[0-9a-f]{64}"));
  EXPECT_EQ(sessions.PrincipalOf(*a, now + absl::Hours(1)), "alice");
  EXPECT_EQ(sessions.PrincipalOf(*a, now + absl::Hours(12)), std::nullopt);
  const std::string b = *sessions.SignIn("bob", now);
  const std::string c = *sessions.SignIn("carol", now + absl::Seconds(1));
  const std::string d = *sessions.SignIn("dave", now + absl::Seconds(2));
  // The oldest sign-in made room.
  EXPECT_EQ(sessions.PrincipalOf(b, now + absl::Seconds(3)), std::nullopt);
  EXPECT_EQ(sessions.PrincipalOf(c, now + absl::Seconds(3)), "carol");
  sessions.SignOut(d);
  EXPECT_EQ(sessions.PrincipalOf(d, now + absl::Seconds(3)), std::nullopt);
  EXPECT_NE(c, d);
}

TEST(WebSessionsTest, CookieValueFindsTheNamedCookie) {
  EXPECT_EQ(http::CookieValue("a=1; wasserwarp_session=abc; b=2", "wasserwarp_session"), "abc");
  EXPECT_EQ(http::CookieValue("wasserwarp_session_x=abc", "wasserwarp_session"), "");
  EXPECT_EQ(http::CookieValue("", "wasserwarp_session"), "");
}

TEST(SignInThrottleTest, AnAddressIsLockedOutForAWindowAfterFiveFailures) {
  const absl::Time now = absl::FromUnixSeconds(1'700'000'000);
  http::SignInThrottle throttle;
  for (int i = 0; i < http::SignInThrottle::kMaxFailures; ++i) {
    EXPECT_TRUE(throttle.Allowed("10.0.0.1", now));
    throttle.Failed("10.0.0.1", now);
  }
  EXPECT_FALSE(throttle.Allowed("10.0.0.1", now + absl::Seconds(30)));
  EXPECT_TRUE(throttle.Allowed("10.0.0.2", now));
  EXPECT_TRUE(throttle.Allowed("10.0.0.1", now + http::SignInThrottle::kWindow));
}

TEST(SameOriginPathTest, OnlyPathsOfThisServer) {
  EXPECT_EQ(http::SameOriginPath("/history?by=labels.v"), "/history?by=labels.v");
  for (const char* next : {"https://evil.example/", "//evil.example", "/\\evil.example",
                           "javascript:alert(1)", "", "/a b", "/a\r\nSet-Cookie: x"}) {
    EXPECT_EQ(http::SameOriginPath(next), "/") << next;
  }
}

TEST(HttpConfigTest, BadValuesNameTheirFlag) {
  const auto error = [](void (*change)(ServerConfig&)) {
    ServerConfig config;
    change(config);
    return std::string(ValidateConfig(config).message());
  };
  EXPECT_THAT(error([](ServerConfig& c) { c.http.max_connections = 0; }),
              HasSubstr("--http_max_connections"));
  EXPECT_THAT(error([](ServerConfig& c) { c.http.max_request_bytes = 100; }),
              HasSubstr("--http_max_request_bytes"));
  EXPECT_THAT(error([](ServerConfig& c) { c.http.request_timeout = absl::ZeroDuration(); }),
              HasSubstr("--http_request_timeout"));
  EXPECT_THAT(error([](ServerConfig& c) { c.http.session_ttl = absl::InfiniteDuration(); }),
              HasSubstr("--http_session_ttl"));
  EXPECT_THAT(error([](ServerConfig& c) { c.http.public_url = "https://h/?x"; }),
              HasSubstr("--http_public_url"));
  EXPECT_TRUE(ValidateConfig(ServerConfig()).ok());
}

}  // namespace
}  // namespace wasserwarp::service
