// grpc.reflection.v1.ServerReflection, which Debian's gRPC 1.51 lacks (it serves v1alpha
// only) and which current clients such as grpcurl and buf curl ask first. Answers come from
// reflection_answers.h; list_services names every service the server registered, the health
// service and both reflection versions included.
//
// builder.SetOption(std::make_unique<ReflectionOption>(true)) serves it from that builder's
// server, beside gRPC's v1alpha (whose plugin, once linked, every builder of the process
// gets); ReflectionOption(false) (--reflection=off) takes that one out again. As a plugin, v1
// sees the server's own list of services, which no other public interface shows.

#ifndef WASSERWARP_SERVER_OPS_REFLECTION_SERVICE_H_
#define WASSERWARP_SERVER_OPS_REFLECTION_SERVICE_H_

#include <grpcpp/impl/server_builder_option.h>

#include <memory>
#include <vector>

namespace wasserwarp::service {

class ReflectionOption final : public grpc::ServerBuilderOption {
 public:
  explicit ReflectionOption(bool serve) : serve_(serve) {}
  void UpdateArguments(grpc::ChannelArguments* /*args*/) override {}
  void UpdatePlugins(std::vector<std::unique_ptr<grpc::ServerBuilderPlugin>>* plugins) override;

 private:
  const bool serve_;
};

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_OPS_REFLECTION_SERVICE_H_
