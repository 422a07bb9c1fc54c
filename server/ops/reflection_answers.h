// The answer to one grpc.reflection.v1 request, from the descriptors compiled into the binary
// (the generated pool): files with everything they import, extension numbers, the services the
// server runs, or NOT_FOUND.

#ifndef WASSERWARP_SERVER_OPS_REFLECTION_ANSWERS_H_
#define WASSERWARP_SERVER_OPS_REFLECTION_ANSWERS_H_

#include <string>
#include <vector>

#include "grpc/reflection/v1/reflection.pb.h"

namespace wasserwarp::service {

// `services` are the fully qualified names list_services answers with.
grpc::reflection::v1::ServerReflectionResponse AnswerReflection(
    const grpc::reflection::v1::ServerReflectionRequest& request,
    const std::vector<std::string>& services);

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_OPS_REFLECTION_ANSWERS_H_
