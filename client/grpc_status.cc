#include "grpc_status.h"

#include "absl/strings/str_cat.h"

namespace wasserwarp::client {

absl::Status FromGrpcStatus(const grpc::Status& status, absl::string_view target) {
  if (status.ok()) return absl::OkStatus();
  // gRPC's and Abseil's codes are the same canonical codes, number for number.
  const auto code = static_cast<absl::StatusCode>(status.error_code());
  if (code == absl::StatusCode::kUnavailable) {
    return absl::UnavailableError(
        absl::StrCat("cannot reach server ", target, ": ", status.error_message()));
  }
  return absl::Status(code, status.error_message());
}

}  // namespace wasserwarp::client
