#include "wasserwarp/run_files.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <system_error>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/file_contents.h"
#include "tbb/parallel_for.h"
#include "wasserwarp/csv.h"
#include "wasserwarp/sha256.h"

namespace wasserwarp {
namespace {

namespace fs = std::filesystem;

bool IsRunFile(const fs::path& path) {
  return path.extension() == ".csv" || path.extension() == ".mf4" || path.extension() == ".mat";
}

absl::StatusOr<std::vector<std::string>> RunFilesIn(const std::string& directory) {
  std::vector<std::string> files;
  std::error_code error;
  for (fs::directory_iterator it(directory, error); !error && it != fs::directory_iterator();
       it.increment(error)) {
    std::error_code type_error;
    if (IsRunFile(it->path()) && it->is_regular_file(type_error)) {
      files.push_back(it->path().string());
    }
  }
  if (error) {
    return absl::ErrnoToStatus(error.value(), absl::StrCat(directory, ": cannot list directory"));
  }
  if (files.empty()) {
    return absl::NotFoundError(
        absl::StrCat(directory, ": no *.csv, *.mf4 or *.mat files in this directory"));
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

bool IsMdf4Path(const std::string& path) { return fs::path(path).extension() == ".mf4"; }

bool IsMatPath(const std::string& path) { return fs::path(path).extension() == ".mat"; }

namespace {

// A run file named neither as MDF 4 nor as MATLAB is read as CSV.
bool IsCsvRunPath(const std::string& path) { return !IsMdf4Path(path) && !IsMatPath(path); }

}  // namespace

absl::StatusOr<Mdf4FileSummary> InspectRunFile(const std::string& path) {
  if (IsMdf4Path(path)) return InspectMdf4File(path);
  if (IsMatPath(path)) return InspectMatFile(path);
  return InspectCsvFile(path);
}

absl::StatusOr<Series> ReadRunFile(const std::string& path, const RunFileOptions& options,
                                   std::vector<std::string>& notes) {
  if (IsCsvRunPath(path)) return ReadSeriesCsv(path);
  absl::StatusOr<Mdf4Run> run = IsMdf4Path(path)
                                    ? ReadMdf4Run(path, options.channels, options.mdf4_limits)
                                    : ReadMatRun(path, options.channels, options.mat_limits);
  if (!run.ok()) return run.status();
  notes.insert(notes.end(), run->notes.begin(), run->notes.end());
  return std::move(run->series);
}

absl::StatusOr<std::vector<std::string>> ExpandRunPaths(const std::vector<std::string>& paths) {
  std::vector<std::string> files;
  for (const std::string& path : paths) {
    std::error_code error;
    const fs::file_status status = fs::status(path, error);
    if (status.type() == fs::file_type::not_found) {
      return absl::NotFoundError(absl::StrCat(path, ": no such file or directory"));
    }
    if (error) return absl::ErrnoToStatus(error.value(), path);
    if (status.type() != fs::file_type::directory) {
      files.push_back(path);
      continue;
    }
    absl::StatusOr<std::vector<std::string>> in_directory = RunFilesIn(path);
    if (!in_directory.ok()) return in_directory.status();
    files.insert(files.end(), in_directory->begin(), in_directory->end());
  }
  return files;
}

namespace {

// A run file read, and its bytes' SHA-256 when asked for.
struct HashedRun {
  absl::StatusOr<Series> run;
  std::string sha256;
};

// ReadRunFile, hashing the file when `hash`: a CSV file from the bytes parsed, so it is read once.
HashedRun ReadAndHashRunFile(const std::string& path, const RunFileOptions& options, bool hash,
                             std::vector<std::string>& notes) {
  if (!hash) return {ReadRunFile(path, options, notes), {}};
  if (IsCsvRunPath(path)) {
    absl::StatusOr<std::string> content = ReadFileContents(path);
    if (!content.ok()) return {content.status(), {}};
    return {ParseSeriesCsvFile(*content, path), Sha256Hex(*content)};
  }
  HashedRun read{ReadRunFile(path, options, notes), {}};
  if (!read.run.ok()) return read;
  absl::StatusOr<std::string> sha256 = FileSha256(path);
  if (!sha256.ok()) return {sha256.status(), {}};
  read.sha256 = *std::move(sha256);
  return read;
}

absl::StatusOr<RunFileSet> ReadRunFileSet(const std::vector<std::string>& paths,
                                          const RunFileOptions& options,
                                          std::vector<std::string>& notes, bool hash) {
  absl::StatusOr<std::vector<std::string>> files = ExpandRunPaths(paths);
  if (!files.ok()) return files.status();
  const size_t count = files->size();
  std::vector<std::optional<HashedRun>> read(count);
  std::vector<std::vector<std::string>> notes_of(count);
  // A folder of thousands of short CSV runs is mostly opening files: those are read in parallel.
  // MATLAB files go one at a time, as matio and HDF5 keep global state, and MDF 4 files with them
  // (few and large, and their reader was not written for concurrent use).
  tbb::parallel_for(size_t{0}, count, [&](size_t k) {
    const std::string& file = (*files)[k];
    if (IsCsvRunPath(file)) {
      read[k] = ReadAndHashRunFile(file, options, hash, notes_of[k]);
    }
  });
  RunFileSet set;
  set.runs.reserve(count);
  if (hash) set.sources.reserve(count);
  std::map<std::string, std::string, std::less<>> file_of_id;
  // In the order of the files, so the error reported is that of the first bad one.
  for (size_t k = 0; k < count; ++k) {
    const std::string& file = (*files)[k];
    if (!read[k].has_value()) read[k] = ReadAndHashRunFile(file, options, hash, notes_of[k]);
    absl::StatusOr<Series>& run = read[k]->run;
    if (!run.ok()) return run.status();
    const auto [it, inserted] = file_of_id.emplace(run->id, file);
    if (!inserted) {
      return absl::InvalidArgumentError(
          absl::StrCat("duplicate run id \"", run->id, "\": ", it->second, " and ", file));
    }
    notes.insert(notes.end(), notes_of[k].begin(), notes_of[k].end());
    set.runs.push_back(*std::move(run));
    if (hash) set.sources.push_back({.file = file, .sha256 = std::move(read[k]->sha256)});
  }
  return set;
}

}  // namespace

absl::StatusOr<RunFileSet> ReadRunsWithSources(const std::vector<std::string>& paths,
                                               const RunFileOptions& options,
                                               std::vector<std::string>& notes) {
  return ReadRunFileSet(paths, options, notes, /*hash=*/true);
}

absl::StatusOr<std::vector<Series>> ReadRuns(const std::vector<std::string>& paths,
                                             const RunFileOptions& options,
                                             std::vector<std::string>& notes) {
  absl::StatusOr<RunFileSet> read = ReadRunFileSet(paths, options, notes, /*hash=*/false);
  if (!read.ok()) return read.status();
  return std::move(read->runs);
}

absl::StatusOr<std::vector<Series>> ReadRuns(const std::vector<std::string>& paths) {
  std::vector<std::string> notes;
  return ReadRuns(paths, {}, notes);
}

}  // namespace wasserwarp
