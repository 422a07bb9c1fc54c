// The resource an RPC concerns, for its log line (ops/rpc_log.h): read from the request's and
// response's resource-name fields by their AIP names, so that a new RPC is named without code.

#ifndef WASSERWARP_SERVER_RPC_RESOURCE_OF_CALL_H_
#define WASSERWARP_SERVER_RPC_RESOURCE_OF_CALL_H_

#include <google/protobuf/message.h>

#include <string>

namespace wasserwarp::service {

// The response's `validation` or `session` name (a resource the call created or returned),
// else the request's `name`, `parent` or `session`, else its `request.session`; "" when none.
std::string ResourceOfCall(const google::protobuf::Message& request,
                           const google::protobuf::Message* response);

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_RPC_RESOURCE_OF_CALL_H_
