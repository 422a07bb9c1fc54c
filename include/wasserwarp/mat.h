// Reading runs from MATLAB .mat files (v5 and v7.3), as Simulink and MATLAB scripts save them,
// through Debian's matio, and listing what such a file holds.
//
// Two layouts are runs:
//  - a vector `time` and one numeric vector of as many samples per channel, the channel being
//    the variable's name;
//  - Simulink's "structure with time": a struct with a vector `time` and a struct array
//    `signals`, each `signals(k).values` a vector or a samples x width matrix named by
//    `signals(k).label` (a matrix gives the channels "label(1)", "label(2)", ...).
// Where a file holds a structure with time, its other variables are not channels. Variables
// that cannot be channels (text, cells, complex, matrices, another length than `time`) are
// listed with the reason, and other channels of the file still read. A file in neither layout
// is an InvalidArgument that lists its variables and the layouts accepted.
//
// The file is untrusted input: the sizes matio reports are checked against MatLimits before any
// data is read, and every error names the file and the variable.

#ifndef WASSERWARP_MAT_H_
#define WASSERWARP_MAT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "wasserwarp/mdf4.h"

namespace wasserwarp {

struct MatLimits {
  // The most bytes of data the variables read may hold together, as their sizes say.
  uint64_t max_data_bytes = uint64_t{2} << 30;
  // The most channels (variables, or signals' columns) a file may hold: what bounds the memory
  // of a file whose data is small but whose structures are many.
  uint64_t max_channels = uint64_t{1} << 16;
};

// What `inspect` shows of a .mat file, in the summary `inspect` shows of MDF 4 files: one group
// (named after the structure with time; "" for the first layout) whose master channel is `time`.
// The data type is the MATLAB class ("double", "int16", ...), the conversion "identity".
absl::StatusOr<Mdf4FileSummary> InspectMatFile(const std::string& path,
                                               const MatLimits& limits = {});

// The run of `channels` (every readable one where empty) in file `path`, its id the file name
// without extension. The notes name the variables left out of an empty `channels` as unreadable.
absl::StatusOr<Mdf4Run> ReadMatRun(const std::string& path,
                                   const std::vector<std::string>& channels,
                                   const MatLimits& limits = {});

}  // namespace wasserwarp

#endif  // WASSERWARP_MAT_H_
