// How many WatchValidation streams this replica keeps open at once, in all
// (--max_watch_streams) and per principal (--max_watch_streams_per_principal): each stream
// holds a reactor and reads the store now and then, so that one principal opening thousands
// would take the replica's memory and database connections from everyone else.

#ifndef WASSERWARP_SERVER_RPC_WATCH_STREAM_SLOTS_H_
#define WASSERWARP_SERVER_RPC_WATCH_STREAM_SLOTS_H_

#include <map>
#include <string>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"

namespace wasserwarp::service {

class WatchStreamSlots {
 public:
  // One open stream's place, given back when this goes away. Move-only.
  class Slot {
   public:
    Slot(Slot&& other) noexcept
        : slots_(std::exchange(other.slots_, nullptr)), principal_(std::move(other.principal_)) {}
    Slot& operator=(Slot&&) = delete;
    Slot(const Slot&) = delete;
    ~Slot();

   private:
    friend class WatchStreamSlots;
    Slot(WatchStreamSlots* slots, std::string principal)
        : slots_(slots), principal_(std::move(principal)) {}
    WatchStreamSlots* slots_;
    std::string principal_;
  };

  // Both at least 1.
  WatchStreamSlots(int max_streams, int max_per_principal)
      : max_streams_(max_streams), max_per_principal_(max_per_principal) {}

  // A slot for a stream of `principal`; ResourceExhausted naming the flag of the limit it would
  // pass. The slots must outlive every Slot.
  absl::StatusOr<Slot> Take(const std::string& principal);

  int open() const;

 private:
  void GiveBack(const std::string& principal);

  const int max_streams_;
  const int max_per_principal_;
  mutable absl::Mutex mu_;
  int open_ ABSL_GUARDED_BY(mu_) = 0;
  std::map<std::string, int> per_principal_ ABSL_GUARDED_BY(mu_);
};

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_RPC_WATCH_STREAM_SLOTS_H_
