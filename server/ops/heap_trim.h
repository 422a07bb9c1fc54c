// Gives the C library's free heap memory back to the operating system.
//
// glibc's malloc gives threads their own arenas and keeps what they free for
// later: a server whose calls allocate on many gRPC and oneTBB threads grows
// its resident memory towards the sum of every arena's high-water mark, long
// after the sessions and cost matrices that needed it are gone. The server
// calls this every few seconds so that its resident memory follows what it
// holds.

#ifndef WASSERWARP_SERVER_OPS_HEAP_TRIM_H_
#define WASSERWARP_SERVER_OPS_HEAP_TRIM_H_

namespace wasserwarp::service {

// Returns the whole pages that are free in every malloc arena to the system
// (malloc_trim). True when any memory was returned; always false with a C
// library other than glibc, which has no such call.
bool ReturnFreeHeapMemory();

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_OPS_HEAP_TRIM_H_
