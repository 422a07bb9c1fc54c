#include "ops/health_descriptors.h"

#include "grpc/health/v1/health.pb.h"

namespace wasserwarp::service {

const google::protobuf::FileDescriptor* HealthProtoFile() {
  return grpc::health::v1::HealthCheckRequest::descriptor()->file();
}

}  // namespace wasserwarp::service
