#include "process_memory.h"

#include <malloc.h>

namespace wasserwarp::cli {

void KeepFreedMemoryForReuse() {
  // Advice only: where glibc refuses a setting, the defaults stay and only speed differs.
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
}

}  // namespace wasserwarp::cli
