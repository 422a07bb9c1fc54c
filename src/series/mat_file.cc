#include "series/mat_file.h"

#include <cstring>
#include <fstream>
#include <limits>
#include <mutex>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace wasserwarp::mat {
namespace {

// Beyond this nesting a struct or cell is refused: it bounds the recursion a hostile file asks.
constexpr int kMaxDepth = 16;
// Beyond this rank an array is refused: MATLAB's arrays have a few dimensions, not millions.
constexpr int kMaxRank = 32;

// matio's last message on this thread: the detail of the failure its return value only flags.
thread_local std::string last_message;

void KeepMessage(int /*log_level*/, char* message) {
  last_message = message == nullptr ? "" : message;
}

// matio prints to stderr unless told otherwise; its messages belong in our errors instead.
void CaptureMessages() {
  static std::once_flag once;
  std::call_once(once, [] { Mat_LogInitFunc("wasserwarp", &KeepMessage); });
}

std::string MatioDetail() {
  std::string detail = std::exchange(last_message, "");
  return detail.empty() ? "" : absl::StrCat(" (matio: ", detail, ")");
}

// What the reader needs to know of a MATLAB class: its name, and for arrays of numbers or
// characters the bytes of an element in memory (0 for the others).
struct ClassInfo {
  matio_classes id;
  const char* name;
  uint64_t element_bytes;
  bool numeric;
};

constexpr ClassInfo kClasses[] = {
    {MAT_C_DOUBLE, "double", 8, true},  {MAT_C_SINGLE, "single", 4, true},
    {MAT_C_INT8, "int8", 1, true},      {MAT_C_UINT8, "uint8", 1, true},
    {MAT_C_INT16, "int16", 2, true},    {MAT_C_UINT16, "uint16", 2, true},
    {MAT_C_INT32, "int32", 4, true},    {MAT_C_UINT32, "uint32", 4, true},
    {MAT_C_INT64, "int64", 8, true},    {MAT_C_UINT64, "uint64", 8, true},
    {MAT_C_CHAR, "char", 2, false},     {MAT_C_STRUCT, "struct", 0, false},
    {MAT_C_CELL, "cell", 0, false},     {MAT_C_SPARSE, "sparse", 0, false},
    {MAT_C_OBJECT, "object", 0, false}, {MAT_C_FUNCTION, "function handle", 0, false},
};
constexpr ClassInfo kOpaque = {MAT_C_OPAQUE, "opaque", 0, false};

const ClassInfo& InfoOf(matio_classes id) {
  for (const ClassInfo& info : kClasses) {
    if (info.id == id) return info;
  }
  return kOpaque;
}

bool IsNumeric(matio_classes c) { return InfoOf(c).numeric; }

bool AddChecked(uint64_t a, uint64_t b, uint64_t& sum) {
  if (a > std::numeric_limits<uint64_t>::max() - b) return false;
  sum = a + b;
  return true;
}

// How many variables a struct (elements x fields, element-major) or cell holds, where the array
// of them matio made is as long as that; nullopt where it is not, as in a corrupt file.
std::optional<uint64_t> ChildCount(const matvar_t& var) {
  const std::optional<uint64_t> elements = Elements(var);
  if (!elements.has_value()) return std::nullopt;
  uint64_t count = *elements;
  if (var.class_type == MAT_C_STRUCT) {
    const uint64_t fields = Mat_VarGetNumberOfFields(const_cast<matvar_t*>(&var));
    if (fields != 0 && count > std::numeric_limits<uint64_t>::max() / fields) return std::nullopt;
    count *= fields;
  }
  if (count != 0 && (var.data == nullptr || var.nbytes / sizeof(matvar_t*) != count)) {
    return std::nullopt;
  }
  return count;
}

// The bytes `var`'s data takes in memory as its header gives them: nullopt where the count
// overflows, nests too deep or is of a class whose size is not known (sparse, object, ...). A
// struct's or cell's are its elements'.
std::optional<uint64_t> DataBytes(const matvar_t& var, int depth) {
  const std::optional<uint64_t> elements = Elements(var);
  if (!elements.has_value() || depth > kMaxDepth) return std::nullopt;
  if (var.class_type != MAT_C_STRUCT && var.class_type != MAT_C_CELL) {
    // Sparse arrays, objects and the like: no size to check before matio reads them.
    const uint64_t element_bytes = InfoOf(var.class_type).element_bytes;
    if (element_bytes == 0) return std::nullopt;
    const uint64_t per_element = element_bytes * (var.isComplex ? 2 : 1);
    if (*elements > std::numeric_limits<uint64_t>::max() / per_element) return std::nullopt;
    return *elements * per_element;
  }
  const std::optional<uint64_t> children = ChildCount(var);
  if (!children.has_value()) return std::nullopt;
  uint64_t total = 0;
  const auto* const* child = static_cast<matvar_t* const*>(var.data);
  for (uint64_t i = 0; i < *children; ++i) {
    if (child[i] == nullptr) continue;
    const std::optional<uint64_t> bytes = DataBytes(*child[i], depth + 1);
    if (!bytes.has_value() || !AddChecked(total, *bytes, total)) return std::nullopt;
  }
  return total;
}

// matio reads a v5 variable whose data runs past the end of the file as if the missing bytes
// were zeros. Every top-level element of a v5 file is a tag (type, byte count) and its bytes
// (an uncompressed one padded to 8 bytes, which its count includes; a compressed one not), so
// walking the tags finds a truncated file before matio reads it.
absl::Status CheckV5Elements(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return absl::InvalidArgumentError(absl::StrCat(path, ": cannot be read"));
  const uint64_t size = static_cast<uint64_t>(in.tellg());
  constexpr uint64_t kHeaderBytes = 128;
  char endian[2] = {};
  in.seekg(126);
  in.read(endian, 2);
  const bool swap = endian[0] == 'M' && endian[1] == 'I';
  for (uint64_t offset = kHeaderBytes; offset < size;) {
    unsigned char tag[8] = {};
    in.seekg(static_cast<std::streamoff>(offset));
    if (size - offset < sizeof tag || !in.read(reinterpret_cast<char*>(tag), sizeof tag)) {
      return absl::InvalidArgumentError(absl::StrCat(
          path, ": truncated: the file ends inside the tag of the element at offset ", offset));
    }
    uint32_t bytes = 0;
    for (int k = 0; k < 4; ++k) {
      bytes |= static_cast<uint32_t>(tag[swap ? 7 - k : 4 + k]) << (8 * k);
    }
    if (bytes > size - offset - sizeof tag) {
      return absl::InvalidArgumentError(absl::StrCat(
          path, ": truncated: the element at offset ", offset, " declares ", bytes,
          " bytes, but the file ends ", size - offset - sizeof tag, " bytes after its tag"));
    }
    offset += sizeof tag + bytes;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<File> File::Open(const std::string& path, const MatLimits& limits) {
  CaptureMessages();
  mat_t* mat = Mat_Open(path.c_str(), MAT_ACC_RDONLY);
  if (mat == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": cannot be opened as a MATLAB file", MatioDetail()));
  }
  File file(path, mat, limits);
  if (Mat_GetVersion(mat) == MAT_FT_MAT5) {
    if (absl::Status status = CheckV5Elements(path); !status.ok()) return status;
  }
  return file;
}

std::string File::version() const {
  switch (Mat_GetVersion(mat_.get())) {
    case MAT_FT_MAT73:
      return "7.3";
    case MAT_FT_MAT4:
      return "4";
    default:
      return "5";
  }
}

absl::StatusOr<std::vector<Var>> File::ReadHeaders() {
  if (Mat_Rewind(mat_.get()) != 0) {
    return absl::InvalidArgumentError(absl::StrCat(path_, ": cannot be read", MatioDetail()));
  }
  std::vector<Var> headers;
  while (matvar_t* header = Mat_VarReadNextInfo(mat_.get())) {
    if (header->name == nullptr) {
      Mat_VarFree(header);
      return absl::InvalidArgumentError(absl::StrCat(path_, ": a variable has no name"));
    }
    headers.emplace_back(header);
  }
  return headers;
}

absl::StatusOr<Var> File::Read(const matvar_t& header) {
  const std::optional<uint64_t> bytes = DataBytes(header, 0);
  if (!bytes.has_value())
    return Error(header.name,
                 "its size overflows, it nests too deep or it holds a class not read (sparse, "
                 "object, ...)");
  if (*bytes > budget_) {
    return Error(header.name, absl::StrCat("its ", *bytes, " bytes of data exceed the ", budget_,
                                           " bytes left of the limit for a file"));
  }
  budget_ -= *bytes;
  Var var(Mat_VarRead(mat_.get(), header.name));
  if (var == nullptr) return Error(header.name, absl::StrCat("cannot be read", MatioDetail()));
  // The data must be what the header promised, or our size check said nothing.
  const std::optional<uint64_t> read_bytes = DataBytes(*var, 0);
  if (!read_bytes.has_value() || *read_bytes != *bytes || var->class_type != header.class_type) {
    return Error(header.name, "its data does not match its header");
  }
  return var;
}

absl::Status File::Error(absl::string_view variable, absl::string_view what) const {
  return absl::InvalidArgumentError(absl::StrCat(path_, ": variable \"", variable, "\": ", what));
}

std::string ClassName(const matvar_t& var) {
  if (var.class_type == MAT_C_UINT8 && var.isLogical) return "logical";
  return InfoOf(var.class_type).name;
}

std::optional<uint64_t> Elements(const matvar_t& var) {
  if (var.rank < 0 || var.rank > kMaxRank || (var.rank > 0 && var.dims == nullptr)) {
    return std::nullopt;
  }
  uint64_t n = 1;
  for (int d = 0; d < var.rank; ++d) {
    const uint64_t dim = var.dims[d];
    if (dim != 0 && n > std::numeric_limits<uint64_t>::max() / dim) return std::nullopt;
    n *= dim;
  }
  return n;
}

std::optional<size_t> VectorLength(const matvar_t& var) {
  if (!IsNumeric(var.class_type) || var.isComplex || var.rank != 2) return std::nullopt;
  if (var.dims[0] != 1 && var.dims[1] != 1) return std::nullopt;
  const size_t n = var.dims[0] == 1 ? var.dims[1] : var.dims[0];
  if (n == 0) return std::nullopt;
  return n;
}

absl::StatusOr<size_t> ColumnsFor(const matvar_t& var, size_t samples) {
  if (!IsNumeric(var.class_type)) {
    return absl::InvalidArgumentError(absl::StrCat("a ", ClassName(var), ", not numeric"));
  }
  if (var.isComplex) return absl::InvalidArgumentError("complex");
  if (var.rank != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("an array of rank ", var.rank, ", not a vector or samples x width matrix"));
  }
  if (var.dims[0] == samples) return var.dims[1];
  if (var.dims[0] == 1 && var.dims[1] == samples) return 1;
  return absl::InvalidArgumentError(
      absl::StrCat(var.dims[0], " x ", var.dims[1], " values for ", samples, " samples of time"));
}

std::vector<double> ToDoubles(const matvar_t& var) {
  const size_t n = Elements(var).value_or(0);
  std::vector<double> out(var.data == nullptr ? 0 : n);
  auto copy = [&](const auto* data) {
    for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<double>(data[i]);
  };
  switch (var.class_type) {
    case MAT_C_DOUBLE:
      copy(static_cast<const double*>(var.data));
      break;
    case MAT_C_SINGLE:
      copy(static_cast<const float*>(var.data));
      break;
    case MAT_C_INT8:
      copy(static_cast<const int8_t*>(var.data));
      break;
    case MAT_C_UINT8:
      copy(static_cast<const uint8_t*>(var.data));
      break;
    case MAT_C_INT16:
      copy(static_cast<const int16_t*>(var.data));
      break;
    case MAT_C_UINT16:
      copy(static_cast<const uint16_t*>(var.data));
      break;
    case MAT_C_INT32:
      copy(static_cast<const int32_t*>(var.data));
      break;
    case MAT_C_UINT32:
      copy(static_cast<const uint32_t*>(var.data));
      break;
    case MAT_C_INT64:
      copy(static_cast<const int64_t*>(var.data));
      break;
    case MAT_C_UINT64:
      copy(static_cast<const uint64_t*>(var.data));
      break;
    default:
      out.clear();
  }
  return out;
}

std::optional<std::string> ToText(const matvar_t& var) {
  if (var.class_type != MAT_C_CHAR || var.data == nullptr) return std::nullopt;
  const size_t n = Elements(var).value_or(0);
  if (var.data_size == 1) return std::string(static_cast<const char*>(var.data), var.nbytes);
  if (var.data_size != 2) return std::nullopt;
  // UTF-16 code units of the Basic Multilingual Plane, as MATLAB's char holds them.
  std::string text;
  const auto* units = static_cast<const uint16_t*>(var.data);
  for (size_t i = 0; i < n; ++i) {
    const uint16_t u = units[i];
    if (u < 0x80) {
      text += static_cast<char>(u);
    } else if (u < 0x800) {
      text += static_cast<char>(0xC0 | (u >> 6));
      text += static_cast<char>(0x80 | (u & 0x3F));
    } else {
      text += static_cast<char>(0xE0 | (u >> 12));
      text += static_cast<char>(0x80 | ((u >> 6) & 0x3F));
      text += static_cast<char>(0x80 | (u & 0x3F));
    }
  }
  return text;
}

const matvar_t* Field(const matvar_t& var, const char* name, size_t index) {
  // Looked up here rather than by matio, which trusts a corrupt file's field table.
  if (var.class_type != MAT_C_STRUCT) return nullptr;
  const std::optional<uint64_t> children = ChildCount(var);
  const uint64_t fields = Mat_VarGetNumberOfFields(const_cast<matvar_t*>(&var));
  char* const* names = Mat_VarGetStructFieldnames(&var);
  if (!children.has_value() || fields == 0 || names == nullptr || index >= *children / fields) {
    return nullptr;
  }
  for (uint64_t f = 0; f < fields; ++f) {
    if (names[f] != nullptr && std::strcmp(names[f], name) == 0) {
      return static_cast<matvar_t* const*>(var.data)[index * fields + f];
    }
  }
  return nullptr;
}

}  // namespace wasserwarp::mat
