// Every transport solver the core reports travels the wire as itself, and prints in the JSON
// report under the name TransportSolverName gives it.

#include <gtest/gtest.h>

#include <string>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "wasserwarp/report_json.h"
#include "wasserwarp/transport.h"
#include "wasserwarp/validation.h"
#include "wire/convert.h"

namespace wasserwarp::wire {
namespace {

TEST(WireSolverTest, EverySolverComesBackAsItselfAndPrintsItsName) {
  for (const TransportSolver solver :
       {TransportSolver::kAssignment, TransportSolver::kNetworkSimplex,
        TransportSolver::kMonotone}) {
    ValidationReport report;
    report.solver = solver;
    v1::ValidationReport proto;
    ReportToProto(report, proto);
    EXPECT_NE(proto.solver(), v1::SOLVER_UNSPECIFIED);
    absl::StatusOr<ValidationReport> back = ReportFromProto(proto);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(back->solver, solver);
    const nlohmann::json json = nlohmann::json::parse(ReportJsonDocument(*back, false));
    EXPECT_EQ(json["solver"], std::string(TransportSolverName(solver)));
  }
  EXPECT_EQ(TransportSolverName(TransportSolver::kMonotone), "monotone");
}

}  // namespace
}  // namespace wasserwarp::wire
