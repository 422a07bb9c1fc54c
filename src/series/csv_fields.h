// The lexical rules every CSV file of wasserwarp shares (run files, weights, run parameters,
// run groups): lines, trimmed unquoted fields, finite numbers and "file:line:column: " locations.
// Each rule exists once, so that every file names its bad fields the same way.

#ifndef WASSERWARP_SRC_SERIES_CSV_FIELDS_H_
#define WASSERWARP_SRC_SERIES_CSV_FIELDS_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace wasserwarp::csv {

// InvalidArgument "<source>:<line>:<column>: <message>"; the column is the 1-based field number,
// as a spreadsheet shows it.
absl::Status ErrorAt(absl::string_view source, size_t line, size_t column,
                     absl::string_view message);

// Lines of `content` without a UTF-8 byte order mark; '\r' stays and is trimmed with the fields.
std::vector<absl::string_view> Lines(absl::string_view content);

// The comma-separated fields of `line`, spaces, tabs and '\r' around each trimmed.
std::vector<absl::string_view> Fields(absl::string_view line);

bool IsBlank(absl::string_view line);

// Blank or starting with '#': skipped in the files people write by hand (weights, parameters).
bool IsBlankOrComment(absl::string_view line);

// `text` as a finite number, or InvalidArgument saying why not (without a location).
absl::StatusOr<double> ParseFinite(absl::string_view text);

// ParseFinite with the location put before its message.
absl::StatusOr<double> ParseFiniteAt(absl::string_view text, absl::string_view source, size_t line,
                                     size_t column);

}  // namespace wasserwarp::csv

#endif  // WASSERWARP_SRC_SERIES_CSV_FIELDS_H_
