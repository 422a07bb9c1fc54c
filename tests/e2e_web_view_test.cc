// The web view (--http_listen) of a real `wasserwarp-server` on loopback, with access tokens:
// nothing without a principal, the bearer header and the sign-in cookie, another principal's
// record not found, the security headers, the bounds on requests, HTTPS with the server's
// certificate (a rotated one served without a restart), and Validation.link under
// --http_public_url.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "e2e_process.h"
#include "http_test_client.h"
#include "nlohmann/json.hpp"
#include "test_certificates.h"
#include "validation_client.h"

namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::testing::Not;
using wasserwarp::e2e::ServerProcess;
using wasserwarp::test_support::ProgramResult;
using wasserwarp::testing::Http;
using wasserwarp::testing::HttpAnswer;
using wasserwarp::testing::HttpCall;

constexpr char kPublicUrl[] = "https://wasserwarp.example.com/";

class E2eWebViewTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!wasserwarp::testing::HasOpenssl()) GTEST_SKIP() << "no openssl command";
    ASSERT_FALSE(dir_.root().empty());
    const absl::Status made = wasserwarp::testing::MakeCertificatesAndTokens(dir_.root(), certs_);
    ASSERT_TRUE(made.ok()) << made;
    const ProgramResult data = wasserwarp::test_support::RunProgram(
        WASSERWARP_EXAMPLE_DATA, {"--out", dir_.Path("data"), "--sim-runs", "2", "--ref-runs", "3"},
        dir_.root());
    ASSERT_EQ(data.exit_code, 0) << data.err;
  }

  void TearDown() override {
    if (server_ != nullptr) {
      EXPECT_EQ(server_->Stop(), 0) << server_->Log();
    }
  }

  // A server with tokens, the web view on a free port (HTTPS with `tls`) and a public URL.
  void StartServer(bool tls, std::vector<std::string> extra = {}) {
    tls_ = tls;
    std::vector<std::string> args = {
        "--auth_tokens_file", dir_.Path("tokens"), "--http_listen",          "127.0.0.1:0",
        "--http_public_url",  kPublicUrl,          "--http_request_timeout", "2s"};
    if (tls)
      args.insert(args.end(), {"--tls_cert", certs_.server_cert, "--tls_key", certs_.server_key});
    args.insert(args.end(), extra.begin(), extra.end());
    absl::StatusOr<std::unique_ptr<ServerProcess>> server =
        ServerProcess::Start(WASSERWARP_SERVER, dir_.root().string(), args);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    web_ = server_->WebAddress();
    ASSERT_FALSE(web_.empty()) << server_->Log();
  }

  // A session of bench-a with runs, and one validation of it: its name.
  std::string Validate(const std::string& session, const std::string& label) {
    std::vector<std::string> tls;
    if (tls_) tls = {"--tls-ca", certs_.ca};
    const auto cli = [&](std::vector<std::string> args) {
      args.insert(args.end(), {"--server", server_->address(), "--token-file", dir_.Path("tok-a")});
      args.insert(args.end(), tls.begin(), tls.end());
      return wasserwarp::test_support::RunProgram(WASSERWARP_CLI, std::move(args), dir_.root());
    };
    ProgramResult result = cli({"sessions", "create", "--session", session});
    EXPECT_EQ(result.exit_code, 0) << result.err;
    result = cli({"upload", "--session", session, "--sim", dir_.Path("data/sim_a"), "--ref",
                  dir_.Path("data/ref")});
    EXPECT_EQ(result.exit_code, 0) << result.err;
    result = cli({"validate", "--session", session, "--label", label, "--max-distance", "1e12"});
    EXPECT_EQ(result.exit_code, 0) << result.err;
    validate_output_ = result.out + result.err;
    std::unique_ptr<wasserwarp::client::ValidationClient> client = Client();
    absl::StatusOr<std::vector<wasserwarp::v1::Validation>> records =
        client->ListValidations(wasserwarp::client::ValidationQuery{.session_id = session});
    EXPECT_TRUE(records.ok() && records->size() == 1) << records.status();
    return records.ok() && !records->empty() ? records->front().name() : "";
  }

  std::unique_ptr<wasserwarp::client::ValidationClient> Client() const {
    wasserwarp::client::ClientOptions options;
    options.token = "tok-a";
    if (tls_) options.tls = wasserwarp::client::ClientTls{.ca_file = certs_.ca};
    absl::StatusOr<std::unique_ptr<wasserwarp::client::ValidationClient>> client =
        wasserwarp::client::ValidationClient::Connect(server_->address(), options);
    EXPECT_TRUE(client.ok()) << client.status();
    return *std::move(client);
  }

  HttpAnswer Get(const std::string& target, std::vector<std::string> headers = {}) const {
    return Http(web_, HttpCall{.method = "GET",
                               .target = target,
                               .headers = std::move(headers),
                               .body = "",
                               .ca_file = tls_ ? certs_.ca : ""});
  }

  HttpAnswer Post(const std::string& target, const std::string& form,
                  std::vector<std::string> headers = {}) const {
    headers.push_back("Content-Type: application/x-www-form-urlencoded");
    return Http(web_, HttpCall{.method = "POST",
                               .target = target,
                               .headers = std::move(headers),
                               .body = form,
                               .ca_file = tls_ ? certs_.ca : ""});
  }

  const wasserwarp::test_support::ScratchDir dir_{"e2e_web_view_"};
  wasserwarp::testing::TestCertificates certs_;
  std::unique_ptr<ServerProcess> server_;
  std::string web_;
  bool tls_ = false;
  std::string validate_output_;  // what the CLI's last `validate --session` printed
};

constexpr char kBearerA[] = "Authorization: Bearer tok-a";
constexpr char kBearerB[] = "Authorization: Bearer tok-b";

TEST_F(E2eWebViewTest, NothingIsServedWithoutAPrincipal) {
  StartServer(/*tls=*/false);
  const std::string name = Validate("bench", "version=1.0");
  for (const std::string& page :
       {std::string("/"), absl::StrCat("/", name), std::string("/history")}) {
    const HttpAnswer answer = Get(page);
    EXPECT_EQ(answer.status, 303) << page << answer.error;
    EXPECT_THAT(answer.Header("Location"), HasSubstr("/signin?next=")) << page;
    EXPECT_THAT(answer.body, Not(HasSubstr("bench"))) << page;
  }
  const HttpAnswer json = Get(absl::StrCat("/", name, "/report.json"));
  EXPECT_EQ(json.status, 401);
  EXPECT_THAT(json.Header("WWW-Authenticate"), HasSubstr("Bearer"));
  EXPECT_THAT(json.body, Not(HasSubstr("distance")));
  // A wrong token is no principal either.
  EXPECT_EQ(Get("/", {"Authorization: Bearer nope"}).status, 303);
  EXPECT_EQ(Get(absl::StrCat("/", name, "/report.json"), {"Authorization: Bearer nope"}).status,
            401);
  // The sign-in form is the one page open to all.
  const HttpAnswer form = Get("/signin?next=%2Fhistory");
  EXPECT_EQ(form.status, 200);
  EXPECT_THAT(form.body,
              AllOf(HasSubstr("<form method=\"post\" action=\"/signin\">"),
                    HasSubstr("name=\"token\" id=\"token\""), HasSubstr("value=\"/history\"")));
}

TEST_F(E2eWebViewTest, TheBearerHeaderShowsTheCallersRecordsWithTheSecurityHeaders) {
  StartServer(/*tls=*/false);
  const std::string name = Validate("bench", "version=1.0");
  const HttpAnswer list = Get("/", {kBearerA});
  ASSERT_EQ(list.status, 200) << list.error;
  EXPECT_THAT(list.body, HasSubstr(absl::StrCat("<tr class=\"record\" data-name=\"", name, "\"")));
  EXPECT_THAT(list.body, HasSubstr("version=1.0"));
  const std::string policy = list.Header("Content-Security-Policy");
  EXPECT_THAT(policy, AllOf(HasSubstr("default-src 'none'"), HasSubstr("script-src 'none'"),
                            HasSubstr("style-src 'sha256-"), HasSubstr("frame-ancestors 'none'"),
                            HasSubstr("form-action 'self'")));
  EXPECT_EQ(list.Header("X-Content-Type-Options"), "nosniff");
  EXPECT_EQ(list.Header("Cache-Control"), "no-store");
  EXPECT_EQ(list.Header("Referrer-Policy"), "no-referrer");

  // The record's report: the page drawn from the stored report, its scripts admitted by hash.
  const HttpAnswer page = Get(absl::StrCat("/", name), {kBearerA});
  ASSERT_EQ(page.status, 200) << page.body;
  EXPECT_THAT(page.body, HasSubstr("<canvas"));
  EXPECT_THAT(page.Header("Content-Security-Policy"),
              AllOf(HasSubstr("script-src 'sha256-"), Not(HasSubstr("unsafe-inline"))));
  EXPECT_EQ(page.Header("Cache-Control"), "no-store");
  const HttpAnswer json = Get(absl::StrCat("/", name, "/report.json"), {kBearerA});
  ASSERT_EQ(json.status, 200);
  EXPECT_EQ(json.Header("Content-Type"), "application/json");
  const nlohmann::json report = nlohmann::json::parse(json.body);
  EXPECT_TRUE(report.contains("distance"));
  EXPECT_FALSE(report.contains("cost_matrix"));
  // The history page draws the record by its label.
  const HttpAnswer history = Get("/history?by=labels.version", {kBearerA});
  EXPECT_EQ(history.status, 200);
  EXPECT_THAT(history.body, HasSubstr(name));
}

TEST_F(E2eWebViewTest, ARecordWhoseSessionIsGoneIsDrawnWithoutItsRuns) {
  StartServer(/*tls=*/false);
  const std::string name = Validate("bench", "version=1.0");
  EXPECT_THAT(Get(absl::StrCat("/", name), {kBearerA}).body, Not(HasSubstr("no longer held")));
  const ProgramResult deleted =
      wasserwarp::test_support::RunProgram(WASSERWARP_CLI,
                                           {"sessions", "delete", "--session", "bench", "--server",
                                            server_->address(), "--token-file", dir_.Path("tok-a")},
                                           dir_.root());
  ASSERT_EQ(deleted.exit_code, 0) << deleted.err;
  const HttpAnswer page = Get(absl::StrCat("/", name), {kBearerA});
  EXPECT_EQ(page.status, 200) << page.body;
  EXPECT_THAT(page.body, AllOf(HasSubstr("no longer held"), HasSubstr("<canvas")));
  EXPECT_EQ(Get(absl::StrCat("/", name, "/report.json"), {kBearerA}).status, 200);
}

TEST_F(E2eWebViewTest, AnotherPrincipalsRecordIsNotFound) {
  StartServer(/*tls=*/false);
  const std::string name = Validate("bench", "version=1.0");
  const HttpAnswer page = Get(absl::StrCat("/", name), {kBearerB});
  EXPECT_EQ(page.status, 404);
  const HttpAnswer unknown = Get("/sessions/bench/validations/0000000000000000", {kBearerB});
  EXPECT_EQ(unknown.status, 404);
  // Not found exactly as a record that never was: the message names the record, nothing more.
  EXPECT_THAT(page.body, HasSubstr("not found"));
  EXPECT_EQ(Get(absl::StrCat("/", name, "/report.json"), {kBearerB}).status, 404);
  const HttpAnswer list = Get("/", {kBearerB});
  EXPECT_EQ(list.status, 200);
  EXPECT_THAT(list.body, Not(HasSubstr(name)));
  EXPECT_EQ(Get("/no/such/page", {kBearerA}).status, 404);
}

TEST_F(E2eWebViewTest, SigningInSetsAPrivateCookieThatNeverHoldsTheToken) {
  StartServer(/*tls=*/false);
  const std::string name = Validate("bench", "version=1.0");
  const HttpAnswer wrong = Post("/signin", "token=nope&next=%2F");
  EXPECT_EQ(wrong.status, 401);
  EXPECT_EQ(wrong.Header("Set-Cookie"), "");
  EXPECT_THAT(wrong.body, HasSubstr("not valid"));

  const HttpAnswer signed_in = Post("/signin", "token=tok-a&next=%2Fhistory");
  ASSERT_EQ(signed_in.status, 303) << signed_in.body;
  EXPECT_EQ(signed_in.Header("Location"), "/history");
  const std::string cookie = signed_in.Header("Set-Cookie");
  EXPECT_THAT(cookie, MatchesRegex("wasserwarp_session=[0-9a-f]{64}; HttpOnly; Secure; "
                                   "SameSite=Strict; Path=/; Max-Age=[0-9]+"));
  EXPECT_THAT(cookie, Not(HasSubstr("tok-a")));
  const std::string session = cookie.substr(0, cookie.find(';'));
  const HttpAnswer list = Get("/", {absl::StrCat("Cookie: ", session)});
  EXPECT_EQ(list.status, 200);
  EXPECT_THAT(list.body, AllOf(HasSubstr(name), HasSubstr("bench-a")));
  // Another site's page cannot sign a browser in.
  EXPECT_EQ(Post("/signin", "token=tok-a", {"Origin: https://evil.example"}).status, 403);
  EXPECT_EQ(Post("/signin", "token=tok-a", {"Sec-Fetch-Site: cross-site"}).status, 403);
  EXPECT_EQ(Post("/signin", "token=tok-a", {"Sec-Fetch-Site: same-origin", "Origin: null"}).status,
            303);
  // next stays on this server.
  EXPECT_EQ(Post("/signin", "token=tok-a&next=https%3A%2F%2Fevil.example").Header("Location"), "/");

  const HttpAnswer out = Post("/signout", "", {absl::StrCat("Cookie: ", session)});
  EXPECT_EQ(out.status, 303);
  EXPECT_EQ(Get("/", {absl::StrCat("Cookie: ", session)}).status, 303);
}

TEST_F(E2eWebViewTest, FailedSignInsAreBounded) {
  StartServer(/*tls=*/false);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(Post("/signin", "token=guess").status, 401);
  const HttpAnswer locked = Post("/signin", "token=tok-a");
  EXPECT_EQ(locked.status, 429);
  EXPECT_EQ(locked.Header("Set-Cookie"), "");
  EXPECT_NE(locked.Header("Retry-After"), "");
}

TEST_F(E2eWebViewTest, RequestsAreBounded) {
  StartServer(/*tls=*/false);
  Validate("bench", "version=1.0");
  // A bad filter, a filter past the gRPC side's limit, bad page sizes: 400 pages that say why.
  const HttpAnswer bad = Get("/?filter=labels.version%20%3D%3D", {kBearerA});
  EXPECT_EQ(bad.status, 400);
  EXPECT_THAT(bad.body, AllOf(HasSubstr("id=\"error\""), HasSubstr("at position")));
  const HttpAnswer long_filter =
      Get(absl::StrCat("/?filter=labels.v%3D", std::string(2100, 'x')), {kBearerA});
  EXPECT_EQ(long_filter.status, 400);
  EXPECT_THAT(long_filter.body, HasSubstr("longer than 2048"));
  for (const char* size : {"0", "1001", "abc", "-5"}) {
    EXPECT_EQ(Get(absl::StrCat("/?page_size=", size), {kBearerA}).status, 400) << size;
  }
  EXPECT_EQ(Get("/?page_size=1000", {kBearerA}).status, 200);
  EXPECT_EQ(Get("/?page_token=forged", {kBearerA}).status, 400);
  // Methods.
  EXPECT_EQ(
      Http(web_,
           HttpCall{.method = "DELETE", .target = "/", .headers = {}, .body = "", .ca_file = ""})
          .status,
      405);
  EXPECT_EQ(
      Http(web_,
           HttpCall{.method = "PUT", .target = "/signin", .headers = {}, .body = "", .ca_file = ""})
          .status,
      405);
  // A body over --http_max_request_bytes.
  EXPECT_EQ(Post("/signin", std::string(64 * 1024, 'a')).status, 413);

  // A head over --http_max_request_bytes: refused or cut off, never served.
  {
    const int fd = wasserwarp::testing::ConnectRaw(web_);
    ASSERT_GE(fd, 0);
    const std::string huge = absl::StrCat(
        "GET / HTTP/1.1\r\nHost: x\r\nX-Pad: ", std::string(32 * 1024, 'p'), "\r\n\r\n");
    (void)send(fd, huge.data(), huge.size(), MSG_NOSIGNAL);
    bool closed = false;
    const std::string answer =
        wasserwarp::testing::ReceiveUntilClosed(fd, std::chrono::seconds(10), closed);
    close(fd);
    EXPECT_TRUE(closed);
    EXPECT_THAT(answer, Not(HasSubstr("200 OK")));
  }
  // A request that never finishes arriving is cut off after --http_request_timeout (2 s).
  {
    const int fd = wasserwarp::testing::ConnectRaw(web_);
    ASSERT_GE(fd, 0);
    const std::string start = "GET / HTTP/1.1\r\nHost: x\r\n";
    (void)send(fd, start.data(), start.size(), MSG_NOSIGNAL);
    const auto begin = std::chrono::steady_clock::now();
    bool closed = false;
    wasserwarp::testing::ReceiveUntilClosed(fd, std::chrono::seconds(15), closed);
    close(fd);
    EXPECT_TRUE(closed);
    EXPECT_LT(std::chrono::steady_clock::now() - begin, std::chrono::seconds(8));
  }
  // The server still answers.
  EXPECT_EQ(Get("/", {kBearerA}).status, 200);
}

TEST_F(E2eWebViewTest, HttpsUsesTheServersCertificateAndRecordsCarryTheirLink) {
  StartServer(/*tls=*/true);
  const std::string name = Validate("bench", "version=1.0");
  const HttpAnswer list = Get("/", {kBearerA});
  ASSERT_EQ(list.status, 200) << list.error;
  EXPECT_THAT(list.body, HasSubstr(name));
  // Plaintext is not spoken.
  EXPECT_NE(
      Http(web_, HttpCall{.method = "GET", .target = "/", .headers = {}, .body = "", .ca_file = ""})
          .status,
      200);

  const std::string link = absl::StrCat("https://wasserwarp.example.com/", name);
  std::unique_ptr<wasserwarp::client::ValidationClient> client = Client();
  absl::StatusOr<wasserwarp::v1::Validation> got = client->GetValidation(name);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->link(), link);
  absl::StatusOr<std::vector<wasserwarp::v1::Validation>> listed =
      client->ListValidations(wasserwarp::client::ValidationQuery{});
  ASSERT_TRUE(listed.ok()) << listed.status();
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ(listed->front().link(), link);
  // Validate's stream carries the link in its report, which the CLI prints.
  EXPECT_THAT(validate_output_, HasSubstr(absl::StrCat("record: ", link)));
  // The log names the link when the validation ends.
  EXPECT_THAT(server_->Log(), HasSubstr(absl::StrCat("ended SUCCEEDED: ", link)));
  // The link's path is the record's page.
  EXPECT_EQ(Get(absl::StrCat("/", name), {kBearerA}).status, 200);
}

// The answer to `/` over HTTPS when the client trusts only `ca_file`.
HttpAnswer GetTrusting(const std::string& web, const std::string& ca_file) {
  return Http(
      web,
      HttpCall{
          .method = "GET", .target = "/", .headers = {kBearerA}, .body = "", .ca_file = ca_file});
}

// Whether `done` holds within a minute, asked every 200 ms (a bound on the wait, not a timing).
template <class Done>
bool Eventually(Done done) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(1);
  while (!done()) {
    if (std::chrono::steady_clock::now() > give_up) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return true;
}

TEST_F(E2eWebViewTest, HttpsServesARotatedCertificateWithoutARestartAndKeepsItOverABadOne) {
  StartServer(/*tls=*/true, {"--credentials_refresh_interval=1s"});
  ASSERT_EQ(GetTrusting(web_, certs_.ca).status, 200);
  EXPECT_NE(GetTrusting(web_, certs_.other_ca).status, 200);

  // The new pair, from another CA, replaces the files as a Secret update does: each by rename.
  const std::filesystem::path dir = dir_.root();
  const std::string sign = absl::StrCat(
      "cd '", dir.string(), "' && (",
      wasserwarp::testing::SignCertificateCommand("rotated", "other_ca", "server.ext", "localhost"),
      ") >rotated.log 2>&1 && cp rotated.key server.key.new && cp rotated.pem server.pem.new && ",
      "mv server.key.new server.key && mv server.pem.new server.pem");
  ASSERT_EQ(std::system(sign.c_str()), 0);
  EXPECT_TRUE(Eventually([&] { return GetTrusting(web_, certs_.other_ca).status == 200; }))
      << server_->Log();
  EXPECT_NE(GetTrusting(web_, certs_.ca).status, 200);

  // A certificate that does not parse: the rotated pair stays, and the log says why.
  std::ofstream(certs_.server_cert, std::ios::trunc) << "-----BEGIN CERTIFICATE-----\nbad\n";
  EXPECT_TRUE(Eventually([&] { return absl::StrContains(server_->Log(), "not reloaded"); }))
      << server_->Log();
  EXPECT_EQ(GetTrusting(web_, certs_.other_ca).status, 200);
}

TEST_F(E2eWebViewTest, ABadPublicUrlStopsTheStart) {
  const ProgramResult result = wasserwarp::test_support::RunProgram(
      WASSERWARP_SERVER,
      {"--listen", "127.0.0.1:0", "--data_dir", "", "--http_public_url", "ftp://x/?q"},
      dir_.root());
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(result.err, HasSubstr("--http_public_url"));
}

}  // namespace
