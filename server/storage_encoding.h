// The byte encodings the session database stores: a session's settings as a serialized
// wasserwarp.v1.Session, a run's channel names and parameters as length-prefixed strings, its
// samples as little-endian IEEE doubles whatever the machine's byte order, and their checksum.

#ifndef WASSERWARP_SERVER_STORAGE_ENCODING_H_
#define WASSERWARP_SERVER_STORAGE_ENCODING_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "session_store.h"
#include "validation_record.h"
#include "wasserwarp/series.h"

namespace wasserwarp::service {

// Default parameters, labels and idle TTL as a serialized wasserwarp.v1.Session; std::nullopt
// for bytes that are not one.
std::string SettingsBytes(const SessionSettings& settings);
std::optional<SessionSettings> SettingsFromBytes(std::string_view bytes);

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

// A 64-bit checksum of a run's samples (count, channels, times and values as
// IEEE bit patterns), stored with each run and checked on loading. It finds
// damage, not deliberate tampering.
uint64_t RunChecksum(const Series& series);

// The runs of a validation, in order: each as EncodeStrings of one string holding its role
// (the API's number, one byte), its checksum (8 bytes, little-endian) and its series id.
std::string EncodeValidatedRuns(const std::vector<ValidatedRun>& runs);
// std::nullopt for bytes that are not such a list.
std::optional<std::vector<ValidatedRun>> DecodeValidatedRuns(std::string_view bytes);

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_STORAGE_ENCODING_H_
