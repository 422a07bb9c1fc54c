// ListValidations' filter and order: what parses into which terms, where each error points,
// and that the SQL selects, in a real SQLite database, exactly the validations an independent
// evaluation of the same filter on plain structs selects.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "validations/validation_filter.h"
#include "validations/validation_filter_sql.h"
#include "wasserwarp/field_error.h"

namespace wasserwarp::service {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

absl::Time March1() { return absl::FromUnixSeconds(1772323200); }  // 2026-03-01T00:00:00Z

FilterTerm Term(FilterField field, FilterOperator op,
                std::variant<std::string, ValidationState, bool, absl::Time> value,
                std::string label_key = "") {
  return FilterTerm{.field = field, .label_key = std::move(label_key), .op = op, .value = value};
}

ValidationFilter Parsed(std::string_view text) {
  absl::StatusOr<ValidationFilter> filter = ParseValidationFilter(text);
  EXPECT_TRUE(filter.ok()) << text << ": " << filter.status();
  return filter.ok() ? *filter : ValidationFilter{};
}

// The filter is rejected as INVALID_ARGUMENT about `filter`, at exactly `position`.
void ExpectError(std::string_view text, int position, std::string_view detail) {
  absl::StatusOr<ValidationFilter> filter = ParseValidationFilter(text);
  ASSERT_FALSE(filter.ok()) << text;
  EXPECT_EQ(filter.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ErrorField(filter.status()), "filter");
  EXPECT_THAT(std::string(filter.status().message()),
              StartsWith(absl::StrCat("filter: at position ", position, ": ")))
      << text;
  EXPECT_THAT(std::string(filter.status().message()), HasSubstr(detail)) << text;
}

TEST(ValidationFilterTest, EmptyAndBlankFiltersHaveNoTerms) {
  EXPECT_TRUE(Parsed("").terms.empty());
  EXPECT_TRUE(Parsed(" \t\n ").terms.empty());
}

TEST(ValidationFilterTest, EveryOperatorOnCreateTime) {
  const std::vector<std::pair<std::string, FilterOperator>> operators = {
      {"=", FilterOperator::kEqual},   {"!=", FilterOperator::kNotEqual},
      {"<", FilterOperator::kLess},    {"<=", FilterOperator::kLessOrEqual},
      {">", FilterOperator::kGreater}, {">=", FilterOperator::kGreaterOrEqual}};
  for (const auto& [text, op] : operators) {
    EXPECT_THAT(Parsed(absl::StrCat("create_time ", text, " \"2026-03-01T00:00:00Z\"")).terms,
                ElementsAre(Term(FilterField::kCreateTime, op, March1())))
        << text;
    // Unquoted and without spaces too.
    EXPECT_THAT(Parsed(absl::StrCat("create_time", text, "2026-03-01T00:00:00Z")).terms,
                ElementsAre(Term(FilterField::kCreateTime, op, March1())))
        << text;
  }
}

TEST(ValidationFilterTest, TimesWithOffsetsAndFractions) {
  EXPECT_THAT(Parsed("create_time < \"2026-03-01T01:00:00.5+01:00\"").terms,
              ElementsAre(Term(FilterField::kCreateTime, FilterOperator::kLess,
                               March1() + absl::Milliseconds(500))));
}

TEST(ValidationFilterTest, EqualityFields) {
  EXPECT_THAT(
      Parsed("state = SUCCEEDED AND state != VALIDATION_STATE_FAILED AND "
             "state = \"CANCELLED\" AND outcome.passed = true AND "
             "outcome.passed != \"false\" AND labels.model = vdyn AND labels.model != x")
          .terms,
      ElementsAre(Term(FilterField::kState, FilterOperator::kEqual, ValidationState::kSucceeded),
                  Term(FilterField::kState, FilterOperator::kNotEqual, ValidationState::kFailed),
                  Term(FilterField::kState, FilterOperator::kEqual, ValidationState::kCancelled),
                  Term(FilterField::kPassed, FilterOperator::kEqual, true),
                  Term(FilterField::kPassed, FilterOperator::kNotEqual, false),
                  Term(FilterField::kLabel, FilterOperator::kEqual, "vdyn", "model"),
                  Term(FilterField::kLabel, FilterOperator::kNotEqual, "x", "model")));
  EXPECT_THAT(
      Parsed("state = QUEUED AND state = RUNNING").terms,
      ElementsAre(Term(FilterField::kState, FilterOperator::kEqual, ValidationState::kQueued),
                  Term(FilterField::kState, FilterOperator::kEqual, ValidationState::kRunning)));
}

TEST(ValidationFilterTest, QuotesEscapesAndWhitespace) {
  EXPECT_THAT(Parsed(R"(labels.note = "a \"quoted\" \\ AND b = c")").terms,
              ElementsAre(Term(FilterField::kLabel, FilterOperator::kEqual,
                               R"(a "quoted" \ AND b = c)", "note")));
  EXPECT_THAT(Parsed(R"(labels.note = "" AND labels.word = "AND")").terms,
              ElementsAre(Term(FilterField::kLabel, FilterOperator::kEqual, "", "note"),
                          Term(FilterField::kLabel, FilterOperator::kEqual, "AND", "word")));
  EXPECT_THAT(
      Parsed("  state=SUCCEEDED\tAND\noutcome.passed!=false  ").terms,
      ElementsAre(Term(FilterField::kState, FilterOperator::kEqual, ValidationState::kSucceeded),
                  Term(FilterField::kPassed, FilterOperator::kNotEqual, false)));
  EXPECT_THAT(Parsed("labels.k=v:1+2 AND labels.n = 0.5").terms,
              ElementsAre(Term(FilterField::kLabel, FilterOperator::kEqual, "v:1+2", "k"),
                          Term(FilterField::kLabel, FilterOperator::kEqual, "0.5", "n")));
}

TEST(ValidationFilterTest, LabelKeys) {
  EXPECT_THAT(
      Parsed("labels.example.com/model = vdyn").terms,
      ElementsAre(Term(FilterField::kLabel, FilterOperator::kEqual, "vdyn", "example.com/model")));
  EXPECT_TRUE(IsValidLabelKey("a"));
  EXPECT_TRUE(IsValidLabelKey("a1_.-z"));
  EXPECT_TRUE(IsValidLabelKey(std::string(63, 'a')));
  EXPECT_TRUE(IsValidLabelKey(absl::StrCat(std::string(63, 'd'), "/", std::string(63, 'k'))));
  for (const std::string& key :
       {std::string(""), std::string(64, 'a'), std::string("Model"), std::string("1a"),
        std::string("_a"), std::string("a/b/c"), std::string("/a"), std::string("a/"),
        std::string("A/a"), std::string("a/1"), std::string("a b")}) {
    EXPECT_FALSE(IsValidLabelKey(key)) << key;
  }
  ExpectError("labels.Model = x", 8, "\"Model\" is not a label key");
  ExpectError("labels.1x = y", 8, "is not a label key");
  ExpectError("state = QUEUED AND labels.a/b/c = y", 27, "\"a/b/c\" is not a label key");
  ExpectError("labels.example.com/ = y", 8, "is not a label key");
  ExpectError("labels. = y", 8, "\"\" is not a label key");
  ExpectError(absl::StrCat("labels.", std::string(64, 'a'), " = y"), 8, "is not a label key");
  ExpectError("labels = y", 1, "labels needs a key");
}

TEST(ValidationFilterTest, UnknownFieldsNameTheKnownOnes) {
  ExpectError("state = QUEUED AND owner = \"x\"", 20,
              "unknown field \"owner\"; the fields are labels.KEY, state, outcome.passed and "
              "create_time");
  ExpectError("outcome = true", 1, "unknown field \"outcome\"");
  ExpectError("State = QUEUED", 1, "unknown field \"State\"");
  ExpectError("AND state = QUEUED", 1, "unknown field \"AND\"");
  ExpectError("= QUEUED", 1,
              "expected a field (labels.KEY, state, outcome.passed and create_time)");
}

TEST(ValidationFilterTest, BadValues) {
  ExpectError("create_time >= \"yesterday\"", 16,
              "create_time wants an RFC 3339 time such as \"2026-03-01T00:00:00Z\", not "
              "\"yesterday\"");
  ExpectError("create_time > 2026-03-01", 15, "not \"2026-03-01\"");
  ExpectError("create_time < \"infinite-future\"", 15, "RFC 3339");
  ExpectError("state = DONE", 9, "\"DONE\" is not a validation state; the states are QUEUED");
  ExpectError("state = succeeded", 9, "is not a validation state");
  ExpectError("state = VALIDATION_STATE_UNSPECIFIED", 9, "is not a validation state");
  ExpectError("outcome.passed = yes", 18, "outcome.passed is true or false, not \"yes\"");
  ExpectError("outcome.passed = TRUE", 18, "true or false");
}

TEST(ValidationFilterTest, OperatorsAFieldDoesNotTake) {
  ExpectError("state < RUNNING", 7, "state takes only = and !=, not <");
  ExpectError("outcome.passed >= true", 16, "outcome.passed takes only = and !=, not >=");
  ExpectError("labels.model > \"a\"", 14, "labels.model takes only = and !=, not >");
  ExpectError("state == QUEUED", 7, "== is not an operator; use =");
}

TEST(ValidationFilterTest, MissingPieces) {
  ExpectError(
      "create_time \"2026-03-01T00:00:00Z\"", 13,
      "expected \"=\", \"!=\", \"<\", \"<=\", \">\" or \">=\" after create_time, got \"\\\"\"");
  ExpectError("state = QUEUED AND create_time", 31, "after create_time, got the end of the filter");
  ExpectError("labels.model:vdyn", 13, "after labels.model, got \":vdyn\"");
  ExpectError("state =", 8, "expected a value after =, got the end of the filter");
  ExpectError("state = AND outcome.passed = true", 9, "expected a value after =, got \"AND\"");
  ExpectError("state != = QUEUED", 10, "expected a value after !=, got \"=\"");
  ExpectError("labels.model = \"vdyn", 16, "the quoted value has no closing \"");
  ExpectError("labels.model = \"vdyn\\", 16, "no closing");
  ExpectError("labels.model = \"a\\n\"", 18, "unknown escape");
}

TEST(ValidationFilterTest, HowComparisonsJoin) {
  ExpectError("state = QUEUED outcome.passed = true", 16,
              "expected AND or the end of the filter, got \"outcome.passed\"");
  ExpectError("state = QUEUED AND", 19, "expected a comparison after AND");
  ExpectError("state = QUEUED AND  ", 21, "expected a comparison after AND");
  ExpectError("state = QUEUED AND AND state = RUNNING", 20, "unknown field \"AND\"");
  ExpectError("state = QUEUED and state = RUNNING", 16, "expected AND, in upper case");
  ExpectError("state = QUEUED OR state = RUNNING", 16, "OR is not supported");
  ExpectError("state = QUEUED ANDstate = RUNNING", 16, "got \"ANDstate\"");
  ExpectError("(state = QUEUED)", 1, "parentheses are not supported");
  ExpectError("NOT state = QUEUED", 1, "negation is not supported; use !=");
  ExpectError("-state = QUEUED", 1, "negation is not supported");
}

TEST(ValidationFilterTest, PositionsCountCharactersNotBytes) {
  // "é" is two bytes; the unknown field starts at the 24th character, the 25th byte.
  ExpectError("labels.model = \"\xc3\xa9\" AND x = 1", 24, "unknown field \"x\"");
}

TEST(ValidationFilterTest, Limits) {
  const std::string head = "labels.k = \"";
  // 2048 characters (4083 bytes) parse; one more does not, at the 2049th character.
  std::string value;
  for (int i = 0; i < 2035; ++i) value += "\xc3\xa9";
  EXPECT_EQ(Parsed(absl::StrCat(head, value, "\"")).terms.size(), 1u);
  ExpectError(absl::StrCat(head, value, "\" "), 2049, "longer than 2048 characters");
  ExpectError(std::string(100000, ' '), 2049, "longer than 2048 characters");

  std::vector<std::string> terms(32, "state = QUEUED");
  EXPECT_EQ(Parsed(absl::StrJoin(terms, " AND ")).terms.size(), 32u);
  terms.push_back("state = QUEUED");
  // Each "state = QUEUED AND " is 19 characters: the 33rd comparison starts at 32 * 19 + 1.
  ExpectError(absl::StrJoin(terms, " AND "), 609, "more than 32 comparisons");
}

TEST(ValidationOrderTest, CreateTimeEitherWay) {
  EXPECT_EQ(*ParseValidationOrder(""), ValidationOrder::kNewestFirst);
  EXPECT_EQ(*ParseValidationOrder("create_time desc"), ValidationOrder::kNewestFirst);
  EXPECT_EQ(*ParseValidationOrder("  create_time \t desc "), ValidationOrder::kNewestFirst);
  EXPECT_EQ(*ParseValidationOrder("create_time"), ValidationOrder::kOldestFirst);
  for (std::string_view bad : {"create_time asc", "create_time DESC", "update_time", "desc",
                               "create_time desc, key", "create_time desc desc"}) {
    absl::StatusOr<ValidationOrder> order = ParseValidationOrder(bad);
    ASSERT_FALSE(order.ok()) << bad;
    EXPECT_EQ(order.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(ErrorField(order.status()), "order_by");
    EXPECT_THAT(std::string(order.status().message()), HasSubstr("use \"create_time desc\""));
  }
  EXPECT_EQ(ValidationOrderSql(ValidationOrder::kNewestFirst), "v.create_time_ns DESC, v.key DESC");
  EXPECT_EQ(ValidationOrderSql(ValidationOrder::kOldestFirst), "v.create_time_ns ASC, v.key ASC");
}

TEST(ValidationFilterSqlTest, PostgresNumbersItsParametersFromTheFirst) {
  const SqlCondition sql = ValidationFilterSql(
      Parsed("labels.model = \"vdyn\" AND state != FAILED AND outcome.passed != true AND "
             "outcome.passed = false AND labels.example.com/k != x AND "
             "create_time >= \"2026-03-01T00:00:00Z\""),
      SqlDialect::kPostgres, 3);
  EXPECT_EQ(sql.where,
            "EXISTS (SELECT 1 FROM validation_labels l WHERE l.validation_key = v.key AND "
            "l.key = $3 AND l.value = $4) AND v.state != $5 AND "
            "v.passed IS DISTINCT FROM $6::boolean AND v.passed = $7::boolean AND "
            "NOT EXISTS (SELECT 1 FROM validation_labels l WHERE l.validation_key = v.key AND "
            "l.key = $8 AND l.value = $9) AND v.create_time_ns >= $10");
  EXPECT_THAT(sql.params,
              ElementsAre(SqlValue("model"), SqlValue("vdyn"), SqlValue(int64_t{4}),
                          SqlValue("true"), SqlValue("false"), SqlValue("example.com/k"),
                          SqlValue("x"), SqlValue(int64_t{1772323200} * 1000000000)));
}

TEST(ValidationFilterSqlTest, EmptyFilterIsTrue) {
  for (SqlDialect dialect : {SqlDialect::kSqlite, SqlDialect::kPostgres}) {
    const SqlCondition sql = ValidationFilterSql(ValidationFilter{}, dialect);
    EXPECT_EQ(sql.where, "1=1");
    EXPECT_TRUE(sql.params.empty());
  }
}

TEST(ValidationFilterSqlTest, SqliteText) {
  const SqlCondition sql = ValidationFilterSql(
      Parsed("outcome.passed != true AND create_time < 2026-03-01T00:00:00Z AND state = QUEUED"),
      SqlDialect::kSqlite, 7);
  EXPECT_EQ(sql.where, "v.passed IS NOT ? AND v.create_time_ns < ? AND v.state = ?");
  EXPECT_THAT(sql.params,
              ElementsAre(SqlValue(int64_t{1}), SqlValue(int64_t{1772323200} * 1000000000),
                          SqlValue(int64_t{1})));
}

// A validation as the SQL sees it, and as the reference evaluation below reads it.
struct Row {
  int64_t key;
  ValidationState state;
  std::optional<bool> passed;
  absl::Time create_time;
  std::map<std::string, std::string> labels;
};

std::vector<Row> Rows() {
  const absl::Time t = March1();
  const absl::Duration hour = absl::Hours(1);
  return {
      {1,
       ValidationState::kSucceeded,
       true,
       t,
       {{"model", "vdyn"}, {"example.com/model", "a \"quoted\" name"}}},
      {2, ValidationState::kSucceeded, false, t + hour, {{"model", "vdyn"}, {"track", "ice"}}},
      {3, ValidationState::kSucceeded, std::nullopt, t + 2 * hour, {{"model", "other"}}},
      {4, ValidationState::kFailed, std::nullopt, t + hour, {}},
      {5, ValidationState::kRunning, std::nullopt, t + absl::Nanoseconds(1), {{"model", "vdyn"}}},
      {6, ValidationState::kCancelled, std::nullopt, t - 24 * hour, {{"track", "ice"}}},
      {7, ValidationState::kQueued, std::nullopt, t + 3 * hour, {{"model", "VDYN"}, {"track", ""}}},
  };
}

// What a comparison means, written without SQL, for the SQL to agree with.
bool Holds(const FilterTerm& term, const Row& row) {
  const bool equal = term.op == FilterOperator::kEqual;
  switch (term.field) {
    case FilterField::kLabel: {
      const auto label = row.labels.find(term.label_key);
      return equal ==
             (label != row.labels.end() && label->second == std::get<std::string>(term.value));
    }
    case FilterField::kState:
      return equal == (row.state == std::get<ValidationState>(term.value));
    case FilterField::kPassed:
      return equal == (row.passed == std::get<bool>(term.value));
    case FilterField::kCreateTime: {
      const absl::Time a = row.create_time;
      const absl::Time b = std::get<absl::Time>(term.value);
      switch (term.op) {
        case FilterOperator::kEqual:
          return a == b;
        case FilterOperator::kNotEqual:
          return a != b;
        case FilterOperator::kLess:
          return a < b;
        case FilterOperator::kLessOrEqual:
          return a <= b;
        case FilterOperator::kGreater:
          return a > b;
        case FilterOperator::kGreaterOrEqual:
          return a >= b;
      }
    }
  }
  return false;
}

std::vector<int64_t> Expected(const ValidationFilter& filter) {
  std::vector<int64_t> keys;
  for (const Row& row : Rows()) {
    if (std::all_of(filter.terms.begin(), filter.terms.end(),
                    [&](const FilterTerm& term) { return Holds(term, row); })) {
      keys.push_back(row.key);
    }
  }
  return keys;
}

// The rows of Rows() in an in-memory SQLite database of the schema validation_filter_sql.h
// assumes.
class ValidationFilterSqliteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(sqlite3_open(":memory:", &db_), SQLITE_OK);
    Select(
        "CREATE TABLE validations (key INTEGER PRIMARY KEY, state INTEGER NOT NULL,"
        " passed INTEGER, create_time_ns INTEGER NOT NULL)");
    Select(
        "CREATE TABLE validation_labels (validation_key INTEGER NOT NULL REFERENCES"
        " validations (key), key TEXT NOT NULL, value TEXT NOT NULL,"
        " PRIMARY KEY (validation_key, key))");
    for (const Row& row : Rows()) {
      Select(absl::StrCat("INSERT INTO validations VALUES (", row.key, ", ",
                          static_cast<int>(row.state), ", ",
                          row.passed.has_value() ? (*row.passed ? "1" : "0") : "NULL", ", ",
                          absl::ToUnixNanos(row.create_time), ")"));
      for (const auto& [key, value] : row.labels) {
        Select("INSERT INTO validation_labels VALUES (?, ?, ?)", {row.key, key, value});
      }
    }
  }
  void TearDown() override { sqlite3_close(db_); }

  // Runs `sql` with `params` bound in order; the first column of its rows.
  std::vector<int64_t> Select(const std::string& sql, const std::vector<SqlValue>& params = {}) {
    std::vector<int64_t> keys;
    sqlite3_stmt* statement = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &statement, nullptr) != SQLITE_OK) {
      ADD_FAILURE() << sql << ": " << sqlite3_errmsg(db_);
      return keys;
    }
    EXPECT_EQ(sqlite3_bind_parameter_count(statement), static_cast<int>(params.size())) << sql;
    for (size_t i = 0; i < params.size(); ++i) {
      const int index = static_cast<int>(i) + 1;
      if (const int64_t* number = std::get_if<int64_t>(&params[i])) {
        sqlite3_bind_int64(statement, index, *number);
      } else {
        const std::string& text = std::get<std::string>(params[i]);
        sqlite3_bind_text(statement, index, text.data(), static_cast<int>(text.size()),
                          SQLITE_TRANSIENT);
      }
    }
    int step;
    while ((step = sqlite3_step(statement)) == SQLITE_ROW) {
      keys.push_back(sqlite3_column_int64(statement, 0));
    }
    EXPECT_EQ(step, SQLITE_DONE) << sql << ": " << sqlite3_errmsg(db_);
    sqlite3_finalize(statement);
    return keys;
  }

  std::vector<int64_t> Selected(std::string_view text) {
    const SqlCondition sql = ValidationFilterSql(Parsed(text), SqlDialect::kSqlite);
    return Select(
        absl::StrCat("SELECT v.key FROM validations v WHERE ", sql.where, " ORDER BY v.key"),
        sql.params);
  }

  sqlite3* db_ = nullptr;
};

// The semantics validation_filter_sql.h documents, pinned by hand, so that the reference
// evaluation is checked too.
TEST_F(ValidationFilterSqliteTest, MissingLabelsAndDecisions) {
  EXPECT_THAT(Selected("labels.model != vdyn"), ElementsAre(3, 4, 6, 7));
  EXPECT_THAT(Selected("labels.track = \"\""), ElementsAre(7));
  EXPECT_THAT(Selected("outcome.passed != true"), ElementsAre(2, 3, 4, 5, 6, 7));
  EXPECT_THAT(Selected("outcome.passed = false"), ElementsAre(2));
  EXPECT_THAT(Selected("create_time = 2026-03-01T01:00:00Z"), ElementsAre(2, 4));
  EXPECT_THAT(Selected(""), ElementsAre(1, 2, 3, 4, 5, 6, 7));
}

// Every comparison alone and every pair of them select what the reference evaluation does.
TEST_F(ValidationFilterSqliteTest, AgreesWithTheReferenceEvaluation) {
  std::vector<std::string> atoms = {
      "state = SUCCEEDED",
      "state != SUCCEEDED",
      "state = VALIDATION_STATE_QUEUED",
      "state != CANCELLED",
      "outcome.passed = true",
      "outcome.passed = false",
      "outcome.passed != true",
      "outcome.passed != false",
      "labels.model = vdyn",
      "labels.model != vdyn",
      "labels.model = VDYN",
      "labels.track = \"\"",
      "labels.track != \"\"",
      "labels.track = ice",
      R"(labels.example.com/model = "a \"quoted\" name")",
      R"(labels.example.com/model != "a \"quoted\" name")",
      "labels.absent = x",
      "labels.absent != x",
  };
  for (const char* op : {"=", "!=", "<", "<=", ">", ">="}) {
    atoms.push_back(absl::StrCat("create_time ", op, " 2026-03-01T01:00:00Z"));
    atoms.push_back(absl::StrCat("create_time ", op, " \"2026-03-01T00:00:00.000000001Z\""));
  }
  int distinct_selections = 0;
  for (const std::string& first : atoms) {
    const std::vector<int64_t> expected = Expected(Parsed(first));
    EXPECT_EQ(Selected(first), expected) << first;
    if (!expected.empty() && expected.size() < Rows().size()) ++distinct_selections;
    for (const std::string& second : atoms) {
      const std::string both = absl::StrCat(first, " AND ", second);
      EXPECT_EQ(Selected(both), Expected(Parsed(both))) << both;
    }
  }
  // Nearly every comparison separates the rows: the agreement above is not vacuous.
  EXPECT_GE(distinct_selections, static_cast<int>(atoms.size()) - 2);
}

// The caller's own `?`s come before and after the filter's, and the order breaks ties by key.
TEST_F(ValidationFilterSqliteTest, WithTheCallersParametersAndOrder) {
  const SqlCondition sql = ValidationFilterSql(
      Parsed("labels.model != \"x\" AND create_time >= 2026-03-01T00:00:00Z"), SqlDialect::kSqlite);
  for (ValidationOrder order : {ValidationOrder::kNewestFirst, ValidationOrder::kOldestFirst}) {
    std::vector<SqlValue> params = {int64_t{1}};
    params.insert(params.end(), sql.params.begin(), sql.params.end());
    params.push_back(int64_t{4});
    const std::vector<int64_t> keys =
        Select(absl::StrCat("SELECT v.key FROM validations v WHERE v.key > ? AND ", sql.where,
                            " ORDER BY ", std::string(ValidationOrderSql(order)), " LIMIT ?"),
               params);
    if (order == ValidationOrder::kNewestFirst) {
      EXPECT_THAT(keys, ElementsAre(7, 3, 4, 2));
    } else {
      EXPECT_THAT(keys, ElementsAre(5, 2, 4, 3));
    }
  }
}

}  // namespace
}  // namespace wasserwarp::service
