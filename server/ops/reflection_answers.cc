#include "ops/reflection_answers.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>
#include <grpcpp/support/status.h>

#include <cstdint>
#include <deque>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

namespace wasserwarp::service {
namespace {

namespace reflection = grpc::reflection::v1;
using google::protobuf::Descriptor;
using google::protobuf::DescriptorPool;
using google::protobuf::FieldDescriptor;
using google::protobuf::FileDescriptor;

void SetError(grpc::StatusCode code, std::string message,
              reflection::ServerReflectionResponse& response) {
  reflection::ErrorResponse* error = response.mutable_error_response();
  error->set_error_code(static_cast<int32_t>(code));
  error->set_error_message(std::move(message));
}

// `file` first, then every file it imports, directly or not, each once: a client needs them all
// to build the file's descriptors.
void SetFileWithDependencies(const FileDescriptor* file,
                             reflection::ServerReflectionResponse& response) {
  reflection::FileDescriptorResponse* files = response.mutable_file_descriptor_response();
  std::set<const FileDescriptor*> seen = {file};
  std::deque<const FileDescriptor*> pending = {file};
  while (!pending.empty()) {
    const FileDescriptor* next = pending.front();
    pending.pop_front();
    google::protobuf::FileDescriptorProto proto;
    next->CopyTo(&proto);
    proto.SerializeToString(files->add_file_descriptor_proto());
    for (int i = 0; i < next->dependency_count(); ++i) {
      if (seen.insert(next->dependency(i)).second) pending.push_back(next->dependency(i));
    }
  }
}

void SetFileOrNotFound(const FileDescriptor* file, const std::string& what,
                       reflection::ServerReflectionResponse& response) {
  if (file == nullptr) {
    SetError(grpc::StatusCode::NOT_FOUND, absl::StrCat(what, " not found"), response);
  } else {
    SetFileWithDependencies(file, response);
  }
}

void AnswerFileContainingExtension(const reflection::ExtensionRequest& request,
                                   reflection::ServerReflectionResponse& response) {
  const DescriptorPool* pool = DescriptorPool::generated_pool();
  const Descriptor* type = pool->FindMessageTypeByName(request.containing_type());
  if (type == nullptr) {
    SetError(grpc::StatusCode::NOT_FOUND,
             absl::StrCat("message type ", request.containing_type(), " not found"), response);
    return;
  }
  const FieldDescriptor* extension = pool->FindExtensionByNumber(type, request.extension_number());
  SetFileOrNotFound(
      extension != nullptr ? extension->file() : nullptr,
      absl::StrCat("extension ", request.extension_number(), " of ", request.containing_type()),
      response);
}

void AnswerAllExtensionNumbers(const std::string& type_name,
                               reflection::ServerReflectionResponse& response) {
  const DescriptorPool* pool = DescriptorPool::generated_pool();
  const Descriptor* type = pool->FindMessageTypeByName(type_name);
  if (type == nullptr) {
    SetError(grpc::StatusCode::NOT_FOUND, absl::StrCat("message type ", type_name, " not found"),
             response);
    return;
  }
  std::vector<const FieldDescriptor*> extensions;
  pool->FindAllExtensions(type, &extensions);
  reflection::ExtensionNumberResponse* numbers = response.mutable_all_extension_numbers_response();
  numbers->set_base_type_name(type->full_name());
  for (const FieldDescriptor* extension : extensions) {
    numbers->add_extension_number(extension->number());
  }
}

}  // namespace

reflection::ServerReflectionResponse AnswerReflection(
    const reflection::ServerReflectionRequest& request, const std::vector<std::string>& services) {
  reflection::ServerReflectionResponse response;
  response.set_valid_host(request.host());
  *response.mutable_original_request() = request;
  const DescriptorPool* pool = DescriptorPool::generated_pool();
  switch (request.message_request_case()) {
    case reflection::ServerReflectionRequest::kFileByFilename:
      SetFileOrNotFound(pool->FindFileByName(request.file_by_filename()),
                        absl::StrCat("file ", request.file_by_filename()), response);
      break;
    case reflection::ServerReflectionRequest::kFileContainingSymbol:
      SetFileOrNotFound(pool->FindFileContainingSymbol(request.file_containing_symbol()),
                        absl::StrCat("symbol ", request.file_containing_symbol()), response);
      break;
    case reflection::ServerReflectionRequest::kFileContainingExtension:
      AnswerFileContainingExtension(request.file_containing_extension(), response);
      break;
    case reflection::ServerReflectionRequest::kAllExtensionNumbersOfType:
      AnswerAllExtensionNumbers(request.all_extension_numbers_of_type(), response);
      break;
    case reflection::ServerReflectionRequest::kListServices:
      for (const std::string& name : services) {
        response.mutable_list_services_response()->add_service()->set_name(name);
      }
      break;
    case reflection::ServerReflectionRequest::MESSAGE_REQUEST_NOT_SET:
      SetError(grpc::StatusCode::INVALID_ARGUMENT, "the request asks for nothing", response);
      break;
  }
  return response;
}

}  // namespace wasserwarp::service
