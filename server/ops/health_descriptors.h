// The descriptors of the health protocol (proto/grpc/health/v1/health.proto) in the generated
// pool. gRPC's built-in health service encodes its messages without protobuf's C++ runtime, so
// nothing would refer to the generated code, the linker would drop it, and reflection would
// list grpc.health.v1.Health without being able to describe it.

#ifndef WASSERWARP_SERVER_OPS_HEALTH_DESCRIPTORS_H_
#define WASSERWARP_SERVER_OPS_HEALTH_DESCRIPTORS_H_

#include <google/protobuf/descriptor.h>

namespace wasserwarp::service {

// The health protocol's file; calling this is what keeps it linked.
const google::protobuf::FileDescriptor* HealthProtoFile();

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_OPS_HEALTH_DESCRIPTORS_H_
