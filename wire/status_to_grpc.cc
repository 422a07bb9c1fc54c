#include "wire/status_to_grpc.h"

#include <string>

#include "absl/strings/cord.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/any.pb.h"
#include "google/rpc/error_details.pb.h"
#include "google/rpc/status.pb.h"
#include "wasserwarp/field_error.h"

namespace wasserwarp::wire {
namespace {

constexpr absl::string_view kTypeUrlPrefix = "type.googleapis.com/";

// A google.rpc detail as an absl payload, keyed by its Any type URL: ToGrpcStatus packs it
// back unchanged.
absl::Status WithDetail(absl::Status status, const google::protobuf::Message& detail) {
  if (status.ok()) return status;
  status.SetPayload(absl::StrCat(kTypeUrlPrefix, detail.GetDescriptor()->full_name()),
                    absl::Cord(detail.SerializeAsString()));
  return status;
}

}  // namespace

grpc::Status ToGrpcStatus(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  const std::string message(status.message());
  google::rpc::Status rich;
  rich.set_code(static_cast<int>(status.code()));
  rich.set_message(message);
  if (const std::string field = ErrorField(status); !field.empty()) {
    google::rpc::BadRequest bad_request;
    google::rpc::BadRequest::FieldViolation* violation = bad_request.add_field_violations();
    violation->set_field(field);
    violation->set_description(message);
    rich.add_details()->PackFrom(bad_request);
  }
  if (const std::string limit = ErrorLimit(status); !limit.empty()) {
    google::rpc::QuotaFailure quota;
    google::rpc::QuotaFailure::Violation* violation = quota.add_violations();
    violation->set_subject(limit);
    violation->set_description(message);
    rich.add_details()->PackFrom(quota);
  }
  status.ForEachPayload([&](absl::string_view url, const absl::Cord& payload) {
    if (!absl::StartsWith(url, kTypeUrlPrefix)) return;
    google::protobuf::Any* detail = rich.add_details();
    detail->set_type_url(std::string(url));
    detail->set_value(std::string(payload));
  });
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()), message,
                      rich.SerializeAsString());
}

absl::Status WithPreconditionFailure(absl::Status status, absl::string_view type,
                                     absl::string_view subject) {
  google::rpc::PreconditionFailure failure;
  google::rpc::PreconditionFailure::Violation* violation = failure.add_violations();
  violation->set_type(std::string(type));
  violation->set_subject(std::string(subject));
  violation->set_description(std::string(status.message()));
  return WithDetail(std::move(status), failure);
}

absl::Status WithRetryDelay(absl::Status status, absl::Duration delay) {
  google::rpc::RetryInfo retry;
  const int64_t nanos = absl::ToInt64Nanoseconds(delay);
  retry.mutable_retry_delay()->set_seconds(nanos / 1'000'000'000);
  retry.mutable_retry_delay()->set_nanos(static_cast<int32_t>(nanos % 1'000'000'000));
  return WithDetail(std::move(status), retry);
}

absl::Status WithResourceInfo(absl::Status status, absl::string_view resource_type,
                              absl::string_view resource_name) {
  google::rpc::ResourceInfo info;
  info.set_resource_type(std::string(resource_type));
  info.set_resource_name(std::string(resource_name));
  info.set_description(std::string(status.message()));
  return WithDetail(std::move(status), info);
}

}  // namespace wasserwarp::wire
