// The build that computes a report, so that a stored result says what produced it: the project
// version, the git commit the binary was built from, the build type, and the instruction-set
// target the TWED kernels dispatch to on this machine.

#ifndef WASSERWARP_ENGINE_INFO_H_
#define WASSERWARP_ENGINE_INFO_H_

#include <string>

namespace wasserwarp {

struct EngineInfo {
  std::string version;      // the project version, e.g. "0.1.0"
  std::string commit;       // "unknown" outside a git checkout; "-dirty" with local changes
  std::string build_type;   // CMake's, e.g. "Release"
  std::string simd_target;  // Highway's name, e.g. "AVX2"; "scalar" without SIMD kernels
  friend bool operator==(const EngineInfo&, const EngineInfo&) = default;
};

// This binary on this machine.
EngineInfo ThisEngine();

}  // namespace wasserwarp

#endif  // WASSERWARP_ENGINE_INFO_H_
