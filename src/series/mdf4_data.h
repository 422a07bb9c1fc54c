// The records of a data group as one run of bytes, from wherever the group's data link points:
// a DT block, a DZ block (deflate or transposed deflate), or a DL list of them, possibly under an
// HL block. Decompression is bounded: a DZ block may not claim more bytes than deflate can make
// of its compressed ones, must inflate to exactly what it claims, and all of a file's data is
// capped by a limit, so that a small file cannot make the reader allocate without bound.

#ifndef WASSERWARP_SRC_SERIES_MDF4_DATA_H_
#define WASSERWARP_SRC_SERIES_MDF4_DATA_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "series/mdf4_blocks.h"

namespace wasserwarp::mdf4 {

// The data that link `k` of data group block `group` points to (empty for none), at most
// `max_bytes` bytes of it (ResourceExhausted beyond: what is left of the file's limit).
absl::StatusOr<std::string> ReadGroupData(const FileView& file, const Block& group, size_t k,
                                          uint64_t max_bytes);

}  // namespace wasserwarp::mdf4

#endif  // WASSERWARP_SRC_SERIES_MDF4_DATA_H_
