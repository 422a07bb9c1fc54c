#include "process_memory.h"

// Defines __GLIBC__ with glibc.
#include <cstdlib>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace wasserwarp::cli {

void KeepFreedMemoryForReuse() {
#if defined(__GLIBC__)
  // Advice only: where glibc refuses a setting, the defaults stay and only speed differs.
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
}

}  // namespace wasserwarp::cli
