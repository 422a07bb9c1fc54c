// The run a .mat file holds, in either layout mat.h accepts, as one table: the times and every
// variable that could be a channel, with its values or why it cannot be one.

#ifndef WASSERWARP_SRC_SERIES_MAT_TABLE_H_
#define WASSERWARP_SRC_SERIES_MAT_TABLE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "wasserwarp/mat.h"

namespace wasserwarp::mat {

struct Column {
  std::string name;            // the channel's name in the run
  std::string variable;        // where it is in the file: "x", "yout.signals(2).values"
  std::string data_type;       // the MATLAB class
  std::string reason;          // why it cannot be a channel; empty where it can
  std::vector<double> values;  // one per time; empty where unreadable
};

struct Table {
  std::string path;
  std::string version;        // "5", "7.3"
  std::string group;          // the structure with time's name; "" for the first layout
  std::string time_variable;  // "time", "yout.time"
  std::string time_class;
  std::vector<double> times;  // finite and strictly increasing
  std::vector<Column> columns;
  std::string variables;  // the file's variables, for messages: "time (double 4x1), x (...)"
};

// The table of the file at `path`. InvalidArgument naming the file and variable where the file is
// neither layout or its time is not a finite, strictly increasing numeric vector.
absl::StatusOr<Table> LoadTable(const std::string& path, const MatLimits& limits);

// The error for a file that holds no run: its variables and the layouts accepted.
absl::Status LayoutError(const std::string& path, const std::string& variables,
                         const std::string& what);

}  // namespace wasserwarp::mat

#endif  // WASSERWARP_SRC_SERIES_MAT_TABLE_H_
