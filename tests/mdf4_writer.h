// A minimal MDF 4 writer for the tests of the reader: blocks laid out one after another, links
// given by offset, values put into records bit by bit. It is written from the standard's layouts,
// not from the reader, so that a test checks the reader against a second reading of the standard;
// and it writes whatever it is told, so that the hostile-file tests can build broken files too.

#ifndef WASSERWARP_TESTS_MDF4_WRITER_H_
#define WASSERWARP_TESTS_MDF4_WRITER_H_

#include <zlib.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace wasserwarp::test_support {

// `value` as `bytes` little-endian bytes.
inline std::string Le(uint64_t value, size_t bytes) {
  std::string out(bytes, '\0');
  for (size_t i = 0; i < bytes; ++i) out[i] = static_cast<char>(value >> (8 * i));
  return out;
}
inline std::string LeDouble(double value) {
  uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof(bits));
  return Le(bits, 8);
}

// Puts the low `bit_count` bits of `raw` into `record` at `byte_offset` and `bit_offset`, the
// value's bytes read little or big endian (MDF 4's convention for both: the bytes form one number
// whose bit `bit_offset` is the value's least significant).
inline void PutBits(std::string& record, uint32_t byte_offset, uint32_t bit_offset,
                    uint32_t bit_count, bool big_endian, uint64_t raw) {
  const uint32_t n = (bit_offset + bit_count + 7) / 8;
  for (uint32_t b = 0; b < bit_count; ++b) {
    const uint32_t global = bit_offset + b;
    const uint32_t byte = big_endian ? n - 1 - global / 8 : global / 8;
    const char mask = static_cast<char>(1 << (global % 8));
    char& target = record.at(byte_offset + byte);
    if ((raw >> b) & 1) {
      target = static_cast<char>(target | mask);
    } else {
      target = static_cast<char>(target & ~mask);
    }
  }
}

inline std::string Deflate(const std::string& data) {
  uLongf size = compressBound(data.size());
  std::string out(size, '\0');
  if (compress2(reinterpret_cast<Bytef*>(out.data()), &size,
                reinterpret_cast<const Bytef*>(data.data()), data.size(), 6) != Z_OK) {
    std::abort();  // a test helper: a failing zlib is no case to test
  }
  out.resize(size);
  return out;
}

// The transposition of a DZ block: the first rows x columns bytes column by column.
inline std::string Transpose(const std::string& data, uint64_t columns) {
  const uint64_t rows = data.size() / columns;
  std::string out = data;
  for (uint64_t r = 0; r < rows; ++r) {
    for (uint64_t c = 0; c < columns; ++c) out[c * rows + r] = data[r * columns + c];
  }
  return out;
}

struct Mdf4ChannelSpec {
  std::string name;
  int data_type = 4;  // 0/1 unsigned LE/BE, 2/3 signed LE/BE, 4/5 float LE/BE, 6.. others
  uint32_t byte_offset = 0;
  uint32_t bit_offset = 0;
  uint32_t bit_count = 64;
  int channel_type = 0;  // 2 master, 3 virtual master, 1 VLSD, ...
  int sync_type = 0;     // 1 time
  uint32_t flags = 0;    // bit 1: invalidation bit valid
  uint32_t invalidation_bit = 0;
  uint64_t conversion = 0;  // offset of a CC block
  uint64_t composition = 0;
  std::string unit;
};

struct Mdf4GroupSpec {
  std::string name;
  uint64_t record_id = 0;
  uint64_t cycles = 0;
  uint32_t data_bytes = 0;
  uint32_t invalidation_bytes = 0;
  std::vector<Mdf4ChannelSpec> channels;
};

class Mdf4Writer {
 public:
  explicit Mdf4Writer(uint16_t version = 410) {
    bytes_ = "MDF     4.10    wwtest  " + std::string(4, '\0') + Le(version, 2);
    bytes_.resize(64, '\0');
    header_ = Block("##HD", {0, 0, 0, 0, 0, 0}, std::string(32, '\0'));
  }

  // Appends a block with `links` and `data`; returns its offset (8-byte aligned).
  uint64_t Block(const std::string& id, const std::vector<uint64_t>& links,
                 const std::string& data) {
    bytes_.resize((bytes_.size() + 7) / 8 * 8, '\0');
    const uint64_t offset = bytes_.size();
    bytes_ += id + std::string(4, '\0') + Le(24 + 8 * links.size() + data.size(), 8) +
              Le(links.size(), 8);
    for (const uint64_t link : links) bytes_ += Le(link, 8);
    bytes_ += data;
    return offset;
  }
  void SetLink(uint64_t block, size_t k, uint64_t target) {
    bytes_.replace(block + 24 + 8 * k, 8, Le(target, 8));
  }
  // Overwrites `bytes` bytes at `offset` of the file with `value`, little endian.
  void Patch(uint64_t offset, uint64_t value, size_t bytes) {
    bytes_.replace(offset, bytes, Le(value, bytes));
  }

  uint64_t Text(const std::string& text) {
    return text.empty() ? 0 : Block("##TX", {}, text + std::string(1, '\0'));
  }
  uint64_t Conversion(int type, const std::vector<double>& values,
                      const std::vector<uint64_t>& refs = {}) {
    std::string data = Le(type, 1) + Le(0, 1) + Le(0, 2) + Le(refs.size(), 2) +
                       Le(values.size(), 2) + LeDouble(0) + LeDouble(0);
    for (const double v : values) data += LeDouble(v);
    std::vector<uint64_t> links = {0, 0, 0, 0};
    links.insert(links.end(), refs.begin(), refs.end());
    return Block("##CC", links, data);
  }
  uint64_t Dt(const std::string& records) { return Block("##DT", {}, records); }
  // A DZ block of `records`, transposed over `columns` columns when `columns` is not 0.
  uint64_t Dz(const std::string& records, uint32_t columns = 0) {
    const std::string compressed = Deflate(columns ? Transpose(records, columns) : records);
    return Block("##DZ", {},
                 "DT" + Le(columns ? 1 : 0, 1) + Le(0, 1) + Le(columns, 4) + Le(records.size(), 8) +
                     Le(compressed.size(), 8) + compressed);
  }
  uint64_t Dl(const std::vector<uint64_t>& blocks, uint64_t next = 0) {
    std::vector<uint64_t> links = {next};
    links.insert(links.end(), blocks.begin(), blocks.end());
    std::string data = Le(0, 1) + Le(0, 3) + Le(blocks.size(), 4);
    for (size_t i = 0; i < blocks.size(); ++i) data += Le(0, 8);  // offsets: not read back
    return Block("##DL", links, data);
  }
  uint64_t Hl(uint64_t first_list) {
    return Block("##HL", {first_list}, Le(0, 2) + Le(0, 1) + std::string(5, '\0'));
  }

  // A data group of `groups` with records of `record_id_bytes` ids, its data at `data`; chained
  // after the data groups before it. Returns the DG block's offset.
  uint64_t DataGroup(uint8_t record_id_bytes, const std::vector<Mdf4GroupSpec>& groups,
                     uint64_t data) {
    uint64_t next_group = 0;
    for (auto it = groups.rbegin(); it != groups.rend(); ++it) {
      next_group = ChannelGroup(*it, next_group);
    }
    const uint64_t dg =
        Block("##DG", {0, next_group, data, 0}, Le(record_id_bytes, 1) + std::string(7, '\0'));
    SetLink(last_data_group_ == 0 ? header_ : last_data_group_, 0, dg);
    last_data_group_ = dg;
    return dg;
  }

  const std::string& bytes() const { return bytes_; }

 private:
  uint64_t Channel(const Mdf4ChannelSpec& c, uint64_t next) {
    const uint64_t name = Text(c.name);
    const uint64_t unit = Text(c.unit);
    const std::string data = Le(c.channel_type, 1) + Le(c.sync_type, 1) + Le(c.data_type, 1) +
                             Le(c.bit_offset, 1) + Le(c.byte_offset, 4) + Le(c.bit_count, 4) +
                             Le(c.flags, 4) + Le(c.invalidation_bit, 4) + Le(0, 1) + Le(0, 1) +
                             Le(0, 2) + std::string(48, '\0');
    return Block("##CN", {next, c.composition, name, 0, c.conversion, 0, unit, 0}, data);
  }
  uint64_t ChannelGroup(const Mdf4GroupSpec& g, uint64_t next) {
    uint64_t next_channel = 0;
    for (auto it = g.channels.rbegin(); it != g.channels.rend(); ++it) {
      next_channel = Channel(*it, next_channel);
    }
    const uint64_t name = Text(g.name);
    return Block("##CG", {next, next_channel, name, 0, 0, 0},
                 Le(g.record_id, 8) + Le(g.cycles, 8) + Le(0, 2) + Le(0, 2) + Le(0, 4) +
                     Le(g.data_bytes, 4) + Le(g.invalidation_bytes, 4));
  }

  std::string bytes_;
  uint64_t header_ = 0;
  uint64_t last_data_group_ = 0;
};

}  // namespace wasserwarp::test_support

#endif  // WASSERWARP_TESTS_MDF4_WRITER_H_
