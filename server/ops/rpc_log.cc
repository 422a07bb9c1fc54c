#include "ops/rpc_log.h"

#include "absl/status/status.h"
#include "ops/deadline_status.h"
#include "spdlog/spdlog.h"
#include "wasserwarp/user_text.h"

namespace wasserwarp::service {
namespace {

constexpr size_t kMaxErrorBytes = 1024;

}  // namespace

RpcLog::RpcLog(const grpc::ServerContextBase* context, std::string_view method)
    : method_(method),
      peer_(context->peer()),
      start_(absl::Now()),
      deadline_(absl::FromChrono(context->deadline())) {}

void RpcLog::Done(const grpc::Status& handed_status) const {
  const grpc::Status status = StatusSeenByClient(handed_status, start_, deadline_);
  const std::string code =
      absl::StatusCodeToString(static_cast<absl::StatusCode>(status.error_code()));
  const double seconds = absl::ToDoubleSeconds(absl::Now() - start_);
  // The principal and resource come from the caller's credentials and request: quoted like all
  // user text. An error message is longer than a name, and quotes user text itself.
  const std::string principal = QuotedText(principal_);
  const std::string resource = resource_.empty() ? "-" : QuotedText(resource_);
  if (status.ok()) {
    spdlog::info(
        "rpc {} peer={} principal={} resource={} status={} duration={:.3f}s received={}B "
        "sent={}B",
        method_, peer_, principal, resource, code, seconds, received_, sent_);
  } else {
    spdlog::info(
        "rpc {} peer={} principal={} resource={} status={} duration={:.3f}s received={}B "
        "sent={}B error={}",
        method_, peer_, principal, resource, code, seconds, received_, sent_,
        QuotedText(status.error_message(), kMaxErrorBytes));
  }
}

}  // namespace wasserwarp::service
