// Server reflection of the in-process service, in both versions it serves: v1 (ours,
// server/reflection_service.h) and gRPC's v1alpha. Both describe the health service, whose
// descriptors the server links for them. v1's messages have v1alpha's shapes, so one generic
// client asks both.

#include <gmock/gmock.h>
#include <google/protobuf/descriptor.pb.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "grpc/reflection/v1/reflection.pb.h"
#include "server_test_util.h"

namespace wasserwarp::service::testing {
namespace {

using grpc::reflection::v1::ServerReflectionRequest;
using grpc::reflection::v1::ServerReflectionResponse;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::IsSupersetOf;

constexpr char kV1[] = "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo";
constexpr char kV1Alpha[] = "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo";

class ReflectionTest : public ServerTest, public ::testing::WithParamInterface<const char*> {
 protected:
  // `requests` on one stream of the method under test, and a response to each.
  std::vector<ServerReflectionResponse> Ask(const std::vector<ServerReflectionRequest>& requests) {
    grpc::TemplatedGenericStub<ServerReflectionRequest, ServerReflectionResponse> stub(channel_);
    grpc::ClientContext context;
    context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(10)));
    grpc::CompletionQueue queue;
    auto stream = stub.PrepareCall(&context, GetParam(), &queue);
    void* tag = nullptr;
    bool ok = false;
    const auto completed = [&] { return queue.Next(&tag, &ok) && ok; };
    std::vector<ServerReflectionResponse> responses;
    stream->StartCall(&tag);
    EXPECT_TRUE(completed());
    for (const ServerReflectionRequest& request : requests) {
      stream->Write(request, &tag);
      EXPECT_TRUE(completed());
      ServerReflectionResponse response;
      stream->Read(&response, &tag);
      if (!completed()) break;
      responses.push_back(response);
    }
    stream->WritesDone(&tag);
    EXPECT_TRUE(completed());
    grpc::Status status;
    stream->Finish(&status, &tag);
    queue.Next(&tag, &ok);
    EXPECT_TRUE(status.ok()) << status.error_message();
    queue.Shutdown();
    while (queue.Next(&tag, &ok)) {
    }
    EXPECT_EQ(responses.size(), requests.size());
    return responses;
  }

  ServerReflectionResponse AskOne(const ServerReflectionRequest& request) {
    std::vector<ServerReflectionResponse> responses = Ask({request});
    return responses.empty() ? ServerReflectionResponse() : responses.front();
  }

  static ServerReflectionRequest Symbol(const std::string& symbol) {
    ServerReflectionRequest request;
    request.set_file_containing_symbol(symbol);
    return request;
  }

  // The names of the files of a file_descriptor_response, in its order.
  static std::vector<std::string> FileNames(const ServerReflectionResponse& response) {
    std::vector<std::string> names;
    for (const std::string& bytes : response.file_descriptor_response().file_descriptor_proto()) {
      google::protobuf::FileDescriptorProto file;
      EXPECT_TRUE(file.ParseFromString(bytes));
      names.push_back(file.name());
    }
    return names;
  }
};

TEST_P(ReflectionTest, ListsEveryServiceTheServerRuns) {
  ServerReflectionRequest request;
  request.set_list_services("");
  const ServerReflectionResponse response = AskOne(request);
  std::vector<std::string> names;
  for (const auto& service : response.list_services_response().service()) {
    names.push_back(service.name());
  }
  EXPECT_THAT(names, IsSupersetOf({"wasserwarp.v1.ValidationService", "grpc.health.v1.Health",
                                   "grpc.reflection.v1alpha.ServerReflection",
                                   "grpc.reflection.v1.ServerReflection"}));
}

TEST_P(ReflectionTest, DescribesTheHealthService) {
  const ServerReflectionResponse response = AskOne(Symbol("grpc.health.v1.Health"));
  ASSERT_TRUE(response.has_file_descriptor_response()) << response.error_response().DebugString();
  ASSERT_FALSE(response.file_descriptor_response().file_descriptor_proto().empty());
  google::protobuf::FileDescriptorProto file;
  ASSERT_TRUE(file.ParseFromString(response.file_descriptor_response().file_descriptor_proto(0)));
  EXPECT_EQ(file.name(), "grpc/health/v1/health.proto");
  EXPECT_EQ(file.package(), "grpc.health.v1");
  ASSERT_EQ(file.service_size(), 1);
  EXPECT_EQ(file.service(0).name(), "Health");
  EXPECT_EQ(file.service(0).method_size(), 2);
}

TEST_P(ReflectionTest, FilesComeWithWhatTheyImport) {
  const ServerReflectionResponse response =
      AskOne(Symbol("wasserwarp.v1.ValidationService.Validate"));
  const std::vector<std::string> names = FileNames(response);
  ASSERT_FALSE(names.empty());
  EXPECT_EQ(names.front(), "wasserwarp/v1/validation.proto");
  EXPECT_THAT(names, Contains("google/protobuf/duration.proto"));
  EXPECT_THAT(names, Contains("google/protobuf/timestamp.proto"));
}

TEST_P(ReflectionTest, AnswersEachRequestOfAStreamInOrder) {
  ServerReflectionRequest by_name;
  by_name.set_file_by_filename("grpc/health/v1/health.proto");
  const std::vector<ServerReflectionResponse> responses =
      Ask({by_name, Symbol("no.such.Symbol"), Symbol("wasserwarp.v1.ValidateRequest")});
  ASSERT_EQ(responses.size(), 3u);
  EXPECT_THAT(FileNames(responses[0]), ElementsAre("grpc/health/v1/health.proto"));
  EXPECT_EQ(responses[0].original_request().file_by_filename(), "grpc/health/v1/health.proto");
  ASSERT_TRUE(responses[1].has_error_response());
  EXPECT_EQ(responses[1].error_response().error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_THAT(FileNames(responses[2]), Contains("wasserwarp/v1/validation.proto"));
}

TEST_P(ReflectionTest, ExtensionsOfUnknownTypesAreNotFound) {
  ServerReflectionRequest numbers;
  numbers.set_all_extension_numbers_of_type("no.such.Message");
  ServerReflectionRequest extension;
  extension.mutable_file_containing_extension()->set_containing_type(
      "wasserwarp.v1.ValidateRequest");
  extension.mutable_file_containing_extension()->set_extension_number(1000);
  ServerReflectionRequest known;
  known.set_all_extension_numbers_of_type("wasserwarp.v1.ValidateRequest");
  const std::vector<ServerReflectionResponse> responses = Ask({numbers, extension, known});
  ASSERT_EQ(responses.size(), 3u);
  EXPECT_EQ(responses[0].error_response().error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(responses[1].error_response().error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(responses[2].all_extension_numbers_response().base_type_name(),
            "wasserwarp.v1.ValidateRequest");
  EXPECT_EQ(responses[2].all_extension_numbers_response().extension_number_size(), 0);
}

INSTANTIATE_TEST_SUITE_P(BothVersions, ReflectionTest, ::testing::Values(kV1, kV1Alpha),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           return std::string(info.param == kV1 ? "V1" : "V1Alpha");
                         });

}  // namespace
}  // namespace wasserwarp::service::testing
