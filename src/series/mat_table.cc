// LoadTable: which layout the file is in, decided on the variables' headers alone, and then only
// the variables that layout needs are read.

#include "series/mat_table.h"

#include <cmath>
#include <optional>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "series/mat_file.h"

namespace wasserwarp::mat {
namespace {

constexpr char kLayouts[] =
    "the layouts read are a vector \"time\" with one numeric vector per channel, and Simulink's "
    "structure with time (a struct with \"time\" and \"signals\", the channels "
    "signals(k).values named by signals(k).label)";

std::string Describe(const matvar_t& var) {
  std::vector<size_t> dims;
  if (!Elements(var).has_value()) return absl::StrCat(ClassName(var), " of rank ", var.rank);
  for (int d = 0; d < var.rank; ++d) dims.push_back(var.dims[d]);
  return absl::StrCat(ClassName(var), " ", absl::StrJoin(dims, "x"));
}

bool IsStructureWithTime(const matvar_t& header) {
  return header.class_type == MAT_C_STRUCT && Elements(header) == 1 &&
         Field(header, "time") != nullptr && Field(header, "signals") != nullptr;
}

// The times of `var`, checked: a numeric vector, finite and strictly increasing.
absl::StatusOr<std::vector<double>> Times(const File& file, const std::string& variable,
                                          const matvar_t* var) {
  if (var == nullptr) return file.Error(variable, "missing");
  if (!VectorLength(*var).has_value()) {
    return file.Error(variable, absl::StrCat("a ", Describe(*var), ", not a numeric vector"));
  }
  std::vector<double> times = ToDoubles(*var);
  for (size_t i = 0; i < times.size(); ++i) {
    if (!std::isfinite(times[i])) {
      return file.Error(variable,
                        absl::StrCat("sample ", i, ": time ", times[i], " is not finite"));
    }
    if (i > 0 && times[i] <= times[i - 1]) {
      return file.Error(variable, absl::StrCat("sample ", i, ": time ", times[i],
                                               " is not after the previous time ", times[i - 1]));
    }
  }
  return times;
}

// Ok where `table` may take `more` columns.
absl::Status CheckRoom(const File& file, const Table& table, uint64_t more) {
  const uint64_t max = file.limits().max_channels;
  if (table.columns.size() <= max && more <= max - table.columns.size()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(file.path(), ": more than ", max, " channels"));
}

// The first layout: every variable but `time` is a channel, if it is a vector as long.
absl::Status LoadVectors(File& file, const std::vector<Var>& headers, const matvar_t& time,
                         Table& table) {
  if (absl::Status status = CheckRoom(file, table, headers.size()); !status.ok()) return status;
  absl::StatusOr<Var> time_var = file.Read(time);
  if (!time_var.ok()) return time_var.status();
  absl::StatusOr<std::vector<double>> times = Times(file, "time", time_var->get());
  if (!times.ok()) return times.status();
  table.time_variable = "time";
  table.time_class = ClassName(time);
  table.times = *std::move(times);
  for (const Var& header : headers) {
    if (header.get() == &time) continue;
    Column column = {header->name, header->name, ClassName(*header), "", {}};
    const std::optional<size_t> length = VectorLength(*header);
    if (!length.has_value()) {
      column.reason = absl::StrCat("a ", Describe(*header), ", not a numeric vector");
    } else if (*length != table.times.size()) {
      column.reason = absl::StrCat(*length, " values for ", table.times.size(), " times");
    } else {
      absl::StatusOr<Var> var = file.Read(*header);
      if (!var.ok()) return var.status();
      column.values = ToDoubles(**var);
    }
    table.columns.push_back(std::move(column));
  }
  return absl::OkStatus();
}

// The channels of signals(k): one for a vector, one a column for a samples x width matrix.
absl::Status AddSignal(const File& file, const matvar_t& signals, size_t k,
                       const std::string& group, Table& table) {
  const std::string variable = absl::StrCat(group, ".signals(", k + 1, ").values");
  const matvar_t* label = Field(signals, "label", k);
  std::string name = label == nullptr ? "" : ToText(*label).value_or("");
  if (name.empty()) name = absl::StrCat("signal", k + 1);
  const matvar_t* values = Field(signals, "values", k);
  if (values == nullptr) {
    table.columns.push_back({name, variable, "", "missing", {}});
    return absl::OkStatus();
  }
  absl::StatusOr<size_t> width = ColumnsFor(*values, table.times.size());
  if (!width.ok() || *width == 0) {
    table.columns.push_back({name,
                             variable,
                             ClassName(*values),
                             width.ok() ? "no columns" : std::string(width.status().message()),
                             {}});
    return absl::OkStatus();
  }
  if (absl::Status status = CheckRoom(file, table, *width); !status.ok()) return status;
  const std::vector<double> data = ToDoubles(*values);
  const size_t samples = table.times.size();
  for (size_t j = 0; j < *width; ++j) {
    Column column = {*width == 1 ? name : absl::StrCat(name, "(", j + 1, ")"),
                     *width == 1 ? variable : absl::StrCat(variable, "(:,", j + 1, ")"),
                     ClassName(*values),
                     "",
                     {data.begin() + j * samples, data.begin() + (j + 1) * samples}};
    table.columns.push_back(std::move(column));
  }
  return absl::OkStatus();
}

// Simulink's structure with time: its time, and a channel per column of each signal.
absl::Status LoadStructure(File& file, const matvar_t& header, Table& table) {
  absl::StatusOr<Var> var = file.Read(header);
  if (!var.ok()) return var.status();
  table.group = header.name;
  table.time_variable = absl::StrCat(header.name, ".time");
  const matvar_t* time = Field(**var, "time");
  absl::StatusOr<std::vector<double>> times = Times(file, table.time_variable, time);
  if (!times.ok()) return times.status();
  table.time_class = ClassName(*time);
  table.times = *std::move(times);
  const matvar_t* signals = Field(**var, "signals");
  if (signals == nullptr || signals->class_type != MAT_C_STRUCT) {
    return file.Error(absl::StrCat(header.name, ".signals"), "not a struct array");
  }
  const uint64_t count = Elements(*signals).value_or(0);
  if (absl::Status status = CheckRoom(file, table, count); !status.ok()) return status;
  for (uint64_t k = 0; k < count; ++k) {
    if (absl::Status status = AddSignal(file, *signals, k, header.name, table); !status.ok()) {
      return status;
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status LayoutError(const std::string& path, const std::string& variables,
                         const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat(path, ": ", what, "; its variables are ",
                                                 variables.empty() ? "none" : variables, "; ",
                                                 kLayouts));
}

absl::StatusOr<Table> LoadTable(const std::string& path, const MatLimits& limits) {
  absl::StatusOr<File> file = File::Open(path, limits);
  if (!file.ok()) return file.status();
  absl::StatusOr<std::vector<Var>> headers = file->ReadHeaders();
  if (!headers.ok()) return headers.status();
  Table table;
  table.path = path;
  table.version = file->version();
  std::vector<std::string> described;
  std::vector<std::string> structures;
  const matvar_t* structure = nullptr;
  const matvar_t* time = nullptr;
  for (const Var& header : *headers) {
    described.push_back(absl::StrCat(header->name, " (", Describe(*header), ")"));
    if (IsStructureWithTime(*header)) {
      structures.push_back(header->name);
      structure = header.get();
    }
    if (std::string(header->name) == "time") time = header.get();
  }
  table.variables = absl::StrJoin(described, ", ");
  if (structures.size() > 1) {
    return LayoutError(path, table.variables,
                       absl::StrCat("several structures with time (",
                                    absl::StrJoin(structures, ", "), "); a file holds one run"));
  }
  absl::Status status = structure != nullptr ? LoadStructure(*file, *structure, table)
                        : time != nullptr    ? LoadVectors(*file, *headers, *time, table)
                                             : LayoutError(path, table.variables,
                                                           "no variable \"time\" and no structure "
                                                              "with time");
  if (!status.ok()) return status;
  return table;
}

}  // namespace wasserwarp::mat
