// The blocks of an MDF 4 file as a hostile file may hold them: every block read is checked to lie
// inside the file, its links and data section inside the block, and every chain of blocks is
// walked with a record of where it has been, so that a loop is an error and not a hang.

#ifndef WASSERWARP_SRC_SERIES_MDF4_BLOCKS_H_
#define WASSERWARP_SRC_SERIES_MDF4_BLOCKS_H_

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace wasserwarp::mdf4 {

// The bytes of `data` from `pos` as a little-endian number; the caller has checked the bounds.
uint64_t LoadLe(absl::string_view data, size_t pos, size_t bytes);
double LoadLeDouble(absl::string_view data, size_t pos);

struct Block {
  uint64_t offset = 0;
  absl::string_view id;  // "##DG", ...
  std::vector<uint64_t> links;
  absl::string_view data;  // the data section, after the links

  // Link `k`, or 0 (no block) where the block has fewer links.
  uint64_t link(size_t k) const { return k < links.size() ? links[k] : 0; }
};

class FileView {
 public:
  FileView(absl::string_view bytes, absl::string_view source) : bytes_(bytes), source_(source) {}

  absl::string_view bytes() const { return bytes_; }
  absl::string_view source() const { return source_; }

  // InvalidArgument "<source>: <id> block at offset <offset>: <detail>".
  absl::Status Error(uint64_t offset, absl::string_view id, absl::string_view detail) const;
  absl::Status Error(const Block& block, absl::string_view detail) const {
    return Error(block.offset, block.id, detail);
  }

  // The block at `offset`, which must be one of `ids`; `what` names it in errors.
  absl::StatusOr<Block> Read(uint64_t offset, std::initializer_list<absl::string_view> ids,
                             absl::string_view what) const;
  // The block that link `k` of `from` points to (which must not be 0).
  absl::StatusOr<Block> Follow(const Block& from, size_t k,
                               std::initializer_list<absl::string_view> ids,
                               absl::string_view what) const;
  // The blocks of the chain that starts at link `k` of `from` and goes on through link
  // `next` of each block; empty when link `k` is 0.
  absl::StatusOr<std::vector<Block>> Chain(const Block& from, size_t k, size_t next,
                                           std::initializer_list<absl::string_view> ids,
                                           absl::string_view what) const;
  // The text of the TX or MD block that link `k` of `from` points to; empty for no block.
  absl::StatusOr<std::string> Text(const Block& from, size_t k, absl::string_view what) const;

  // Ok when `block`'s data section holds at least `bytes` bytes.
  absl::Status RequireData(const Block& block, size_t bytes) const;

 private:
  absl::StatusOr<Block> ReadAt(uint64_t offset, std::initializer_list<absl::string_view> ids,
                               absl::string_view what, const Block* from) const;

  absl::string_view bytes_;
  absl::string_view source_;
};

}  // namespace wasserwarp::mdf4

#endif  // WASSERWARP_SRC_SERIES_MDF4_BLOCKS_H_
