#include "output_file.h"

#include <cerrno>
#include <cstdio>
#include <memory>

#include "absl/strings/str_cat.h"

namespace wasserwarp::cli {

absl::Status WriteOutputFile(const std::string& path, const std::string& content) {
  const std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "wb"),
                                                             &std::fclose);
  if (file == nullptr) return absl::ErrnoToStatus(errno, absl::StrCat(path, ": cannot write"));
  if (std::fwrite(content.data(), 1, content.size(), file.get()) != content.size() ||
      std::fflush(file.get()) != 0) {
    return absl::ErrnoToStatus(errno, absl::StrCat(path, ": cannot write"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::FILE*> WriteJsonIfAsked(const ParsedArgs& args,
                                            absl::FunctionRef<std::string()> to_json) {
  const std::string* json_path = args.Value(kJsonFlag.name);
  if (json_path == nullptr) return stdout;
  const std::string json = to_json();
  if (*json_path == "-") {
    std::fputs(json.c_str(), stdout);
    return stderr;
  }
  if (absl::Status written = WriteOutputFile(*json_path, json); !written.ok()) return written;
  return stdout;
}

}  // namespace wasserwarp::cli
