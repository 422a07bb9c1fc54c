// What the build system knew when it built this binary, from a source file it generates on
// every build (build_info.cmake) and rewrites only when the commit changed, so that a new commit
// recompiles that one file and no other.

#ifndef WASSERWARP_SRC_PIPELINE_BUILD_INFO_H_
#define WASSERWARP_SRC_PIPELINE_BUILD_INFO_H_

namespace wasserwarp::build_info {

// The project version (CMake's PROJECT_VERSION).
const char* Version();
// `git rev-parse HEAD` of the source tree, with "-dirty" when tracked files had changed;
// "unknown" outside a git checkout or without git.
const char* Commit();
// CMAKE_BUILD_TYPE.
const char* BuildType();

}  // namespace wasserwarp::build_info

#endif  // WASSERWARP_SRC_PIPELINE_BUILD_INFO_H_
