// The parts of a validation record that the validation stores keep as bytes.

#ifndef WASSERWARP_SERVER_VALIDATIONS_RECORD_ENCODING_H_
#define WASSERWARP_SERVER_VALIDATIONS_RECORD_ENCODING_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "validations/validation_record.h"

namespace wasserwarp::service {

// The runs of a validation, in order: each as EncodeStrings of one string holding its role
// (the API's number, one byte), its checksum (8 bytes, little-endian) and its series id.
std::string EncodeValidatedRuns(const std::vector<ValidatedRun>& runs);
// std::nullopt for bytes that are not such a list.
std::optional<std::vector<ValidatedRun>> DecodeValidatedRuns(std::string_view bytes);

// Labels in key order, as EncodeStrings of key, value, key, value, ...; "" for none.
std::string EncodeLabels(const std::map<std::string, std::string>& labels);
// std::nullopt for bytes that are not such a list.
std::optional<std::map<std::string, std::string>> DecodeLabels(std::string_view bytes);

// The replicas that lost a validation (ValidationRecord::lost_replicas), as the stores' claims
// append them: each name followed by a newline.
std::vector<std::string> DecodeLostReplicas(std::string_view text);

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_VALIDATIONS_RECORD_ENCODING_H_
