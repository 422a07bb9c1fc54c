// A program run to completion as a separate process, its exit status and output captured:
// how tests and benchmarks see the real binaries as a pipeline sees them.

#ifndef WASSERWARP_TESTS_PROCESS_RUNNER_H_
#define WASSERWARP_TESTS_PROCESS_RUNNER_H_

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

extern char** environ;

namespace wasserwarp::test_support {

struct ProgramResult {
  int exit_code = -1;  // -1: did not start, or killed by a signal
  std::string out;
  std::string err;
};

// The whole content of `path`; empty when it cannot be read.
inline std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

// The argv of `program args...` for posix_spawn; points into `args`, which gets `program` first.
inline std::vector<char*> Argv(const std::string& program, std::vector<std::string>& args) {
  args.insert(args.begin(), program);
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  return argv;
}

inline int ExitCode(int wait_status) {
  return WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -1;
}

// Runs `program args...` to completion; stdin is /dev/null, stdout and stderr go through
// files in `scratch_dir`, named apart so that no two runs, in any process, share one.
inline ProgramResult RunProgram(const std::string& program, std::vector<std::string> args,
                                const std::filesystem::path& scratch_dir) {
  static int serial = 0;
  const std::string stem =
      (scratch_dir / ("run" + std::to_string(getpid()) + "_" + std::to_string(++serial))).string();
  const std::string out_path = stem + ".stdout";
  const std::string err_path = stem + ".stderr";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  std::vector<char*> argv = Argv(program, args);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ProgramResult result;
  if (spawned != 0) {
    result.err = "cannot start " + program;
    return result;
  }
  int status = 0;
  waitpid(pid, &status, 0);
  result.exit_code = ExitCode(status);
  result.out = ReadFile(out_path);
  result.err = ReadFile(err_path);
  return result;
}

}  // namespace wasserwarp::test_support

#endif  // WASSERWARP_TESTS_PROCESS_RUNNER_H_
