// The byte encodings the stores write, with no knowledge of what they hold: strings as
// length-prefixed lists, parameters as such lists, samples as little-endian IEEE doubles whatever
// the machine's byte order. The checksum of a run's samples is the core's
// (wasserwarp/run_checksum.h), since the CLI computes it too.

#ifndef WASSERWARP_SERVER_STORAGE_BYTE_ENCODING_H_
#define WASSERWARP_SERVER_STORAGE_BYTE_ENCODING_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wasserwarp::service {

// Each string as its length (4 bytes, little-endian) and its bytes.
std::string EncodeStrings(const std::vector<std::string>& strings);
// std::nullopt when a length runs past the end.
std::optional<std::vector<std::string>> DecodeStrings(std::string_view bytes);

// A run's parameters in name order, each as EncodeStrings of one string holding its value (8
// bytes, little-endian IEEE) and its name; "" for none.
std::string EncodeParameters(const std::map<std::string, double>& parameters);
// std::nullopt for bytes that are not such a list, names out of order included: the encoding
// is deterministic, so another order is damage.
std::optional<std::map<std::string, double>> DecodeParameters(std::string_view bytes);

// `count` doubles as little-endian bytes: the memory itself on a
// little-endian machine, a copy in `scratch` elsewhere.
std::string_view DoubleBytes(const double* values, size_t count, std::string& scratch);
// Appends the doubles of `bytes` (a multiple of 8) to `out`.
void AppendDoubles(std::string_view bytes, std::vector<double>& out);

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_STORAGE_BYTE_ENCODING_H_
