// A one-line progress bar for a validation that runs on the server. It is drawn only on a
// terminal, so that logs and pipes receive nothing but results.

#ifndef WASSERWARP_CLIENT_PROGRESS_BAR_H_
#define WASSERWARP_CLIENT_PROGRESS_BAR_H_

#include <cstdio>
#include <string>

#include "wasserwarp/v1/validation.pb.h"

namespace wasserwarp::cli {

// "queued", "cost matrix", ...: the phase as the bar names it.
const char* PhaseName(v1::Phase phase);
// "12/40 tiles" for a validation computed in tiles by the server's replicas, "310/1000 pairs"
// otherwise.
std::string WorkDone(const v1::ValidateProgress& progress);

class ProgressBar {
 public:
  // Draws on `stream` when it is a terminal, and is silent otherwise.
  explicit ProgressBar(std::FILE* stream);
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;
  ~ProgressBar() { Clear(); }

  void Update(const v1::ValidateProgress& progress);
  // Erases the bar, so that whatever is printed next starts on a clean line.
  void Clear();

 private:
  std::FILE* stream_;
  bool enabled_;
  bool drawn_ = false;
};

}  // namespace wasserwarp::cli

#endif  // WASSERWARP_CLIENT_PROGRESS_BAR_H_
