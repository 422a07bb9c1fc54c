#include "ops/reflection_service.h"

#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/impl/server_builder_plugin.h>
#include <grpcpp/impl/server_initializer.h>
#include <grpcpp/support/server_callback.h>

#include <algorithm>
#include <string>

#include "grpc/reflection/v1/reflection.grpc.pb.h"
#include "ops/reflection_answers.h"

namespace wasserwarp::service {
namespace {

namespace reflection = grpc::reflection::v1;

// One stream: each request read is answered before the next is read, so that at most one
// operation is in flight and the reactor needs no lock.
class ReflectionReactor final
    : public grpc::ServerBidiReactor<reflection::ServerReflectionRequest,
                                     reflection::ServerReflectionResponse> {
 public:
  explicit ReflectionReactor(const std::vector<std::string>& services) : services_(services) {
    StartRead(&request_);
  }

  void OnReadDone(bool ok) override {
    // The client half-closed, or the call is gone.
    if (!ok) {
      Finish(grpc::Status::OK);
      return;
    }
    response_ = AnswerReflection(request_, services_);
    StartWrite(&response_);
  }

  void OnWriteDone(bool ok) override {
    if (!ok) {
      Finish(grpc::Status(grpc::StatusCode::CANCELLED, "the stream broke"));
      return;
    }
    StartRead(&request_);
  }

  void OnDone() override { delete this; }

 private:
  const std::vector<std::string>& services_;
  reflection::ServerReflectionRequest request_;
  reflection::ServerReflectionResponse response_;
};

class ReflectionV1Service final : public reflection::ServerReflection::CallbackService {
 public:
  // The server's list, filled while it starts, before any call can come, and not changed after.
  void SetServices(const std::vector<std::string>* services) { services_ = services; }

  grpc::ServerBidiReactor<reflection::ServerReflectionRequest,
                          reflection::ServerReflectionResponse>*
  ServerReflectionInfo(grpc::CallbackServerContext* /*context*/) override {
    return new ReflectionReactor(*services_);
  }

 private:
  const std::vector<std::string>* services_ = nullptr;
};

class ReflectionV1Plugin final : public grpc::ServerBuilderPlugin {
 public:
  std::string name() override { return "wasserwarp_reflection_v1"; }
  void InitServer(grpc::ServerInitializer* initializer) override {
    initializer->RegisterService(service_);
  }
  void Finish(grpc::ServerInitializer* initializer) override {
    service_->SetServices(initializer->GetServiceList());
  }
  void ChangeArguments(const std::string& /*name*/, void* /*value*/) override {}

 private:
  // Shared with the server, which keeps it for as long as it runs.
  std::shared_ptr<ReflectionV1Service> service_ = std::make_shared<ReflectionV1Service>();
};

}  // namespace

void ReflectionOption::UpdatePlugins(
    std::vector<std::unique_ptr<grpc::ServerBuilderPlugin>>* plugins) {
  if (serve_) {
    plugins->push_back(std::make_unique<ReflectionV1Plugin>());
    return;
  }
  const std::string v1alpha = grpc::reflection::ProtoServerReflectionPlugin().name();
  plugins->erase(std::remove_if(plugins->begin(), plugins->end(),
                                [&](const std::unique_ptr<grpc::ServerBuilderPlugin>& plugin) {
                                  return plugin->name() == v1alpha;
                                }),
                 plugins->end());
}

}  // namespace wasserwarp::service
