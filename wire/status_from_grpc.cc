#include "wire/status_from_grpc.h"

#include <string>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "google/rpc/error_details.pb.h"
#include "google/rpc/status.pb.h"
#include "wasserwarp/field_error.h"

namespace wasserwarp::wire {
namespace {

// The service's details as the payloads they were made from (wire/status_to_grpc.h): the field of
// a BadRequest and the limit of a QuotaFailure as wasserwarp/field_error.h's, every detail
// under its Any type URL.
absl::Status WithDetails(absl::Status status, const std::string& details) {
  google::rpc::Status rich;
  if (details.empty() || !rich.ParseFromString(details)) return status;
  for (const google::protobuf::Any& detail : rich.details()) {
    status.SetPayload(detail.type_url(), absl::Cord(detail.value()));
    google::rpc::BadRequest bad_request;
    if (detail.UnpackTo(&bad_request) && bad_request.field_violations_size() > 0) {
      status = WithField(std::move(status), bad_request.field_violations(0).field());
    }
    google::rpc::QuotaFailure quota;
    if (detail.UnpackTo(&quota) && quota.violations_size() > 0) {
      status = WithLimit(std::move(status), quota.violations(0).subject());
    }
  }
  return status;
}

}  // namespace

absl::Status FromGrpcStatus(const grpc::Status& status, absl::string_view target) {
  if (status.ok()) return absl::OkStatus();
  // gRPC's and Abseil's codes are the same canonical codes, number for number.
  const auto code = static_cast<absl::StatusCode>(status.error_code());
  if (code == absl::StatusCode::kUnavailable) {
    return WithDetails(absl::UnavailableError(absl::StrCat("cannot reach server ", target, ": ",
                                                           status.error_message())),
                       status.error_details());
  }
  return WithDetails(absl::Status(code, status.error_message()), status.error_details());
}

}  // namespace wasserwarp::wire
