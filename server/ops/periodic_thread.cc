#include "ops/periodic_thread.h"

#include <utility>

namespace wasserwarp::service {

PeriodicThread::PeriodicThread(absl::Duration interval, std::function<void()> task)
    : interval_(interval), task_(std::move(task)), thread_([this] { Loop(); }) {}

PeriodicThread::~PeriodicThread() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  thread_.join();
}

void PeriodicThread::Loop() {
  absl::MutexLock lock(&mu_);
  while (!mu_.AwaitWithTimeout(absl::Condition(&stopping_), interval_)) {
    mu_.Unlock();
    task_();
    mu_.Lock();
  }
}

}  // namespace wasserwarp::service
