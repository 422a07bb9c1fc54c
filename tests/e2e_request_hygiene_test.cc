// What the real server binary does with requests made to break its logs and its parser, and
// what it leaves on disk: requests that cannot be parsed get INVALID_ARGUMENT saying so and are
// counted under their method; user text in errors and log lines is quoted, escaped and bounded,
// so that no page token forges a log line; ids with control characters are refused; and the data
// directory and its files are the server user's alone.

#include <gmock/gmock.h>
#include <grpcpp/create_channel.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/security/credentials.h>
#include <grpcpp/support/byte_buffer.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "e2e_clients.h"
#include "e2e_process.h"
#include "metrics_scrape.h"
#include "scratch_dir.h"
#include "status_details.h"
#include "validation_client.h"
#include "wasserwarp/v1/validation.grpc.pb.h"

namespace wasserwarp {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

constexpr char kGetSession[] = "/wasserwarp.v1.ValidationService/GetSession";

// The longest log line a hostile request may cause: an rpc line with a 1 KiB error.
constexpr size_t kMaxLineBytes = 4096;

// One server for every test, since starting one is most of a test's time here.
class RequestHygieneTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    scratch_ = new test_support::ScratchDir("hygiene_");
    absl::StatusOr<std::unique_ptr<e2e::ServerProcess>> server = e2e::ServerProcess::Start(
        WASSERWARP_SERVER, scratch_->root().string(), {"--metrics_listen=127.0.0.1:0"});
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = server->release();
  }

  static void TearDownTestSuite() {
    if (server_ != nullptr) {
      EXPECT_EQ(server_->Stop(), 0) << server_->Log();
    }
    delete server_;
    delete scratch_;
  }

  void SetUp() override {
    ASSERT_NE(server_, nullptr);
    ASSERT_NO_FATAL_FAILURE(e2e::ConnectClients(server_->address(), client_, stub_));
  }

  // Calls of GetSession that ended INVALID_ARGUMENT so far.
  double InvalidGetSessionCalls() const {
    return test_support::Scrape::Of(server_->MetricsAddress())
        .Count("wasserwarp_grpc_server_handled_total",
               {{"grpc_service", "wasserwarp.v1.ValidationService"},
                {"grpc_method", "GetSession"},
                {"grpc_code", "INVALID_ARGUMENT"}});
  }

  // `bytes` sent as the request of `method`, as a client with another idea of the message would.
  grpc::Status RawCall(const std::string& method, const std::string& bytes) {
    grpc::GenericStub stub(
        grpc::CreateChannel(server_->address(), grpc::InsecureChannelCredentials()));
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    grpc::Slice slice(bytes);
    const grpc::ByteBuffer request(&slice, 1);
    grpc::ByteBuffer response;
    std::promise<grpc::Status> done;
    stub.UnaryCall(&context, method, grpc::StubOptions(), &request, &response,
                   [&](grpc::Status status) { done.set_value(std::move(status)); });
    return done.get_future().get();
  }

  // Every line the server logged so far.
  std::vector<std::string> LogLines() const {
    return absl::StrSplit(server_->Log(), '\n', absl::SkipEmpty());
  }

  static test_support::ScratchDir* scratch_;
  static e2e::ServerProcess* server_;
  std::unique_ptr<client::ValidationClient> client_;
  std::unique_ptr<v1::ValidationService::Stub> stub_;
};

test_support::ScratchDir* RequestHygieneTest::scratch_ = nullptr;
e2e::ServerProcess* RequestHygieneTest::server_ = nullptr;

TEST_F(RequestHygieneTest, UndecodableRequestsAreInvalidArgumentUnderTheirMethod) {
  // Field 1 (name), a string of two bytes that are not UTF-8.
  const std::string not_utf8 = "\x0a\x02\xff\xfe";
  const double before = InvalidGetSessionCalls();
  for (const std::string& bytes : {std::string("\xff\xff\xff"), not_utf8}) {
    const grpc::Status status = RawCall(kGetSession, bytes);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status.error_message();
    EXPECT_THAT(status.error_message(),
                HasSubstr("could not be parsed as a wasserwarp.v1.GetSessionRequest"));
  }
  EXPECT_EQ(InvalidGetSessionCalls(), before + 2);
  // Logged as every call is, though no handler ran.
  int logged = 0;
  for (const std::string& line : LogLines()) {
    logged += absl::StrContains(line, "rpc GetSession peer=") &&
              absl::StrContains(line, "status=INVALID_ARGUMENT") &&
              absl::StrContains(line, "could not be parsed");
  }
  EXPECT_EQ(logged, 2) << server_->Log();
  // The method exists and still answers a request it can read.
  v1::GetSessionRequest request;
  request.set_name("sessions/none");
  std::string bytes;
  ASSERT_TRUE(request.SerializeToString(&bytes));
  EXPECT_EQ(RawCall(kGetSession, bytes).error_code(), grpc::StatusCode::NOT_FOUND);
  // An unknown method stays UNIMPLEMENTED.
  EXPECT_EQ(RawCall("/wasserwarp.v1.ValidationService/NoSuchMethod", "\xff").error_code(),
            grpc::StatusCode::UNIMPLEMENTED);
}

TEST_F(RequestHygieneTest, APageTokenNeitherForgesALogLineNorFillsOne) {
  const std::string forged = "abc\n[info] forged line";
  // Megabytes, as a 60 MB one, far past any bound, but quicker to send.
  const std::string huge(16'000'000, 'A');
  for (const std::string& token : {forged, huge}) {
    v1::ListSessionsRequest request;
    request.set_page_token(token);
    grpc::ClientContext context;
    v1::ListSessionsResponse response;
    const grpc::Status status = stub_->ListSessions(&context, request, &response);
    ASSERT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_LT(status.error_message().size(), 512u);
    EXPECT_THAT(status.error_message(), Not(HasSubstr("\n")));
  }
  {
    grpc::ClientContext context;
    v1::ListSessionsRequest request;
    request.set_page_token(forged);
    v1::ListSessionsResponse response;
    EXPECT_THAT(stub_->ListSessions(&context, request, &response).error_message(),
                HasSubstr("\"abc\\n[info] forged line\" is not one this service issued"));
  }
  int rpc_lines = 0;
  for (const std::string& line : LogLines()) {
    EXPECT_THAT(line, Not(StartsWith("[info] forged")));
    if (!absl::StrContains(line, "rpc ListSessions")) continue;
    ++rpc_lines;
    EXPECT_LT(line.size(), kMaxLineBytes) << line.substr(0, 200);
  }
  EXPECT_EQ(rpc_lines, 3) << server_->Log().substr(0, 4000);
  EXPECT_THAT(server_->Log(), HasSubstr("(16000000 bytes)"));
}

TEST_F(RequestHygieneTest, IdsWithControlCharactersAreRefusedNamingTheField) {
  ASSERT_TRUE(client_->CreateSession("controls", {}).ok());
  v1::UploadSeriesRequest header;
  header.set_session("sessions/controls");
  header.mutable_header()->set_role(v1::ROLE_SIMULATION);
  header.mutable_header()->set_series_id(std::string("run\0\x1b[2J", 8));
  header.mutable_header()->add_channels("c0");
  grpc::ClientContext context;
  v1::UploadSeriesResponse response;
  std::unique_ptr<grpc::ClientWriter<v1::UploadSeriesRequest>> writer =
      stub_->UploadSeries(&context, &response);
  writer->Write(header);
  writer->WritesDone();
  const grpc::Status upload = writer->Finish();
  EXPECT_EQ(upload.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(upload.error_message(),
              HasSubstr("header.series_id: holds the control character \\x00 at byte 3"));

  grpc::ClientContext get_context;
  v1::GetSessionRequest get;
  get.set_name("sessions/a\nb");
  v1::GetSessionResponse session;
  const grpc::Status named = stub_->GetSession(&get_context, get, &session);
  EXPECT_EQ(named.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(named.error_message(), HasSubstr("name: holds the control character \\n at byte 10"));
  for (const std::string& line : LogLines()) EXPECT_THAT(line, Not(HasSubstr("\x1b")));
}

// Mode bits of `path` below the file type.
mode_t ModeOf(const std::filesystem::path& path) {
  struct stat info = {};
  EXPECT_EQ(stat(path.c_str(), &info), 0) << path;
  return info.st_mode & 07777;
}

TEST_F(RequestHygieneTest, DataFilesAreTheServerUsersAlone) {
  ASSERT_TRUE(client_->CreateSession("kept", {}).ok());
  std::filesystem::path data_dir;
  for (const auto& entry : std::filesystem::directory_iterator(scratch_->root())) {
    if (entry.path().extension() == ".data") data_dir = entry.path();
  }
  ASSERT_FALSE(data_dir.empty());
  EXPECT_EQ(ModeOf(data_dir), 0700u);
  int files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(data_dir)) {
    SCOPED_TRACE(entry.path().string());
    EXPECT_EQ(ModeOf(entry.path()), entry.is_directory() ? 0700u : 0600u);
    ++files;
  }
  EXPECT_GE(files, 2) << "the lock and the database at least";
}

}  // namespace
}  // namespace wasserwarp
