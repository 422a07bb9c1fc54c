#include "storage/postgres.h"

#include <libpq-fe.h>
#include <poll.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/string_view.h"
#include "storage/postgres_secrets.h"

namespace wasserwarp::service::postgres {
namespace {

// PostgreSQL's type OIDs (catalog/pg_type_d.h, which only the server's headers have).
constexpr Oid kInt8Oid = 20;
constexpr Oid kFloat8Oid = 701;
constexpr Oid kByteaOid = 17;

absl::string_view View(std::string_view s) { return absl::string_view(s.data(), s.size()); }

// libpq's own message, on one line, without the passwords of `url` and `password`.
std::string LibpqMessage(PGconn* conn, std::string_view url, std::string_view password = {}) {
  std::string message = conn != nullptr ? PQerrorMessage(conn) : "out of memory";
  absl::StrReplaceAll({{"\n", " "}}, &message);
  message = WithoutPasswords(std::move(message), url, password);
  return std::string(absl::StripAsciiWhitespace(message));
}

// The errors after which the server has ended, or will end, the session.
bool EndsConnection(std::string_view sqlstate) {
  return absl::StartsWith(View(sqlstate), "08") || sqlstate == "57P01" || sqlstate == "57P02" ||
         sqlstate == "57P03";
}

void IgnoreNotice(void*, const char*) {}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void PutBigEndian(uint64_t value, char* out) {
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((value >> (56 - 8 * i)) & 0xff);
}

}  // namespace

absl::Status PostgresError(std::string_view sqlstate, bool connection_broken,
                           std::string_view database, std::string_view doing,
                           std::string_view message) {
  std::string text =
      absl::StrCat("PostgreSQL ", View(database), ": ", View(doing), ": ", View(message));
  if (!sqlstate.empty()) absl::StrAppend(&text, " [SQLSTATE ", View(sqlstate), "]");
  if (connection_broken || EndsConnection(sqlstate)) return absl::UnavailableError(text);
  if (sqlstate == "40001" || sqlstate == "40P01") return absl::AbortedError(text);
  if (sqlstate == "23505") return absl::AlreadyExistsError(text);
  if (sqlstate == "57014") return absl::DeadlineExceededError(text);
  if (sqlstate == "55P03") return absl::UnavailableError(text);
  return absl::InternalError(text);
}

Param Param::Int64(int64_t value) {
  Param param(Kind::kInt64);
  PutBigEndian(static_cast<uint64_t>(value), param.binary_);
  return param;
}

Param Param::Double(double value) {
  Param param(Kind::kDouble);
  PutBigEndian(std::bit_cast<uint64_t>(value), param.binary_);
  return param;
}

Param Param::Text(std::string_view text) {
  Param param(Kind::kText);
  param.data_ = text;
  return param;
}

Param Param::Bytes(std::string_view bytes) {
  Param param(Kind::kBytes);
  param.data_ = bytes;
  return param;
}

Result::Result(PGresult* result)
    : result_(result, [](const PGresult* r) { PQclear(const_cast<PGresult*>(r)); }) {}

int Result::rows() const { return result_ ? PQntuples(result_.get()) : 0; }
int Result::columns() const { return result_ ? PQnfields(result_.get()) : 0; }

int64_t Result::affected_rows() const {
  int64_t rows = 0;
  if (result_ && absl::SimpleAtoi(PQcmdTuples(const_cast<PGresult*>(result_.get())), &rows))
    return rows;
  return 0;
}

absl::Status Result::CheckCell(int row, int column) const {
  if (row < 0 || row >= rows() || column < 0 || column >= columns()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("no cell at row %d, column %d of a result of %d rows and %d columns", row,
                        column, rows(), columns()));
  }
  if (PQgetisnull(result_.get(), row, column)) {
    return absl::InvalidArgumentError(absl::StrFormat("row %d, column %d (%s) is NULL", row, column,
                                                      PQfname(result_.get(), column)));
  }
  return absl::OkStatus();
}

absl::Status Result::NotA(int row, int column, std::string_view type) const {
  std::string_view text = GetText(row, column);
  const bool long_text = text.size() > 40;
  return absl::InvalidArgumentError(absl::StrFormat(
      "row %d, column %d (%s) is not %s: \"%s%s\"", row, column, PQfname(result_.get(), column),
      View(type), View(text.substr(0, 40)), long_text ? "..." : ""));
}

bool Result::IsNull(int row, int column) const {
  return row < 0 || row >= rows() || column < 0 || column >= columns() ||
         PQgetisnull(result_.get(), row, column);
}

std::string_view Result::GetText(int row, int column) const {
  if (IsNull(row, column)) return {};
  return std::string_view(PQgetvalue(result_.get(), row, column),
                          static_cast<size_t>(PQgetlength(result_.get(), row, column)));
}

absl::StatusOr<int64_t> Result::GetInt64(int row, int column) const {
  if (absl::Status status = CheckCell(row, column); !status.ok()) return status;
  int64_t value = 0;
  if (!absl::SimpleAtoi(View(GetText(row, column)), &value)) return NotA(row, column, "an int64");
  return value;
}

absl::StatusOr<double> Result::GetDouble(int row, int column) const {
  if (absl::Status status = CheckCell(row, column); !status.ok()) return status;
  // PostgreSQL's names of the values that are not finite numbers.
  const std::string_view text = GetText(row, column);
  if (text == "NaN") return std::numeric_limits<double>::quiet_NaN();
  if (text == "Infinity") return std::numeric_limits<double>::infinity();
  if (text == "-Infinity") return -std::numeric_limits<double>::infinity();
  double value = 0;
  if (!absl::SimpleAtod(View(text), &value)) return NotA(row, column, "a double");
  return value;
}

absl::StatusOr<bool> Result::GetBool(int row, int column) const {
  if (absl::Status status = CheckCell(row, column); !status.ok()) return status;
  const std::string_view text = GetText(row, column);
  if (text == "t") return true;
  if (text == "f") return false;
  return NotA(row, column, "a boolean");
}

absl::StatusOr<std::string> Result::GetBytes(int row, int column) const {
  if (absl::Status status = CheckCell(row, column); !status.ok()) return status;
  // Text would decode as bytea's escape format, wrongly; the column's type tells them apart.
  if (PQftype(result_.get(), column) != kByteaOid) return NotA(row, column, "bytea");
  const std::string_view text = GetText(row, column);
  if (absl::StartsWith(View(text), "\\x")) {  // bytea_output = hex, the default
    if (text.size() % 2 != 0) return NotA(row, column, "bytea");
    std::string bytes(text.size() / 2 - 1, '\0');
    for (size_t i = 0; i < bytes.size(); ++i) {
      const int high = HexDigit(text[2 + 2 * i]);
      const int low = HexDigit(text[3 + 2 * i]);
      if (high < 0 || low < 0) return NotA(row, column, "bytea");
      bytes[i] = static_cast<char>(high << 4 | low);
    }
    return bytes;
  }
  // bytea_output = escape, where a server sets it.
  size_t length = 0;
  unsigned char* decoded =
      PQunescapeBytea(reinterpret_cast<const unsigned char*>(text.data()), &length);
  if (decoded == nullptr) return NotA(row, column, "bytea");
  std::string bytes(reinterpret_cast<const char*>(decoded), length);
  PQfreemem(decoded);
  return bytes;
}

absl::StatusOr<Connection> Connection::Open(const std::string& url, absl::Duration connect_timeout,
                                            const ConnectionSettings& settings) {
  const auto seconds = [](absl::Duration d) {
    return std::to_string(std::max<int64_t>(1, absl::ToInt64Seconds(d)));
  };
  const std::string timeout =
      std::to_string(std::max<int64_t>(2, absl::ToInt64Seconds(connect_timeout)));
  const std::string idle = seconds(settings.keepalives_idle);
  const std::string interval = seconds(settings.keepalives_interval);
  const std::string count = std::to_string(std::max(1, settings.keepalives_count));
  const bool keepalives = settings.keepalives_idle > absl::ZeroDuration();
  // Before dbname, so that what the URL sets wins.
  std::vector<const char*> keywords = {"connect_timeout", "client_encoding", "keepalives"};
  std::vector<const char*> values = {timeout.c_str(), "UTF8", keepalives ? "1" : "0"};
  if (keepalives) {
    keywords.insert(keywords.end(), {"keepalives_idle", "keepalives_interval", "keepalives_count"});
    values.insert(values.end(), {idle.c_str(), interval.c_str(), count.c_str()});
  }
  if (!settings.password.empty()) {
    keywords.push_back("password");
    values.push_back(settings.password.c_str());
  }
  keywords.insert(keywords.end(), {"dbname", nullptr});
  values.insert(values.end(), {url.c_str(), nullptr});
  PGconn* conn = PQconnectdbParams(keywords.data(), values.data(), /*expand_dbname=*/1);
  std::string redacted = RedactedUrl(url);
  if (conn == nullptr || PQstatus(conn) != CONNECTION_OK) {
    std::string message = LibpqMessage(conn, url, settings.password);
    absl::Status error = PostgresError("", true, redacted, "connecting", message);
    PQfinish(conn);
    return error;
  }
  // The server's notices ("... already exists, skipping") would go to stderr otherwise.
  PQsetNoticeProcessor(conn, IgnoreNotice, nullptr);
  Connection connection(conn, std::move(redacted));
  // After connecting rather than in the options keyword, so that a URL's own options= stay.
  const auto milliseconds = [](absl::Duration d) {
    return std::to_string(std::max<int64_t>(0, absl::ToInt64Milliseconds(d)));
  };
  const std::string statement = milliseconds(settings.statement_timeout);
  const std::string lock = milliseconds(settings.lock_timeout);
  const std::string idle_in_transaction = milliseconds(settings.idle_in_transaction_timeout);
  absl::StatusOr<Result> set = connection.Exec(
      "SELECT set_config('statement_timeout', $1, false), set_config('lock_timeout', $2, false), "
      "set_config('idle_in_transaction_session_timeout', $3, false)",
      {Param::Text(statement), Param::Text(lock), Param::Text(idle_in_transaction)},
      "setting the connection's timeouts");
  if (!set.ok()) return set.status();
  return connection;
}

Connection::Connection(Connection&& other) noexcept
    : conn_(std::exchange(other.conn_, nullptr)),
      redacted_url_(std::move(other.redacted_url_)),
      broken_(other.broken_) {}

Connection& Connection::operator=(Connection&& other) noexcept {
  if (this != &other) {
    PQfinish(conn_);
    conn_ = std::exchange(other.conn_, nullptr);
    redacted_url_ = std::move(other.redacted_url_);
    broken_ = other.broken_;
  }
  return *this;
}

Connection::~Connection() { PQfinish(conn_); }

absl::Status Connection::Error(const PGresult* result, std::string_view doing) {
  std::string sqlstate;
  std::string message;
  if (result != nullptr) {
    if (const char* field = PQresultErrorField(result, PG_DIAG_SQLSTATE)) sqlstate = field;
    if (const char* primary = PQresultErrorField(result, PG_DIAG_MESSAGE_PRIMARY)) {
      message = primary;
      if (const char* detail = PQresultErrorField(result, PG_DIAG_MESSAGE_DETAIL))
        absl::StrAppend(&message, " (", detail, ")");
    }
  }
  // libpq's own errors (a lost connection) come without a primary message.
  if (message.empty())
    message = conn_ != nullptr ? LibpqMessage(conn_, "") : "no connection (moved from)";
  if (conn_ == nullptr || PQstatus(conn_) != CONNECTION_OK || EndsConnection(sqlstate))
    broken_ = true;
  return PostgresError(sqlstate, broken_, redacted_url_, doing, message);
}

absl::StatusOr<Result> Connection::Exec(const std::string& sql, const std::vector<Param>& params,
                                        std::string_view doing) {
  const size_t n = params.size();
  std::vector<Oid> types(n, 0);
  std::vector<const char*> values(n, nullptr);
  std::vector<int> lengths(n, 0);
  std::vector<int> formats(n, 0);
  // Text goes as text, which libpq wants NUL-terminated.
  std::vector<std::string> texts;
  texts.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const Param& param = params[i];
    switch (param.kind_) {
      case Param::Kind::kNull:
        break;
      case Param::Kind::kInt64:
      case Param::Kind::kDouble:
        types[i] = param.kind_ == Param::Kind::kInt64 ? kInt8Oid : kFloat8Oid;
        values[i] = param.binary_;
        lengths[i] = 8;
        formats[i] = 1;
        break;
      case Param::Kind::kText:
        if (param.data_.find('\0') != std::string_view::npos) {
          return absl::InvalidArgumentError(
              absl::StrCat("PostgreSQL ", redacted_url_, ": ", View(doing), ": parameter $", i + 1,
                           " holds a NUL byte at offset ", param.data_.find('\0'),
                           ", which PostgreSQL text cannot store"));
        }
        values[i] = texts.emplace_back(param.data_).c_str();
        break;
      case Param::Kind::kBytes:
        types[i] = kByteaOid;
        // A null pointer would send NULL, not an empty value.
        values[i] = param.data_.empty() ? "" : param.data_.data();
        lengths[i] = static_cast<int>(param.data_.size());
        formats[i] = 1;
        break;
    }
  }
  PGresult* result = PQexecParams(conn_, sql.c_str(), static_cast<int>(n), types.data(),
                                  values.data(), lengths.data(), formats.data(), 0);
  const ExecStatusType status = result != nullptr ? PQresultStatus(result) : PGRES_FATAL_ERROR;
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK || status == PGRES_EMPTY_QUERY)
    return Result(result);
  absl::Status error = Error(result, doing);
  PQclear(result);
  return error;
}

absl::Status Connection::Begin(Isolation isolation) {
  const char* sql = "BEGIN";
  if (isolation == Isolation::kRepeatableRead) sql = "BEGIN ISOLATION LEVEL REPEATABLE READ";
  if (isolation == Isolation::kSerializable) sql = "BEGIN ISOLATION LEVEL SERIALIZABLE";
  return Exec(sql, "beginning a transaction").status();
}

absl::Status Connection::Commit() {
  // COMMIT of a failed transaction rolls it back and reports success; say what happened.
  if (PQtransactionStatus(conn_) == PQTRANS_INERROR) {
    (void)Rollback();
    return PostgresError("", false, redacted_url_, "committing",
                         "the transaction had failed, so it was rolled back");
  }
  return Exec("COMMIT", "committing").status();
}

absl::Status Connection::Rollback() { return Exec("ROLLBACK", "rolling back").status(); }

bool Connection::Broken() {
  if (broken_ || conn_ == nullptr || PQstatus(conn_) != CONNECTION_OK) return broken_ = true;
  // An idle connection has nothing to read: what is there is the server's goodbye (an error
  // and end of file), which libpq sees only when it reads. A few reads reach the end.
  for (int i = 0; i < 4; ++i) {
    pollfd fd = {PQsocket(conn_), POLLIN, 0};
    if (fd.fd < 0) return broken_ = true;
    if (poll(&fd, 1, 0) <= 0) break;
    if (!PQconsumeInput(conn_) || PQstatus(conn_) != CONNECTION_OK) return broken_ = true;
  }
  return false;
}

bool Connection::InTransaction() const {
  const PGTransactionStatusType status = PQtransactionStatus(conn_);
  return status == PQTRANS_INTRANS || status == PQTRANS_INERROR;
}

std::string Connection::database() const {
  const char* name = conn_ != nullptr ? PQdb(conn_) : nullptr;
  return name != nullptr ? name : "";
}

Transaction::~Transaction() {
  if (open_ && connection_.InTransaction()) (void)connection_.Rollback();
}

absl::Status Transaction::Begin(Isolation isolation) {
  absl::Status status = connection_.Begin(isolation);
  open_ = status.ok();
  return status;
}

absl::Status Transaction::Commit() {
  // A failed COMMIT has ended the transaction too, unless the connection is gone.
  return connection_.Commit();
}

}  // namespace wasserwarp::service::postgres
