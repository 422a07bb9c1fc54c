#include "wasserwarp/field_error.h"

#include <string>

#include "absl/strings/cord.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace wasserwarp {
namespace {

std::string Payload(const absl::Status& status, absl::string_view url) {
  absl::optional<absl::Cord> payload = status.GetPayload(url);
  return payload.has_value() ? std::string(*payload) : std::string();
}

// A copy of `status` with `message`, every payload kept.
absl::Status WithMessage(const absl::Status& status, absl::string_view message) {
  absl::Status out(status.code(), message);
  status.ForEachPayload(
      [&](absl::string_view url, const absl::Cord& payload) { out.SetPayload(url, payload); });
  return out;
}

}  // namespace

absl::Status FieldError(absl::StatusCode code, absl::string_view field, absl::string_view detail) {
  return WithField(absl::Status(code, absl::StrCat(field, ": ", detail)), field);
}

absl::Status LimitExceededError(absl::string_view field, absl::string_view limit,
                                absl::string_view detail) {
  return WithLimit(FieldError(absl::StatusCode::kResourceExhausted, field, detail), limit);
}

absl::Status WithField(absl::Status status, absl::string_view field) {
  if (!status.ok()) status.SetPayload(kFieldPayloadUrl, absl::Cord(std::string(field)));
  return status;
}

absl::Status WithLimit(absl::Status status, absl::string_view limit) {
  if (!status.ok()) status.SetPayload(kLimitPayloadUrl, absl::Cord(std::string(limit)));
  return status;
}

std::string ErrorField(const absl::Status& status) { return Payload(status, kFieldPayloadUrl); }

std::string ErrorLimit(const absl::Status& status) { return Payload(status, kLimitPayloadUrl); }

absl::Status RenameField(const absl::Status& status, absl::string_view name) {
  const std::string field = ErrorField(status);
  if (field.empty()) return status;
  const std::string prefix = absl::StrCat(field, ": ");
  absl::string_view detail = status.message();
  if (absl::StartsWith(detail, prefix)) detail.remove_prefix(prefix.size());
  return WithField(WithMessage(status, absl::StrCat(name, ": ", detail)), name);
}

absl::Status PrefixField(const absl::Status& status, absl::string_view prefix) {
  if (status.ok()) return status;
  const std::string field = ErrorField(status);
  if (field.empty()) return WithField(status, prefix);
  const bool indexed = absl::StartsWith(field, "[");
  return RenameField(status, absl::StrCat(prefix, indexed ? "" : ".", field));
}

}  // namespace wasserwarp
