// What a job of the job queue reports when it ends, to its observers: the log, the metrics and
// tests. Apart from the queue, so that the metrics need not know the queue.

#ifndef WASSERWARP_SERVER_OPS_JOB_STATS_H_
#define WASSERWARP_SERVER_OPS_JOB_STATS_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"

namespace wasserwarp::service {

// What a job reports about itself when it ends.
struct JobOutcome {
  absl::Status status;
  uint64_t cells_done = 0;
  uint64_t cells_total = 0;
};

// Every job's end, for the log and for observers such as tests.
struct JobStats {
  uint64_t id = 0;
  std::string label;
  std::string group;
  bool started = false;
  JobOutcome outcome;
  absl::Duration waited;
  absl::Duration ran;
};

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_OPS_JOB_STATS_H_
