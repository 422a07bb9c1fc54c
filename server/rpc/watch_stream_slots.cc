#include "rpc/watch_stream_slots.h"

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "wasserwarp/field_error.h"

namespace wasserwarp::service {

WatchStreamSlots::Slot::~Slot() {
  if (slots_ != nullptr) slots_->GiveBack(principal_);
}

absl::StatusOr<WatchStreamSlots::Slot> WatchStreamSlots::Take(const std::string& principal) {
  absl::MutexLock lock(&mu_);
  if (open_ >= max_streams_) {
    return WithLimit(absl::ResourceExhaustedError(absl::StrCat(
                         "this replica has ", open_,
                         " WatchValidation streams open, its limit (--max_watch_streams=",
                         max_streams_, "); retry later or on another replica")),
                     "--max_watch_streams");
  }
  int& mine = per_principal_[principal];
  if (mine >= max_per_principal_) {
    return WithLimit(absl::ResourceExhaustedError(
                         absl::StrCat("the caller has ", mine,
                                      " WatchValidation streams open on this replica, its limit "
                                      "(--max_watch_streams_per_principal=",
                                      max_per_principal_, ")")),
                     "--max_watch_streams_per_principal");
  }
  ++mine;
  ++open_;
  return Slot(this, principal);
}

int WatchStreamSlots::open() const {
  absl::MutexLock lock(&mu_);
  return open_;
}

void WatchStreamSlots::GiveBack(const std::string& principal) {
  absl::MutexLock lock(&mu_);
  --open_;
  auto it = per_principal_.find(principal);
  if (it != per_principal_.end() && --it->second == 0) per_principal_.erase(it);
}

}  // namespace wasserwarp::service
