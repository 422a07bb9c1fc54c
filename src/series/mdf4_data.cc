// A DZ block's data section: the original block type (2 bytes, "DT" here), zip type (1: 0 deflate,
// 1 transposition + deflate), a reserved byte, the zip parameter (4: for transposition the number
// of columns, the record length), the original and the compressed length (8 each), then the zlib
// stream. Transposition stores the first rows x columns bytes column by column; the remainder of
// the original length follows untransposed.
//
// A DL block: links next DL, then one per data block; data: flags (1, bit 0: equal lengths),
// 3 reserved, the count (4), then an equal length (8) or one offset per block (8 each). The data
// blocks are concatenated in order, which is all that the offsets say, so they are not needed.
// An HL block: one link, the first DL; data: flags (2), zip type (1), 5 reserved.

#include "series/mdf4_data.h"

#include <zlib.h>

#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"

namespace wasserwarp::mdf4 {
namespace {

constexpr size_t kDzHeaderBytes = 24;
// zlib's deflate expands at most 1032 to 1 (its technical details); a claim beyond that (plus
// room for a stream's header and trailer) is a lie, whatever the compressed bytes hold.
constexpr uint64_t kDeflateMaxRatio = 1032;
constexpr uint64_t kDeflateSlack = 1024;

absl::Status TooLarge(const FileView& file, const Block& block, uint64_t bytes, uint64_t limit) {
  return absl::ResourceExhaustedError(absl::StrCat(
      file.source(), ": ", block.id, " block at offset ", block.offset, ": the ", "data would be ",
      bytes, " bytes, more than the ", limit, " bytes left of the ", "file's limit"));
}

absl::Status Inflate(const FileView& file, const Block& block, absl::string_view compressed,
                     std::string& out) {
  z_stream stream{};
  if (inflateInit(&stream) != Z_OK) return absl::InternalError("zlib: inflateInit failed");
  // zlib takes at most 4 GiB a call; both buffers are handed over in pieces.
  size_t in_done = 0;
  size_t out_done = 0;
  int result = Z_OK;
  while (result == Z_OK) {
    constexpr size_t kPiece = std::numeric_limits<uInt>::max();
    const size_t in_piece = std::min(kPiece, compressed.size() - in_done);
    const size_t out_piece = std::min(kPiece, out.size() - out_done);
    stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data() + in_done));
    stream.avail_in = static_cast<uInt>(in_piece);
    stream.next_out = reinterpret_cast<Bytef*>(out.data() + out_done);
    stream.avail_out = static_cast<uInt>(out_piece);
    result = inflate(&stream, Z_NO_FLUSH);
    in_done += in_piece - stream.avail_in;
    out_done += out_piece - stream.avail_out;
    if (result == Z_BUF_ERROR && in_done < compressed.size() && out_done < out.size()) {
      result = Z_OK;
    }
  }
  const bool done = result == Z_STREAM_END;
  inflateEnd(&stream);
  if (!done && out_done == out.size() && in_done < compressed.size()) {
    return file.Error(block,
                      absl::StrCat("inflates to more than the ", out.size(), " bytes it declares"));
  }
  if (!done) {
    return file.Error(block, absl::StrCat("its deflate stream is corrupt or truncated (zlib ",
                                          result, " after ", out_done, " bytes)"));
  }
  if (out_done != out.size()) {
    return file.Error(block, absl::StrCat("inflates to ", out_done, " bytes, not the ", out.size(),
                                          " it declares"));
  }
  return absl::OkStatus();
}

std::string Untranspose(const std::string& in, uint64_t columns) {
  const uint64_t rows = in.size() / columns;
  // Not even one row (a zip parameter beyond the length): nothing is transposed, and the
  // columns must not be walked, however many the file claims.
  if (rows == 0) return in;
  std::string out(in.size(), '\0');
  for (uint64_t c = 0; c < columns; ++c) {
    const char* column = in.data() + c * rows;
    for (uint64_t r = 0; r < rows; ++r) out[r * columns + c] = column[r];
  }
  const uint64_t done = rows * columns;
  out.replace(done, in.size() - done, in, done, in.size() - done);
  return out;
}

absl::Status AppendDz(const FileView& file, const Block& block, uint64_t max_bytes,
                      std::string& out) {
  if (absl::Status size = file.RequireData(block, kDzHeaderBytes); !size.ok()) return size;
  const absl::string_view data = block.data;
  if (data.substr(0, 2) != "DT") {
    return file.Error(block, absl::StrCat("compresses a ##", data.substr(0, 2), " block; only ",
                                          "##DT is supported here"));
  }
  const int zip_type = static_cast<uint8_t>(data[2]);
  const uint64_t columns = LoadLe(data, 4, 4);
  const uint64_t original = LoadLe(data, 8, 8);
  const uint64_t compressed = LoadLe(data, 16, 8);
  if (zip_type > 1) return file.Error(block, absl::StrCat("unknown zip type ", zip_type));
  if (zip_type == 1 && columns == 0) {
    return file.Error(block, "transposition with a zip parameter of 0 columns");
  }
  if (compressed > data.size() - kDzHeaderBytes) {
    return file.Error(
        block, absl::StrCat("truncated: it declares ", compressed, " compressed bytes, holds ",
                            data.size() - kDzHeaderBytes));
  }
  if (original > compressed * kDeflateMaxRatio + kDeflateSlack) {
    return file.Error(block, absl::StrCat("declares ", original, " bytes from ", compressed,
                                          " compressed ones, more than deflate can make"));
  }
  if (original > max_bytes - out.size()) {
    return TooLarge(file, block, out.size() + original, max_bytes);
  }
  std::string inflated(original, '\0');
  if (absl::Status status = Inflate(file, block, data.substr(kDzHeaderBytes, compressed), inflated);
      !status.ok()) {
    return status;
  }
  out += zip_type == 1 ? Untranspose(inflated, columns) : inflated;
  return absl::OkStatus();
}

absl::Status AppendBlock(const FileView& file, const Block& block, uint64_t max_bytes,
                         std::string& out) {
  if (block.id == "##DZ") return AppendDz(file, block, max_bytes, out);
  if (block.data.size() > max_bytes - out.size()) {
    return TooLarge(file, block, out.size() + block.data.size(), max_bytes);
  }
  out.append(block.data.data(), block.data.size());
  return absl::OkStatus();
}

absl::Status AppendList(const FileView& file, const Block& from, size_t k, uint64_t max_bytes,
                        std::string& out) {
  absl::StatusOr<std::vector<Block>> lists = file.Chain(from, k, 0, {"##DL"}, "data list");
  if (!lists.ok()) return lists.status();
  for (const Block& list : *lists) {
    if (absl::Status size = file.RequireData(list, 8); !size.ok()) return size;
    const uint64_t count = LoadLe(list.data, 4, 4);
    if (list.links.empty() || count != list.links.size() - 1) {
      return file.Error(list,
                        absl::StrCat("declares ", count, " data blocks but has ", list.links.size(),
                                     " links (the next list's and ", "one a block)"));
    }
    for (size_t i = 1; i <= count; ++i) {
      if (list.link(i) == 0) continue;
      absl::StatusOr<Block> block = file.Follow(list, i, {"##DT", "##DZ"}, "data block");
      if (!block.ok()) return block.status();
      if (absl::Status status = AppendBlock(file, *block, max_bytes, out); !status.ok()) {
        return status;
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::string> ReadGroupData(const FileView& file, const Block& group, size_t k,
                                          uint64_t max_bytes) {
  std::string out;
  if (group.link(k) == 0) return out;
  absl::StatusOr<Block> block =
      file.Follow(group, k, {"##DT", "##DZ", "##DL", "##HL"}, "group's data");
  if (!block.ok()) return block.status();
  absl::Status status;
  if (block->id == "##DL") {
    status = AppendList(file, group, k, max_bytes, out);
  } else if (block->id == "##HL") {
    status = AppendList(file, *block, 0, max_bytes, out);
  } else {
    status = AppendBlock(file, *block, max_bytes, out);
  }
  if (!status.ok()) return status;
  return out;
}

}  // namespace wasserwarp::mdf4
