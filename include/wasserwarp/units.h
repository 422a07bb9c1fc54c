// Physical units of channels, as spelled in run files and requests, parsed and converted by
// UDUNITS-2 (Debian's libudunits2): "m/s", "m s-1", "km/h", "deg/s", "rad/s", "degC", "1/s", ...
// The unit system is read from its XML database once per process.

#ifndef WASSERWARP_UNITS_H_
#define WASSERWARP_UNITS_H_

#include <cstddef>
#include <memory>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace wasserwarp {

// Ok when udunits reads `spelling` as a unit; InvalidArgument naming it otherwise.
absl::Status CheckUnit(absl::string_view spelling);

// What is wrong with a run having `units` units for `channels` channels ("" when nothing: none or
// one per channel), as ValidateSeries says it; for callers that have a run's header before its
// samples.
std::string UnitCountFault(size_t units, size_t channels);

// A conversion of values from one unit to another (affine: degC to K has an offset).
class UnitConverter {
 public:
  // The conversion from `from` to `to`; InvalidArgument when either is not a unit or the two
  // measure different quantities (deg/s and m/s), naming both.
  static absl::StatusOr<UnitConverter> Between(absl::string_view from, absl::string_view to);

  double operator()(double value) const;

 private:
  struct Handle;
  explicit UnitConverter(std::shared_ptr<const Handle> handle) : handle_(std::move(handle)) {}
  std::shared_ptr<const Handle> handle_;
};

}  // namespace wasserwarp

#endif  // WASSERWARP_UNITS_H_
