// wasserwarp-server as a process: the address line, flag errors, and a
// graceful exit on SIGTERM while a validation runs.

#include <fcntl.h>
#include <gmock/gmock.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "random_runs.h"
#include "wasserwarp/v1/validation.grpc.pb.h"
#include "wire/convert.h"

extern char** environ;

namespace wasserwarp::service {
namespace {

using ::testing::HasSubstr;

class ServerProcess {
 public:
  // Starts the server with `args`; stdout is read through a pipe, stderr
  // through a file.
  explicit ServerProcess(std::vector<std::string> args) {
    int out[2];
    EXPECT_EQ(pipe(out), 0);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&actions, out[0]);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, stderr_path_.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    args.insert(args.begin(), WASSERWARP_SERVER);
    std::vector<char*> argv;
    for (std::string& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    EXPECT_EQ(posix_spawn(&pid_, WASSERWARP_SERVER, &actions, nullptr, argv.data(), environ), 0);
    posix_spawn_file_actions_destroy(&actions);
    close(out[1]);
    stdout_ = fdopen(out[0], "r");
  }

  ~ServerProcess() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (stdout_ != nullptr) fclose(stdout_);
    unlink(stderr_path_.c_str());
  }

  // The first line of stdout, without its newline; empty at end of file.
  std::string FirstLine() {
    char line[256] = {};
    if (fgets(line, sizeof line, stdout_) == nullptr) return "";
    return std::string(absl::StripSuffix(line, "\n"));
  }

  // The exit status, waiting up to `timeout`; -1 if it did not exit normally.
  int Wait(absl::Duration timeout) {
    const absl::Time deadline = absl::Now() + timeout;
    int status = 0;
    while (waitpid(pid_, &status, WNOHANG) == 0) {
      if (absl::Now() > deadline) return -1;
      absl::SleepFor(absl::Milliseconds(10));
    }
    pid_ = 0;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

  void Signal(int signal) { kill(pid_, signal); }

  std::string Stderr() const {
    std::string text;
    if (FILE* file = fopen(stderr_path_.c_str(), "r")) {
      char buffer[4096];
      size_t got = 0;
      while ((got = fread(buffer, 1, sizeof buffer, file)) > 0) text.append(buffer, got);
      fclose(file);
    }
    return text;
  }

 private:
  const std::string stderr_path_ =
      ::testing::TempDir() + "server_main_test_" + std::to_string(getpid()) + ".err";
  pid_t pid_ = 0;
  FILE* stdout_ = nullptr;
};

TEST(ServerMainTest, RejectsABadLimitNamingTheFlag) {
  ServerProcess server({"--listen=127.0.0.1:0", "--max_concurrent_jobs=0"});
  EXPECT_EQ(server.FirstLine(), "");
  EXPECT_EQ(server.Wait(absl::Seconds(20)), 2);
  EXPECT_THAT(server.Stderr(), HasSubstr("--max_concurrent_jobs must be at least 1"));
}

TEST(ServerMainTest, SigtermCancelsARunningValidationAfterTheGraceAndExitsZero) {
  ServerProcess server(
      {"--listen=127.0.0.1:0", "--shutdown_grace=200ms", "--job_threads=1", "--data_dir="});
  const std::string line = server.FirstLine();
  ASSERT_TRUE(absl::StartsWith(line, "listening on 127.0.0.1:")) << line;
  auto stub = v1::ValidationService::NewStub(grpc::CreateChannel(
      std::string(absl::StripPrefix(line, "listening on ")), grpc::InsecureChannelCredentials()));

  grpc::ClientContext create_context;
  v1::CreateSessionRequest create;
  create.set_session_id("s");
  v1::CreateSessionResponse created;
  ASSERT_TRUE(stub->CreateSession(&create_context, create, &created).ok());
  grpc::ClientContext upload_context;
  v1::UploadSeriesResponse uploaded;
  auto writer = stub->UploadSeries(&upload_context, &uploaded);
  // About 2.5e9 DP cells on one thread: far longer than the test, so only the signal ends it.
  for (const auto& [role, prefix] :
       {std::pair{v1::ROLE_SIMULATION, "sim"}, std::pair{v1::ROLE_REFERENCE, "ref"}}) {
    for (const Series& run : test_data::RandomWalkRuns(prefix, 10, 5000, 5000, 1, 1)) {
      v1::UploadSeriesRequest header;
      header.set_session("sessions/s");
      header.mutable_header()->set_role(role);
      header.mutable_header()->set_series_id(run.id);
      header.mutable_header()->add_channels("c0");
      ASSERT_TRUE(writer->Write(header));
      v1::UploadSeriesRequest chunk;
      chunk.mutable_chunk()->mutable_times()->Assign(run.times.begin(), run.times.end());
      chunk.mutable_chunk()->mutable_values()->Assign(run.values.begin(), run.values.end());
      ASSERT_TRUE(writer->Write(chunk));
      v1::UploadSeriesRequest end;
      end.mutable_end();
      ASSERT_TRUE(writer->Write(end));
    }
  }
  writer->WritesDone();
  ASSERT_TRUE(writer->Finish().ok());

  grpc::ClientContext validate_context;
  v1::ValidateRequest request;
  request.set_session("sessions/s");
  auto reader = stub->Validate(&validate_context, request);
  v1::ValidateResponse event;
  while (reader->Read(&event) && event.progress().phase() != v1::PHASE_COST_MATRIX) {
  }
  server.Signal(SIGTERM);
  while (reader->Read(&event)) {
  }
  EXPECT_FALSE(reader->Finish().ok());
  EXPECT_EQ(server.Wait(absl::Seconds(20)), 0) << server.Stderr();
  EXPECT_THAT(server.Stderr(), HasSubstr("job 1 end"));
}

}  // namespace
}  // namespace wasserwarp::service
