// How the `wasserwarp` process asks glibc to manage its heap.
//
// Why: a CLI process lives for one command, and what it frees (file buffers, the
// runs' samples, a matrix's temporary copy, the report's strings) is better kept
// for its next allocation than handed back to the kernel, which faults it in again
// page by page when it is needed (about 10 us a 4 KiB page on the 2-core VM the
// project measures on). On 2000 x 2000 one-sample runs of three channels that cut
// a whole validation from 0.375 to 0.330 s (median of 11; see README.md).

#ifndef WASSERWARP_CLIENT_PROCESS_MEMORY_H_
#define WASSERWARP_CLIENT_PROCESS_MEMORY_H_

namespace wasserwarp::cli {

// Serves allocations below 64 MiB from the heap instead of fresh mappings, and
// keeps up to 256 MiB of freed heap instead of returning it. Call first in main,
// before any thread starts. Does nothing with a C library other than glibc, as
// the server's ReturnFreeHeapMemory (server/ops/heap_trim.h).
void KeepFreedMemoryForReuse();

}  // namespace wasserwarp::cli

#endif  // WASSERWARP_CLIENT_PROCESS_MEMORY_H_
