// The two ways an end-to-end test talks to a real server: the C++ client library, and a raw
// stub for requests the library would never send.

#ifndef WASSERWARP_TESTS_E2E_CLIENTS_H_
#define WASSERWARP_TESTS_E2E_CLIENTS_H_

#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "validation_client.h"
#include "wasserwarp/v1/validation.grpc.pb.h"

namespace wasserwarp::e2e {

// Both connected to `address`; a fatal test failure when the library cannot connect.
inline void ConnectClients(const std::string& address,
                           std::unique_ptr<client::ValidationClient>& client,
                           std::unique_ptr<v1::ValidationService::Stub>& stub) {
  absl::StatusOr<std::unique_ptr<client::ValidationClient>> connected =
      client::ValidationClient::Connect(address);
  ASSERT_TRUE(connected.ok()) << connected.status();
  client = *std::move(connected);
  stub = v1::ValidationService::NewStub(
      grpc::CreateChannel(address, grpc::InsecureChannelCredentials()));
}

}  // namespace wasserwarp::e2e

#endif  // WASSERWARP_TESTS_E2E_CLIENTS_H_
