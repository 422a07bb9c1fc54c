#include "wasserwarp/engine_info.h"

#include "pipeline/build_info.h"
#include "twed/twed_batch.h"

namespace wasserwarp {

EngineInfo ThisEngine() {
  return {.version = build_info::Version(),
          .commit = build_info::Commit(),
          .build_type = build_info::BuildType(),
          .simd_target = twed_internal::BatchTargetName()};
}

}  // namespace wasserwarp
