// Channel units through the service (issue 43): a run's header gives them, GetSession shows
// them, and a validation converts them, maps channels and honours strict_units exactly as the
// embedded engine does with the units of files, keeping units it need not read.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "random_runs.h"
#include "server_test_util.h"
#include "wasserwarp/report_json.h"
#include "wasserwarp/validation.h"
#include "wire/convert.h"

namespace wasserwarp::service::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr double kDegreesPerRadian = 180.0 / std::numbers::pi;

// Two-channel runs: a yaw rate in rad/s and a lateral acceleration in m/s2.
std::vector<Series> Radians(const std::string& prefix, int count, uint64_t seed) {
  std::vector<Series> runs = test_data::RandomWalkRuns(prefix, count, 150, 250, 2, seed);
  for (Series& run : runs) {
    run.channels = {"yaw_rate", "lateral_acceleration"};
    run.units = {"rad/s", "m/s2"};
  }
  return runs;
}

// The same runs with the yaw rate in deg/s.
std::vector<Series> Degrees(std::vector<Series> runs) {
  for (Series& run : runs) {
    for (size_t i = 0; i < run.samples(); ++i) run.values[i * 2] *= kDegreesPerRadian;
    run.units[0] = "deg/s";
  }
  return runs;
}

class ServerUnitsTest : public ServerTest {
 protected:
  void SetUp() override { StartServer(TestConfig()); }

  // The report of validating session `id`, which gets `simulation` and `reference` first.
  absl::StatusOr<ValidationReport> Served(const std::string& id,
                                          const std::vector<Series>& simulation,
                                          const std::vector<Series>& reference,
                                          const v1::ValidationParameters& parameters = {}) {
    const std::string name = "sessions/" + id;
    if (grpc::Status status = CreateSession(id); !status.ok()) {
      return absl::InternalError(status.error_message());
    }
    if (grpc::Status status = Upload(name, simulation, reference); !status.ok()) {
      return absl::InternalError(status.error_message());
    }
    v1::ValidateRequest request = ValidateRequestFor(name);
    *request.mutable_parameters() = parameters;
    std::vector<v1::ValidateResponse> events;
    if (grpc::Status status = ValidateAll(request, events); !status.ok()) {
      return absl::Status(static_cast<absl::StatusCode>(status.error_code()),
                          status.error_message());
    }
    return ServedReport(events);
  }

  // An upload of one reference run whose header gives `units`; its status.
  grpc::Status UploadWithUnits(const std::string& id, const std::vector<std::string>& units) {
    EXPECT_TRUE(CreateSession(id).ok());
    std::vector<v1::UploadSeriesRequest> messages;
    Series run = Radians("ref", 1, 9)[0];
    run.units.clear();
    AppendRun("sessions/" + id, v1::ROLE_REFERENCE, run, messages);
    for (const std::string& unit : units) messages[0].mutable_header()->add_units(unit);
    return UploadMessages(messages);
  }
};

TEST_F(ServerUnitsTest, DegreesAgainstRadiansGiveTheEmbeddedW) {
  const std::vector<Series> reference = Radians("ref", 3, 1);
  const std::vector<Series> radians = Radians("sim", 2, 2);
  const std::vector<Series> degrees = Degrees(radians);
  absl::StatusOr<ValidationReport> embedded = Validate(degrees, reference, ValidationOptions());
  ASSERT_TRUE(embedded.ok()) << embedded.status();
  absl::StatusOr<ValidationReport> served = Served("degrees", degrees, reference);
  ASSERT_TRUE(served.ok()) << served.status();
  served->seconds = embedded->seconds;
  EXPECT_EQ(ReportToJson(*served), ReportToJson(*embedded));
  EXPECT_THAT(served->channel_units, ElementsAre("rad/s", "m/s2"));
  absl::StatusOr<ValidationReport> in_radians = Served("radians", radians, reference);
  ASSERT_TRUE(in_radians.ok()) << in_radians.status();
  EXPECT_NEAR(served->distance, in_radians->distance, 1e-12 * in_radians->distance);

  absl::StatusOr<v1::Session> session = GetSession("sessions/degrees");
  ASSERT_TRUE(session.ok()) << session.status();
  ASSERT_EQ(session->runs_size(), 5);
  EXPECT_THAT(session->runs(0).units(), ElementsAre("deg/s", "m/s2"));
  EXPECT_THAT(session->runs(4).units(), ElementsAre("rad/s", "m/s2"));
}

TEST_F(ServerUnitsTest, AMappedChannelIsConvertedAsTheEmbeddedEngineDoes) {
  const std::vector<Series> reference = Radians("ref", 2, 3);
  std::vector<Series> simulation = Degrees(Radians("sim", 2, 4));
  for (Series& run : simulation) run.channels[0] = "yawRate";
  ValidationOptions options;
  options.prepare.channel_map = {{.simulation = "yawRate", .reference = "yaw_rate", .unit = ""}};
  absl::StatusOr<ValidationReport> embedded = Validate(simulation, reference, options);
  ASSERT_TRUE(embedded.ok()) << embedded.status();
  v1::ValidationParameters parameters;
  v1::ChannelMapping* mapping = parameters.add_channel_map();
  mapping->set_simulation_channel("yawRate");
  mapping->set_reference_channel("yaw_rate");
  absl::StatusOr<ValidationReport> served = Served("mapped", simulation, reference, parameters);
  ASSERT_TRUE(served.ok()) << served.status();
  served->seconds = embedded->seconds;
  EXPECT_EQ(ReportToJson(*served), ReportToJson(*embedded));

  // A channel mapped twice is refused naming the request's field.
  *parameters.add_channel_map() = *mapping;
  const absl::Status twice = Served("mapped-twice", simulation, reference, parameters).status();
  EXPECT_EQ(twice.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(twice.message()), StartsWith("parameters.channel_map: mapping 2"));
}

TEST_F(ServerUnitsTest, AUnitOnOneSideOnlyWarnsOrWithStrictUnitsFails) {
  std::vector<Series> reference = Radians("ref", 2, 5);
  for (Series& run : reference) run.units.clear();
  const std::vector<Series> simulation = Degrees(Radians("sim", 2, 6));
  absl::StatusOr<ValidationReport> embedded = Validate(simulation, reference, ValidationOptions());
  ASSERT_TRUE(embedded.ok()) << embedded.status();
  ASSERT_FALSE(embedded->unit_warnings.empty());
  absl::StatusOr<ValidationReport> served = Served("one-side", simulation, reference);
  ASSERT_TRUE(served.ok()) << served.status();
  EXPECT_EQ(served->unit_warnings, embedded->unit_warnings);

  ValidationOptions strict;
  strict.prepare.strict_units = true;
  const absl::Status refused = Validate(simulation, reference, strict).status();
  ASSERT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
  v1::ValidationParameters parameters;
  parameters.set_strict_units(true);
  const absl::Status served_refusal = Served("strict", simulation, reference, parameters).status();
  EXPECT_EQ(served_refusal.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(served_refusal.message()), StartsWith("parameters.strict_units: "));
  EXPECT_THAT(std::string(served_refusal.message()), HasSubstr("deg/s"));
}

TEST_F(ServerUnitsTest, BadUnitsAreRefusedNamingTheField) {
  grpc::Status status = UploadWithUnits("control", {"rad/s", "m\n"});
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), StartsWith("series[0].header.units[1]: reference run"));
  EXPECT_THAT(status.error_message(), HasSubstr("a unit may not hold control characters"));

  status = UploadWithUnits("unit-count", {"rad/s"});
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), StartsWith("series[0].header.units: reference run"));
  EXPECT_THAT(status.error_message(), HasSubstr("1 units for 2 channels"));

  // "" is a channel without a unit, and only "" is a run without units.
  ASSERT_TRUE(UploadWithUnits("some-units", {"", "m/s2"}).ok());
  ASSERT_TRUE(UploadWithUnits("no-units", {"", ""}).ok());
  EXPECT_THAT(GetSession("sessions/some-units")->runs(0).units(), ElementsAre("", "m/s2"));
  EXPECT_TRUE(GetSession("sessions/no-units")->runs(0).units().empty());
}

TEST_F(ServerUnitsTest, UnitsUdunitsCannotReadPassWhereNothingIsConverted) {
  // MDF 4 tools write "-" for a quantity without a unit: as the embedded engine does with files,
  // the server keeps it, and it compares with itself; only a conversion from it is refused,
  // naming both runs, channels and units.
  std::vector<Series> reference = Radians("ref", 2, 11);
  std::vector<Series> simulation = Radians("sim", 2, 12);
  for (auto* runs : {&reference, &simulation}) {
    for (Series& run : *runs) run.units[1] = "-";
  }
  absl::StatusOr<ValidationReport> embedded = Validate(simulation, reference, ValidationOptions());
  ASSERT_TRUE(embedded.ok()) << embedded.status();
  absl::StatusOr<ValidationReport> served = Served("dash", simulation, reference);
  ASSERT_TRUE(served.ok()) << served.status();
  served->seconds = embedded->seconds;
  EXPECT_EQ(ReportToJson(*served), ReportToJson(*embedded));
  EXPECT_THAT(GetSession("sessions/dash")->runs(0).units(), ElementsAre("rad/s", "-"));

  for (Series& run : simulation) run.units[1] = "bananas/s";
  const absl::Status embedded_refusal =
      Validate(simulation, reference, ValidationOptions()).status();
  ASSERT_EQ(embedded_refusal.code(), absl::StatusCode::kInvalidArgument);
  const absl::Status served_refusal = Served("bananas", simulation, reference).status();
  EXPECT_EQ(served_refusal.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(served_refusal.message()),
              HasSubstr(std::string(embedded_refusal.message())));
  EXPECT_THAT(std::string(served_refusal.message()), HasSubstr("\"bananas/s\""));
}

TEST_F(ServerUnitsTest, ComputeTwedConvertsInlineUnits) {
  const Series a = Radians("a", 1, 7)[0];
  const Series b = Radians("b", 1, 8)[0];
  const auto twed = [this](const Series& x, const Series& y) -> absl::StatusOr<double> {
    grpc::ClientContext context;
    v1::ComputeTwedRequest request;
    *request.mutable_a() = wire::InlineFromSeries(x);
    *request.mutable_b() = wire::InlineFromSeries(y);
    v1::ComputeTwedResponse response;
    const grpc::Status status = stub_->ComputeTwed(&context, request, &response);
    if (!status.ok()) return absl::InvalidArgumentError(status.error_message());
    return response.twed();
  };
  absl::StatusOr<double> radians = twed(a, b);
  absl::StatusOr<double> degrees = twed(Degrees({a})[0], b);
  ASSERT_TRUE(radians.ok()) << radians.status();
  ASSERT_TRUE(degrees.ok()) << degrees.status();
  EXPECT_NEAR(*degrees, *radians, 1e-12 * *radians);

  Series bad = a;
  bad.units[1] = "m\x01";
  EXPECT_THAT(std::string(twed(bad, b).status().message()),
              StartsWith("a.units[1]: series \"a0\""));
  bad.units[1] = "bananas/s";
  EXPECT_THAT(std::string(twed(bad, b).status().message()), HasSubstr("\"bananas/s\""));
}

}  // namespace
}  // namespace wasserwarp::service::testing
