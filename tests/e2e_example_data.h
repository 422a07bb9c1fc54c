// A real server and the example generator's runs (4 simulated, 3 reference) in the test's
// scratch directory, for the end-to-end tests of the CLI's commands. Needs the test target's
// WASSERWARP_EXAMPLE_DATA: the generator binary.

#ifndef WASSERWARP_TESTS_E2E_EXAMPLE_DATA_H_
#define WASSERWARP_TESTS_E2E_EXAMPLE_DATA_H_

#include <gtest/gtest.h>

#include "e2e_process.h"

namespace wasserwarp::e2e {

class ServerWithExampleDataTest : public ServerTest {
 protected:
  void SetUp() override {
    ServerTest::SetUp();
    if (HasFatalFailure()) return;
    const test_support::ProgramResult data =
        Run(WASSERWARP_EXAMPLE_DATA, {"--out", Path("data"), "--sim-runs", "4", "--ref-runs", "3"});
    ASSERT_EQ(data.exit_code, 0) << data.err;
  }
};

}  // namespace wasserwarp::e2e

#endif  // WASSERWARP_TESTS_E2E_EXAMPLE_DATA_H_
