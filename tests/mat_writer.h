// MATLAB files written in the tests through matio's own writer, so that the reader is tested on
// files it did not make and the values expected are the ones written.

#ifndef WASSERWARP_TESTS_MAT_WRITER_H_
#define WASSERWARP_TESTS_MAT_WRITER_H_

#include <matio.h>

#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace wasserwarp::test_support {

struct MatVarFree {
  void operator()(matvar_t* var) const { Mat_VarFree(var); }
};
using MatVar = std::unique_ptr<matvar_t, MatVarFree>;

// The MATLAB class and matio type of the C++ type T.
template <typename T>
constexpr std::pair<matio_classes, matio_types> MatKind() {
  if constexpr (std::is_same_v<T, int16_t>) return {MAT_C_INT16, MAT_T_INT16};
  if constexpr (std::is_same_v<T, int32_t>) return {MAT_C_INT32, MAT_T_INT32};
  if constexpr (std::is_same_v<T, uint8_t>) return {MAT_C_UINT8, MAT_T_UINT8};
  return {MAT_C_DOUBLE, MAT_T_DOUBLE};
}

// A rows x columns array of `data` (column-major, as MATLAB holds it), copied.
template <typename T>
MatVar MatArray(const char* name, size_t rows, size_t columns, std::vector<T> data) {
  size_t dims[2] = {rows, columns};
  return MatVar(
      Mat_VarCreate(name, MatKind<T>().first, MatKind<T>().second, 2, dims, data.data(), 0));
}

// A column vector.
template <typename T>
MatVar MatVector(const char* name, std::vector<T> data) {
  const size_t n = data.size();
  return MatArray(name, n, 1, std::move(data));
}

inline MatVar MatText(const char* name, const std::string& text) {
  size_t dims[2] = {1, text.size()};
  return MatVar(
      Mat_VarCreate(name, MAT_C_CHAR, MAT_T_UINT8, 2, dims, const_cast<char*>(text.data()), 0));
}

// A 1 x 1 struct (or 1 x `count` struct array) with `fields`, to be filled by SetField.
inline MatVar MatStruct(const char* name, std::vector<const char*> fields, size_t count = 1) {
  size_t dims[2] = {1, count};
  fields.push_back(nullptr);  // matio's end of the list
  return MatVar(Mat_VarCreateStruct2(name, 2, dims, fields.data()));
}

// Moves `value` into field `field` of element `index` of `var`.
inline void SetField(matvar_t* var, const char* field, MatVar value, size_t index = 0) {
  Mat_VarFree(Mat_VarSetStructFieldByName(var, field, index, value.release()));
}

// One of Simulink's signals: its values (samples x width) and label.
struct MatSignal {
  std::string label;
  MatVar values;
};

// Simulink's "structure with time": {time, signals(k).values, signals(k).label,
// signals(k).dimensions}.
inline MatVar MatStructureWithTime(const char* name, std::vector<double> time,
                                   std::vector<MatSignal> signals) {
  MatVar all = MatStruct("signals", {"values", "label", "dimensions"}, signals.size());
  for (size_t k = 0; k < signals.size(); ++k) {
    const double width = signals[k].values == nullptr ? 0 : signals[k].values->dims[1];
    SetField(all.get(), "values", std::move(signals[k].values), k);
    SetField(all.get(), "label", MatText("label", signals[k].label), k);
    SetField(all.get(), "dimensions", MatVector<double>("dimensions", {width}), k);
  }
  MatVar out = MatStruct(name, {"time", "signals"});
  SetField(out.get(), "time", MatVector("time", std::move(time)));
  SetField(out.get(), "signals", std::move(all));
  return out;
}

// A vector of move-only elements (variables, signals), in order.
template <typename T, typename... More>
std::vector<T> MoveAll(T first, More... more) {
  std::vector<T> out;
  out.push_back(std::move(first));
  (out.push_back(std::move(more)), ...);
  return out;
}

// Writes `vars` to a new file at `path`; false where matio fails.
inline bool WriteMat(const std::string& path, mat_ft version, const std::vector<MatVar>& vars) {
  mat_t* mat = Mat_CreateVer(path.c_str(), nullptr, version);
  if (mat == nullptr) return false;
  bool ok = true;
  for (const MatVar& var : vars) {
    // Compressed where matio can: its 1.5.23 writer leaves the fields of a struct array's later
    // elements empty in a compressed variable (the file holds them empty), so structs are not.
    const matio_compression compression =
        version == MAT_FT_MAT5 && var != nullptr && var->class_type != MAT_C_STRUCT
            ? MAT_COMPRESSION_ZLIB
            : MAT_COMPRESSION_NONE;
    ok = ok && var != nullptr && Mat_VarWrite(mat, var.get(), compression) == 0;
  }
  return Mat_Close(mat) == 0 && ok;
}

}  // namespace wasserwarp::test_support

#endif  // WASSERWARP_TESTS_MAT_WRITER_H_
