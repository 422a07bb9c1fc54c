// grpc.reflection.v1.ServerReflection, which Debian's gRPC 1.51 lacks (it serves v1alpha
// only) and which current clients such as grpcurl and buf curl ask first. Answers come from
// reflection_answers.h; list_services names every service the server registered, the health
// service and both reflection versions included.
//
// builder.SetOption(std::make_unique<ReflectionV1Option>()) serves it from that builder's
// server: as a plugin, it sees the server's own list of services, which no other public
// interface shows.

#ifndef WASSERWARP_SERVER_OPS_REFLECTION_SERVICE_H_
#define WASSERWARP_SERVER_OPS_REFLECTION_SERVICE_H_

#include <grpcpp/impl/server_builder_option.h>

#include <memory>
#include <vector>

namespace wasserwarp::service {

class ReflectionV1Option final : public grpc::ServerBuilderOption {
 public:
  void UpdateArguments(grpc::ChannelArguments* /*args*/) override {}
  void UpdatePlugins(std::vector<std::unique_ptr<grpc::ServerBuilderPlugin>>* plugins) override;
};

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_OPS_REFLECTION_SERVICE_H_
