// udunits' parser keeps its state in globals, so parsing and building converters is serialised
// by one mutex; a converter, once built, is only read and may be used from any thread.

#include "wasserwarp/units.h"

#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "udunits2.h"

namespace wasserwarp {
namespace {

struct UnitDeleter {
  void operator()(ut_unit* unit) const { ut_free(unit); }
};
using UnitPtr = std::unique_ptr<ut_unit, UnitDeleter>;

// The unit system, read once; its error when the database could not be read.
struct UnitSystem {
  std::mutex mutex;
  ut_system* system = nullptr;  // never freed: units and converters may outlive any owner
  absl::Status status;
};

// Symbols the measurement tools write that udunits' database lacks: "deg" (INCA's and MDF 4's
// deg/s) for its arc_degree. Mapping a symbol only adds a spelling; it changes no unit.
void AddSymbols(ut_system* system) {
  constexpr struct {
    const char* symbol;
    const char* unit;
  } kSymbols[] = {{"deg", "arc_degree"}};
  for (const auto& [symbol, name] : kSymbols) {
    ut_unit* unit = ut_get_unit_by_name(system, name);
    if (unit != nullptr) ut_map_symbol_to_unit(symbol, UT_UTF8, unit);
    ut_free(unit);
  }
}

UnitSystem& System() {
  static UnitSystem* const units = [] {
    auto* loaded = new UnitSystem;
    // udunits prints its errors to stderr by default; ours go back as statuses.
    ut_set_error_message_handler(ut_ignore);
    loaded->system = ut_read_xml(nullptr);
    if (loaded->system != nullptr) AddSymbols(loaded->system);
    if (loaded->system == nullptr) {
      loaded->status = absl::FailedPreconditionError(absl::StrCat(
          "cannot read the udunits unit database (", ut_get_path_xml(nullptr, nullptr),
          "; package libudunits2-data, or the UDUNITS2_XML_PATH environment variable)"));
    }
    return loaded;
  }();
  return *units;
}

// `spelling` parsed; the caller holds the system's mutex.
absl::StatusOr<UnitPtr> Parse(UnitSystem& units, absl::string_view spelling) {
  if (!units.status.ok()) return units.status;
  const std::string text(absl::StripAsciiWhitespace(spelling));
  // udunits reads an empty string as the dimensionless 1; a unit left out is not that.
  if (text.empty()) return absl::InvalidArgumentError("an empty unit");
  UnitPtr unit(ut_parse(units.system, text.c_str(), UT_UTF8));
  if (unit == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("\"", spelling, "\" is not a unit udunits reads (README, \"Units\")"));
  }
  return unit;
}

}  // namespace

struct UnitConverter::Handle {
  cv_converter* converter = nullptr;
  ~Handle() { cv_free(converter); }
};

std::string UnitCountFault(size_t units, size_t channels) {
  if (units == 0 || units == channels) return "";
  return absl::StrCat(units, " units for ", channels,
                      " channels (expected none or one per channel)");
}

absl::Status CheckUnit(absl::string_view spelling) {
  UnitSystem& units = System();
  std::lock_guard<std::mutex> lock(units.mutex);
  return Parse(units, spelling).status();
}

absl::StatusOr<UnitConverter> UnitConverter::Between(absl::string_view from, absl::string_view to) {
  UnitSystem& units = System();
  std::lock_guard<std::mutex> lock(units.mutex);
  absl::StatusOr<UnitPtr> source = Parse(units, from);
  if (!source.ok()) return source.status();
  absl::StatusOr<UnitPtr> target = Parse(units, to);
  if (!target.ok()) return target.status();
  if (!ut_are_convertible(source->get(), target->get())) {
    return absl::InvalidArgumentError(
        absl::StrCat("\"", from, "\" cannot be converted to \"", to, "\""));
  }
  auto handle = std::make_shared<Handle>();
  handle->converter = ut_get_converter(source->get(), target->get());
  if (handle->converter == nullptr) {
    return absl::InternalError(
        absl::StrCat("udunits built no converter from \"", from, "\" to \"", to, "\""));
  }
  return UnitConverter(std::move(handle));
}

double UnitConverter::operator()(double value) const {
  return cv_convert_double(handle_->converter, value);
}

}  // namespace wasserwarp
