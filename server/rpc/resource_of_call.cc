#include "rpc/resource_of_call.h"

#include <google/protobuf/descriptor.h>

namespace wasserwarp::service {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;

// The singular string field `field` of `message`; "" when there is none.
std::string StringField(const Message& message, const char* field) {
  const FieldDescriptor* descriptor = message.GetDescriptor()->FindFieldByName(field);
  if (descriptor == nullptr || descriptor->is_repeated() ||
      descriptor->type() != FieldDescriptor::TYPE_STRING) {
    return "";
  }
  return message.GetReflection()->GetString(message, descriptor);
}

// The singular message field `field` of `message` when it is set; nullptr otherwise.
const Message* MessageField(const Message& message, const char* field) {
  const FieldDescriptor* descriptor = message.GetDescriptor()->FindFieldByName(field);
  if (descriptor == nullptr || descriptor->is_repeated() ||
      descriptor->type() != FieldDescriptor::TYPE_MESSAGE ||
      !message.GetReflection()->HasField(message, descriptor)) {
    return nullptr;
  }
  return &message.GetReflection()->GetMessage(message, descriptor);
}

}  // namespace

std::string ResourceOfCall(const Message& request, const Message* response) {
  if (response != nullptr) {
    for (const char* field : {"validation", "session"}) {
      if (const Message* resource = MessageField(*response, field)) {
        if (std::string name = StringField(*resource, "name"); !name.empty()) return name;
      }
    }
  }
  for (const char* field : {"name", "parent", "session"}) {
    if (std::string name = StringField(request, field); !name.empty()) return name;
  }
  if (const Message* inner = MessageField(request, "request"))
    return StringField(*inner, "session");
  return "";
}

}  // namespace wasserwarp::service
