// A real PostgreSQL 15 server of a test's own (Debian's postgresql-15, as production runs
// it): a fresh cluster in a scratch directory, listening on a free loopback port and a socket
// in that directory, with fsync off since nothing needs to survive the machine. Tests can stop
// and start it again (same data, same port) to see what clients do while it is away. Without
// the binaries a test fails, saying how to install them, rather than passing without testing.
//
// PostgreSQL refuses to run as root; as root (CI, containers) the cluster belongs to the
// postgres user of Debian's package and its programs run as that user through runuser.

#ifndef WASSERWARP_TESTS_POSTGRES_SERVER_H_
#define WASSERWARP_TESTS_POSTGRES_SERVER_H_

#include <netinet/in.h>
#include <pwd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "process_runner.h"
#include "scratch_dir.h"

namespace wasserwarp::test_support {

inline constexpr char kPostgresBinDir[] = "/usr/lib/postgresql/15/bin";
// The superuser initdb creates; connections need no password (trust authentication).
inline constexpr char kPostgresUser[] = "wasserwarp";

// A port on 127.0.0.1 that was free a moment ago; 0 when none could be had.
inline int FreeLoopbackPort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return 0;
  sockaddr_in address = {};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  int port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0)
    port = ntohs(address.sin_port);
  close(fd);
  return port;
}

class PostgresServer {
 public:
  // Creates the cluster and starts the server; when that fails ok() is false and error()
  // says why (the caller fails its tests with it).
  PostgresServer() : scratch_("wasserwarp_pg_") {
    const std::string initdb = Binary("initdb");
    if (!std::filesystem::exists(initdb) || !std::filesystem::exists(Binary("pg_ctl")) ||
        !std::filesystem::exists(Binary("postgres"))) {
      error_ = "PostgreSQL 15's server is not installed (no " + initdb +
               "); `make deps` installs postgresql-15 (and libpq-dev)";
      return;
    }
    if (scratch_.root().empty()) {
      error_ = "no scratch directory for PostgreSQL under " + ::testing::TempDir();
      return;
    }
    if (geteuid() == 0) {
      const passwd* user = getpwnam("postgres");
      if (user == nullptr || !std::filesystem::exists("/usr/sbin/runuser")) {
        error_ =
            "running as root needs the postgres user (postgresql-15's package creates it) "
            "and /usr/sbin/runuser to run PostgreSQL, which refuses to run as root; "
            "`make deps` installs postgresql-15";
        return;
      }
      if (chown(scratch_.root().c_str(), user->pw_uid, user->pw_gid) != 0) {
        error_ = "cannot give " + scratch_.root().string() + " to the postgres user";
        return;
      }
      as_postgres_ = true;
    }
    port_ = FreeLoopbackPort();
    if (port_ == 0) {
      error_ = "no free port on 127.0.0.1 for PostgreSQL";
      return;
    }
    const ProgramResult created =
        Run(initdb, {"-D", data_dir(), "-A", "trust", "-U", kPostgresUser, "-E", "UTF8",
                     "--locale=C", "--no-sync", "--no-instructions"});
    if (created.exit_code != 0) {
      error_ = "initdb failed: " + created.out + created.err;
      return;
    }
    if (::testing::AssertionResult started = Start(); !started) error_ = started.message();
  }

  PostgresServer(const PostgresServer&) = delete;
  PostgresServer& operator=(const PostgresServer&) = delete;

  ~PostgresServer() {
    if (running_) (void)Kill();
  }

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  int port() const { return port_; }
  bool running() const { return running_; }

  // The libpq URI of `database`, with `password` in it when not empty (trust authentication
  // ignores it: tests use one to check that no message shows it).
  std::string url(const std::string& database, const std::string& password = "") const {
    return "postgresql://" + std::string(kPostgresUser) + (password.empty() ? "" : ":" + password) +
           "@127.0.0.1:" + std::to_string(port_) + "/" + database;
  }

  // A new, empty database `name` (letters, digits and '_').
  ::testing::AssertionResult CreateDatabase(const std::string& name) {
    const ProgramResult result =
        RunProgram(Binary("createdb"),
                   {"-h", "127.0.0.1", "-p", std::to_string(port_), "-U", kPostgresUser, name},
                   scratch_.root());
    if (result.exit_code == 0) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "createdb " << name << " failed: " << result.err;
  }

  // Starts the server (again) on the same data and port, returning once it accepts
  // connections.
  ::testing::AssertionResult Start() {
    const std::string options = "-p " + std::to_string(port_) + " -k " + scratch_.root().string() +
                                " -c listen_addresses=127.0.0.1 -c fsync=off";
    const ProgramResult result = Run(Binary("pg_ctl"), {"-D", data_dir(), "-l", log_path(), "-w",
                                                        "-t", "60", "-o", options, "start"});
    if (result.exit_code != 0) {
      return ::testing::AssertionFailure()
             << "pg_ctl start failed: " << result.out << result.err << "\nserver log:\n"
             << ReadFile(log_path());
    }
    running_ = true;
    return ::testing::AssertionSuccess();
  }

  // A clean shutdown: the server ends every session (telling clients why, SQLSTATE 57P01)
  // and returns once it is down.
  ::testing::AssertionResult Stop() { return StopWith("fast"); }
  // Down at once, without ending sessions or writing a checkpoint, as a crash would leave it.
  ::testing::AssertionResult Kill() { return StopWith("immediate"); }

  // The server's log so far, for failure messages.
  std::string Log() const { return ReadFile(log_path()); }

 private:
  static std::string Binary(const std::string& name) {
    return std::string(kPostgresBinDir) + "/" + name;
  }
  std::string data_dir() const { return scratch_.Path("data"); }
  std::string log_path() const { return scratch_.Path("server.log"); }

  ::testing::AssertionResult StopWith(const std::string& mode) {
    const ProgramResult result =
        Run(Binary("pg_ctl"), {"-D", data_dir(), "-m", mode, "-w", "-t", "60", "stop"});
    if (result.exit_code != 0) {
      return ::testing::AssertionFailure()
             << "pg_ctl stop -m " << mode << " failed: " << result.out << result.err;
    }
    running_ = false;
    return ::testing::AssertionSuccess();
  }

  // `program args...` as the owner of the cluster.
  ProgramResult Run(const std::string& program, std::vector<std::string> args) const {
    if (!as_postgres_) return RunProgram(program, std::move(args), scratch_.root());
    args.insert(args.begin(), {"-u", "postgres", "--", program});
    return RunProgram("/usr/sbin/runuser", std::move(args), scratch_.root());
  }

  ScratchDir scratch_;
  std::string error_;
  bool as_postgres_ = false;
  bool running_ = false;
  int port_ = 0;
};

}  // namespace wasserwarp::test_support

#endif  // WASSERWARP_TESTS_POSTGRES_SERVER_H_
