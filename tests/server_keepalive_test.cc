// The keepalive ping policy of the in-process service: a client that pings more often than
// KeepalivePolicy::min_client_ping_interval loses its connection (GOAWAY, too_many_pings) after
// a few such pings, while one that pings at the minimum keeps it.

#include <grpc/grpc.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "server_test_util.h"

namespace wasserwarp::service::testing {
namespace {

// Shorter than the 5 s default, so that the test takes a few seconds.
constexpr absl::Duration kMinPingInterval = absl::Seconds(2);

class KeepaliveTest : public ServerTest {
 protected:
  void SetUp() override {
    ServerConfig config = TestConfig();
    config.keepalive.min_client_ping_interval = kMinPingInterval;
    StartServer(config);
  }

  // A channel that pings every `interval`, with or without calls.
  std::shared_ptr<grpc::Channel> PingingChannel(absl::Duration interval) {
    const int interval_ms = static_cast<int>(absl::ToInt64Milliseconds(interval));
    grpc::ChannelArguments args;
    args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, interval_ms);
    args.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
    // Left to their defaults, the client itself would stop after two pings without data and
    // space them minutes apart.
    args.SetInt(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
    args.SetInt(GRPC_ARG_HTTP2_MIN_SENT_PING_INTERVAL_WITHOUT_DATA_MS, interval_ms);
    // A connection of its own, shared with no other channel of the test.
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    return grpc::CreateCustomChannel(server_->address(), grpc::InsecureChannelCredentials(), args);
  }
};

TEST_F(KeepaliveTest, PingsFasterThanTheMinimumCloseTheConnection) {
  const std::shared_ptr<grpc::Channel> fast = PingingChannel(absl::Seconds(1));
  const std::shared_ptr<grpc::Channel> polite = PingingChannel(kMinPingInterval);
  const absl::Time connected = absl::Now();
  ASSERT_TRUE(fast->WaitForConnected(absl::ToChronoTime(connected + absl::Seconds(5))));
  ASSERT_TRUE(polite->WaitForConnected(absl::ToChronoTime(connected + absl::Seconds(5))));

  // The pings at about 2, 3 and 4 s each come within the minimum of the one before: the third
  // is one strike over the two allowed, and the server sends GOAWAY.
  EXPECT_TRUE(fast->WaitForStateChange(GRPC_CHANNEL_READY,
                                       absl::ToChronoTime(connected + absl::Seconds(8))));
  EXPECT_NE(fast->GetState(/*try_to_connect=*/false), GRPC_CHANNEL_READY);

  // Three pings at the minimum by then, and the connection is still up and answers.
  const absl::Time polite_pinged = connected + 3 * kMinPingInterval + absl::Milliseconds(500);
  EXPECT_FALSE(polite->WaitForStateChange(GRPC_CHANNEL_READY, absl::ToChronoTime(polite_pinged)));
  EXPECT_EQ(polite->GetState(/*try_to_connect=*/false), GRPC_CHANNEL_READY);
  std::unique_ptr<v1::ValidationService::Stub> stub = v1::ValidationService::NewStub(polite);
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(5)));
  v1::CreateSessionRequest request;
  request.set_session_id("polite");
  v1::CreateSessionResponse response;
  EXPECT_TRUE(stub->CreateSession(&context, request, &response).ok());
}

}  // namespace
}  // namespace wasserwarp::service::testing
