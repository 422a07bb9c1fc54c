// A unary call by method path, for services the tests have no stub of (grpc.health.v1): the
// request and response as their serialized bytes.

#ifndef WASSERWARP_TESTS_GENERIC_CALL_H_
#define WASSERWARP_TESTS_GENERIC_CALL_H_

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include <future>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace wasserwarp::test_support {

inline grpc::Status CallGeneric(const std::shared_ptr<grpc::Channel>& channel,
                                const std::string& method, const std::string& request,
                                std::string& response) {
  grpc::GenericStub stub(channel);
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(10)));
  grpc::Slice slice(request);
  const grpc::ByteBuffer request_buffer(&slice, 1);
  grpc::ByteBuffer response_buffer;
  std::promise<grpc::Status> done;
  stub.UnaryCall(&context, method, grpc::StubOptions(), &request_buffer, &response_buffer,
                 [&](grpc::Status status) { done.set_value(std::move(status)); });
  const grpc::Status status = done.get_future().get();
  std::vector<grpc::Slice> slices;
  response.clear();
  if (status.ok() && response_buffer.Dump(&slices).ok()) {
    for (const grpc::Slice& part : slices) {
      response.append(reinterpret_cast<const char*>(part.begin()), part.size());
    }
  }
  return status;
}

// grpc.health.v1.HealthCheckResponse{status: SERVING} and {status: NOT_SERVING} (field 1).
inline const std::string kServing("\x08\x01", 2);
inline const std::string kNotServing("\x08\x02", 2);

}  // namespace wasserwarp::test_support

#endif  // WASSERWARP_TESTS_GENERIC_CALL_H_
