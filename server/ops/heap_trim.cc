#include "ops/heap_trim.h"

// Defines __GLIBC__ with glibc.
#include <cstdlib>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace wasserwarp::service {

bool ReturnFreeHeapMemory() {
#if defined(__GLIBC__)
  return malloc_trim(0) == 1;
#else
  return false;
#endif
}

}  // namespace wasserwarp::service
