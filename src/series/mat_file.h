// matio behind RAII and absl::Status: an open .mat file, its variables' headers, and the data of a
// variable read only once its size is known to be within MatLimits. matio is C and reports
// failure by return value and log message; both end up in the Status here.

#ifndef WASSERWARP_SRC_SERIES_MAT_FILE_H_
#define WASSERWARP_SRC_SERIES_MAT_FILE_H_

#include <matio.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "wasserwarp/mat.h"

namespace wasserwarp::mat {

struct VarFree {
  void operator()(matvar_t* var) const { Mat_VarFree(var); }
};
using Var = std::unique_ptr<matvar_t, VarFree>;

class File {
 public:
  // InvalidArgument naming `path` where matio cannot open it as a MAT file.
  static absl::StatusOr<File> Open(const std::string& path, const MatLimits& limits);

  const std::string& path() const { return path_; }
  std::string version() const;  // "5", "7.3" or "4"

  // The headers (name, class, dimensions, and a struct's fields) of every variable, in the
  // file's order, without their data.
  absl::StatusOr<std::vector<Var>> ReadHeaders();

  // Variable `header.name` with its data. Its size as `header` gives it counts against the limit
  // of the file's data; beyond the limit it is an InvalidArgument, before anything is read.
  absl::StatusOr<Var> Read(const matvar_t& header);

  const MatLimits& limits() const { return limits_; }

  // "FILE: variable "NAME": what".
  absl::Status Error(absl::string_view variable, absl::string_view what) const;

 private:
  struct Close {
    void operator()(mat_t* mat) const { Mat_Close(mat); }
  };

  File(std::string path, mat_t* mat, const MatLimits& limits)
      : path_(std::move(path)), mat_(mat), limits_(limits), budget_(limits.max_data_bytes) {}

  std::string path_;
  std::unique_ptr<mat_t, Close> mat_;
  MatLimits limits_;
  uint64_t budget_;  // bytes of data still to be read
};

// The MATLAB class of `var`: "double", "int16", "struct", "char", ...
std::string ClassName(const matvar_t& var);

// The length of `var` where it is a real numeric vector (N x 1 or 1 x N, N > 0); nullopt
// otherwise.
std::optional<size_t> VectorLength(const matvar_t& var);

// The samples x columns of `var` where it is a real numeric array of rank 2 with `samples` rows,
// or a 1 x `samples` row; else why not, for the user.
absl::StatusOr<size_t> ColumnsFor(const matvar_t& var, size_t samples);

// The elements of the real numeric array `var` (with data), column-major, as doubles.
std::vector<double> ToDoubles(const matvar_t& var);

// The text of a char array (with data) as UTF-8; nullopt for anything else.
std::optional<std::string> ToText(const matvar_t& var);

// Field `name` of element `index` of struct `var`; null where there is none.
const matvar_t* Field(const matvar_t& var, const char* name, size_t index = 0);

// The number of elements of `var`; nullopt where it overflows.
std::optional<uint64_t> Elements(const matvar_t& var);

}  // namespace wasserwarp::mat

#endif  // WASSERWARP_SRC_SERIES_MAT_FILE_H_
