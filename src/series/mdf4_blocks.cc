// Every block starts with a 24-byte header: "##" and two letters, 4 reserved bytes, the block's
// length (header included) and its number of links, all little endian. The links follow, then the
// data section up to the block's length.

#include "series/mdf4_blocks.h"

#include <algorithm>
#include <cstring>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace wasserwarp::mdf4 {
namespace {

constexpr uint64_t kHeaderBytes = 24;
// The identification block fills the first 64 bytes; no block starts inside it.
constexpr uint64_t kFirstBlock = 64;

bool IsOneOf(absl::string_view id, std::initializer_list<absl::string_view> ids) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

// The id as it can be printed: a hostile file's id may be any bytes.
std::string Printable(absl::string_view id) {
  std::string out;
  for (const char c : id) out += (c >= 0x20 && c < 0x7f) ? c : '?';
  return out;
}

}  // namespace

uint64_t LoadLe(absl::string_view data, size_t pos, size_t bytes) {
  uint64_t value = 0;
  for (size_t i = 0; i < bytes; ++i) {
    value |= uint64_t{static_cast<uint8_t>(data[pos + i])} << (8 * i);
  }
  return value;
}

double LoadLeDouble(absl::string_view data, size_t pos) {
  const uint64_t bits = LoadLe(data, pos, 8);
  double value = 0;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

absl::Status FileView::Error(uint64_t offset, absl::string_view id,
                             absl::string_view detail) const {
  return absl::InvalidArgumentError(
      absl::StrCat(source_, ": ", Printable(id), " block at offset ", offset, ": ", detail));
}

absl::Status FileView::RequireData(const Block& block, size_t bytes) const {
  if (block.data.size() >= bytes) return absl::OkStatus();
  return Error(block, absl::StrCat("truncated: its data section holds ", block.data.size(),
                                   " bytes, at least ", bytes, " expected"));
}

absl::StatusOr<Block> FileView::Read(uint64_t offset, std::initializer_list<absl::string_view> ids,
                                     absl::string_view what) const {
  return ReadAt(offset, ids, what, nullptr);
}

absl::StatusOr<Block> FileView::Follow(const Block& from, size_t k,
                                       std::initializer_list<absl::string_view> ids,
                                       absl::string_view what) const {
  return ReadAt(from.link(k), ids, what, &from);
}

absl::StatusOr<Block> FileView::ReadAt(uint64_t offset,
                                       std::initializer_list<absl::string_view> ids,
                                       absl::string_view what, const Block* from) const {
  const auto fail = [&](absl::string_view detail) {
    const std::string message = absl::StrCat("the ", what, " at offset ", offset, " ", detail);
    if (from == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(source_, ": ", message));
    }
    return Error(*from, message);
  };
  const uint64_t size = bytes_.size();
  if (offset < kFirstBlock || offset > size || size - offset < kHeaderBytes) {
    return fail(absl::StrCat("is outside the file (", size, " bytes)"));
  }
  Block block;
  block.offset = offset;
  block.id = bytes_.substr(offset, 4);
  if (!IsOneOf(block.id, ids)) {
    return fail(absl::StrCat("is a ", Printable(block.id), " block, expected ",
                             absl::StrJoin(ids, " or ")));
  }
  const uint64_t length = LoadLe(bytes_, offset + 8, 8);
  const uint64_t link_count = LoadLe(bytes_, offset + 16, 8);
  if (length > size - offset) {
    return Error(block, absl::StrCat("truncated: its length ", length, " reaches past the end of ",
                                     "the file (", size, " bytes)"));
  }
  if (length < kHeaderBytes || link_count > (length - kHeaderBytes) / 8) {
    return Error(block,
                 absl::StrCat("its ", link_count, " links do not fit in its length ", length));
  }
  block.links.resize(link_count);
  for (uint64_t k = 0; k < link_count; ++k) {
    block.links[k] = LoadLe(bytes_, offset + kHeaderBytes + 8 * k, 8);
  }
  const uint64_t data_start = kHeaderBytes + 8 * link_count;
  block.data = bytes_.substr(offset + data_start, length - data_start);
  return block;
}

absl::StatusOr<std::vector<Block>> FileView::Chain(const Block& from, size_t k, size_t next,
                                                   std::initializer_list<absl::string_view> ids,
                                                   absl::string_view what) const {
  std::vector<Block> chain;
  std::set<uint64_t> seen;
  const Block* previous = &from;
  size_t link = k;
  while (previous->link(link) != 0) {
    const uint64_t offset = previous->link(link);
    if (!seen.insert(offset).second) {
      return Error(*previous,
                   absl::StrCat("the chain of ", what, "s loops back to offset ", offset));
    }
    absl::StatusOr<Block> block = Follow(*previous, link, ids, what);
    if (!block.ok()) return block.status();
    chain.push_back(*std::move(block));
    previous = &chain.back();
    link = next;
  }
  return chain;
}

absl::StatusOr<std::string> FileView::Text(const Block& from, size_t k,
                                           absl::string_view what) const {
  if (from.link(k) == 0) return std::string();
  absl::StatusOr<Block> block = Follow(from, k, {"##TX", "##MD"}, what);
  if (!block.ok()) return block.status();
  const absl::string_view text = block->data.substr(0, block->data.find('\0'));
  return std::string(text);
}

}  // namespace wasserwarp::mdf4
