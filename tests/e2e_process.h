// The programs under test as separate processes: the `wasserwarp` CLI run on a terminal, and a
// `wasserwarp-server` on a free loopback port for the length of a test. End-to-end tests use
// them, and process_runner.h, to see what a bench or a pipeline sees.

#ifndef WASSERWARP_TESTS_E2E_PROCESS_H_
#define WASSERWARP_TESTS_E2E_PROCESS_H_

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "gtest/gtest.h"
#include "process_runner.h"
#include "scratch_dir.h"

namespace wasserwarp::e2e {

// Reads `fd` until end of file (or EIO, which is how a terminal's master side ends).
inline std::string ReadUntilEnd(int fd) {
  std::string data;
  char buffer[4096];
  for (;;) {
    const ssize_t got = read(fd, buffer, sizeof buffer);
    if (got > 0) {
      data.append(buffer, static_cast<size_t>(got));
    } else if (got < 0 && errno == EINTR) {
      continue;
    } else {
      return data;
    }
  }
}

// As RunProgram, but with stderr on a pseudo-terminal, as a person at a console has it.
inline test_support::ProgramResult RunProgramOnTerminal(const std::string& program,
                                                        std::vector<std::string> args,
                                                        const std::string& scratch_dir) {
  test_support::ProgramResult result;
  int master = -1;
  int slave = -1;
  if (openpty(&master, &slave, nullptr, nullptr, nullptr) != 0) {
    result.err = "cannot open a pseudo-terminal";
    return result;
  }
  const std::string out_path = absl::StrCat(scratch_dir, "/terminal", getpid(), ".stdout");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_adddup2(&actions, slave, 2);
  posix_spawn_file_actions_addclose(&actions, master);
  std::vector<char*> argv = test_support::Argv(program, args);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  // With the child holding the only slave descriptor, reading the master ends when it exits.
  close(slave);
  if (spawned != 0) {
    close(master);
    result.err = absl::StrCat("cannot start ", program);
    return result;
  }
  result.err = ReadUntilEnd(master);
  close(master);
  int status = 0;
  waitpid(pid, &status, 0);
  result.exit_code = test_support::ExitCode(status);
  result.out = test_support::ReadFile(out_path);
  return result;
}

// A loopback port nobody listens on: bound, then released.
inline int ClosedPort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address = {};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
  getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  close(fd);
  return ntohs(address.sin_port);
}

// A `wasserwarp-server` child process listening on a free loopback port.
class ServerProcess {
 public:
  // Starts `program --listen 127.0.0.1:0 extra_args...` and waits for the first line of its
  // stdout, "listening on HOST:PORT". With `address_space_kib`, the server runs under that
  // limit of virtual memory (`ulimit -v`), as a container's memory limit would hold it.
  static absl::StatusOr<std::unique_ptr<ServerProcess>> Start(
      const std::string& program, const std::string& scratch_dir,
      std::vector<std::string> extra_args = {}, uint64_t address_space_kib = 0) {
    std::unique_ptr<ServerProcess> server(new ServerProcess());
    const std::string stem = absl::StrCat(scratch_dir, "/server", getpid(), "_", ++Serial());
    server->log_path_ = stem + ".log";
    int out[2];
    if (pipe2(out, O_CLOEXEC) != 0) return absl::InternalError("pipe failed");
    // A data directory of its own, so that no two servers share sessions; a --data_dir in
    // extra_args comes later and wins.
    std::vector<std::string> args = {"--listen", "127.0.0.1:0", "--data_dir", stem + ".data"};
    args.insert(args.end(), extra_args.begin(), extra_args.end());
    std::string spawned_program = program;
    if (address_space_kib > 0) {
      args.insert(
          args.begin(),
          {"-c", absl::StrCat("ulimit -v ", address_space_kib, " && exec \"$0\" \"$@\""), program});
      spawned_program = "/bin/sh";
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    posix_spawn_file_actions_addopen(&actions, 2, server->log_path_.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    std::vector<char*> argv = test_support::Argv(spawned_program, args);
    const int spawned = posix_spawn(&server->pid_, spawned_program.c_str(), &actions, nullptr,
                                    argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    close(out[1]);
    if (spawned != 0) {
      close(out[0]);
      server->pid_ = -1;
      return absl::InternalError(absl::StrCat("cannot start ", program));
    }
    server->stdout_fd_ = out[0];

    std::string first_line;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!absl::StrContains(first_line, '\n')) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      pollfd ready = {server->stdout_fd_, POLLIN, 0};
      char c = 0;
      if (left.count() <= 0 || poll(&ready, 1, static_cast<int>(left.count())) <= 0 ||
          read(server->stdout_fd_, &c, 1) != 1) {
        return absl::UnavailableError(
            absl::StrCat("the server did not say where it listens; ", "its log:\n", server->Log()));
      }
      first_line.push_back(c);
    }
    absl::string_view line = absl::StripTrailingAsciiWhitespace(first_line);
    if (!absl::ConsumePrefix(&line, "listening on ")) {
      return absl::InternalError(absl::StrCat("unexpected first line \"", line, "\""));
    }
    server->address_ = std::string(line);
    // The server may write more to stdout; an unread pipe would block it once full.
    server->drain_ = std::thread([fd = server->stdout_fd_] { ReadUntilEnd(fd); });
    return server;
  }

  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  ~ServerProcess() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (drain_.joinable()) drain_.join();
    if (stdout_fd_ >= 0) close(stdout_fd_);
  }

  const std::string& address() const { return address_; }
  pid_t pid() const { return pid_; }

  // SIGTERM, then its exit status; -1 when it did not exit by itself within `timeout`.
  int Stop(std::chrono::seconds timeout = std::chrono::seconds(20)) {
    if (pid_ <= 0) return -1;
    kill(pid_, SIGTERM);
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    int status = 0;
    while (waitpid(pid_, &status, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > deadline) return -1;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    pid_ = -1;
    return test_support::ExitCode(status);
  }

  // What the server has logged so far, for failure messages.
  std::string Log() const { return test_support::ReadFile(log_path_); }

  // host:port of the metrics endpoint of a server started with --metrics_listen, from the line
  // main.cc logs right after the address line; empty when none appears within 10 s.
  std::string MetricsAddress() const { return LoggedAddress("metrics on http://", "/metrics"); }

  // host:port of the web view of a server started with --http_listen, from the line main.cc
  // logs ("web view on http://HOST:PORT/" or https); empty when none appears within 10 s.
  std::string WebAddress() const {
    const std::string address = LoggedAddress("web view on http://", "/");
    return address.empty() ? LoggedAddress("web view on https://", "/") : address;
  }

 private:
  ServerProcess() = default;

  // What follows `marker` up to `end` in the log, waiting up to 10 s for it.
  std::string LoggedAddress(const std::string& marker, const std::string& end) const {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    std::string log;
    while ((log = Log()).find(marker) == std::string::npos &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    const size_t begin = log.find(marker);
    if (begin == std::string::npos) return "";
    const size_t address = begin + marker.size();
    return log.substr(address, log.find(end, address) - address);
  }

  static int& Serial() {
    static int serial = 0;
    return serial;
  }

  pid_t pid_ = -1;
  int stdout_fd_ = -1;
  std::thread drain_;
  std::string address_;
  std::string log_path_;
};

// A scratch directory and a `wasserwarp-server` (the WASSERWARP_SERVER binary) for each test.
// A test passes only if the server then shuts down gracefully: SIGTERM, exit status 0.
class ServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(dir_.root().empty());
    absl::StatusOr<std::unique_ptr<ServerProcess>> server =
        ServerProcess::Start(WASSERWARP_SERVER, dir_.root().string());
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
  }

  void TearDown() override {
    if (server_ != nullptr) {
      EXPECT_EQ(server_->Stop(), 0) << server_->Log();
    }
  }

  std::string Path(const std::string& name) const { return dir_.Path(name); }

  // `program args...` to completion, its output captured in the scratch directory.
  test_support::ProgramResult Run(const std::string& program, std::vector<std::string> args) const {
    return test_support::RunProgram(program, std::move(args), dir_.root());
  }

  const test_support::ScratchDir dir_{"e2e_"};
  std::unique_ptr<ServerProcess> server_;
};

}  // namespace wasserwarp::e2e

#endif  // WASSERWARP_TESTS_E2E_PROCESS_H_
