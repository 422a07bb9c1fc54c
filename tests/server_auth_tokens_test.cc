// The token file of --auth_tokens_file: its parsing and errors (which never show a token), the
// constant-time lookup of a caller's token, and reloads that keep the old tokens on error.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ops/auth_tokens.h"
#include "scratch_dir.h"

namespace wasserwarp::service {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

using test_support::ScratchDir;
using test_support::WriteFile;

// --- the token file ---

TEST(TokenFileTest, ParsesPrincipalsAndTokens) {
  absl::StatusOr<std::vector<TokenEntry>> entries = ParseTokenFile(
      "# benches of lab 3\n"
      "\n"
      "bench-a:s3cr3t-a\r\n"
      "  bench-b :\tb:with:colons  \n"
      "bench-a:rotated-a",
      "tokens");
  ASSERT_TRUE(entries.ok()) << entries.status();
  ASSERT_EQ(entries->size(), 3u);
  EXPECT_EQ((*entries)[0].principal, "bench-a");
  EXPECT_EQ((*entries)[0].token, "s3cr3t-a");
  EXPECT_EQ((*entries)[1].principal, "bench-b");
  EXPECT_EQ((*entries)[1].token, "b:with:colons");
  EXPECT_EQ((*entries)[2].principal, "bench-a");
  EXPECT_EQ((*entries)[2].token, "rotated-a");
}

TEST(TokenFileTest, ErrorsNameFileAndLineButNeverTheToken) {
  struct Case {
    std::string text;
    std::string message;
  };
  const Case cases[] = {
      {"a:1\nno-colon-secret\n", "tokens.txt:2: expected principal:token"},
      {"\n:secret\n", "tokens.txt:2: the principal must be printable ASCII"},
      {"a b:secret\n", "tokens.txt:1: the principal must be printable ASCII"},
      {"a:\n", "tokens.txt:1: the token of principal \"a\" must be printable ASCII"},
      {"a:sec ret\n", "tokens.txt:1: the token of principal \"a\" must be printable ASCII"},
      {"a:secr\xc3\xa9t\n", "tokens.txt:1: the token of principal \"a\" must be printable ASCII"},
      {"a:secret\n#\nb:secret\n", "tokens.txt:3: the token of line 1 again"},
      {"", "tokens.txt: holds no principal:token line"},
      {"# only comments\n\n", "tokens.txt: holds no principal:token line"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<std::vector<TokenEntry>> entries = ParseTokenFile(c.text, "tokens.txt");
    ASSERT_FALSE(entries.ok()) << c.text;
    EXPECT_EQ(entries.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(entries.status().message(), HasSubstr(c.message)) << c.text;
    EXPECT_THAT(entries.status().message(), Not(HasSubstr("secret")));
  }
}

TEST(ConstantTimeEqualsTest, IsStringEquality) {
  EXPECT_TRUE(ConstantTimeEquals("", ""));
  EXPECT_TRUE(ConstantTimeEquals("token", "token"));
  EXPECT_FALSE(ConstantTimeEquals("", "token"));
  EXPECT_FALSE(ConstantTimeEquals("token", ""));
  EXPECT_FALSE(ConstantTimeEquals("tok", "token"));
  EXPECT_FALSE(ConstantTimeEquals("tokens", "token"));
  EXPECT_FALSE(ConstantTimeEquals("Token", "token"));
  EXPECT_FALSE(ConstantTimeEquals("tokeN", "token"));
  // The secret repeated to the length of the guess must not match it.
  EXPECT_FALSE(ConstantTimeEquals("abab", "ab"));
  EXPECT_FALSE(ConstantTimeEquals(std::string_view("a\0", 2), "a"));
}

TEST(ConstantTimeEqualsTest, AgreesWithOperatorEqualsOnRandomStrings) {
  std::mt19937_64 rng(6);
  std::uniform_int_distribution<int> length(0, 6);
  std::uniform_int_distribution<int> letter('a', 'c');
  const auto random_string = [&] {
    std::string s(length(rng), ' ');
    for (char& c : s) c = static_cast<char>(letter(rng));
    return s;
  };
  int equal = 0;
  for (int i = 0; i < 20000; ++i) {
    const std::string a = random_string();
    const std::string b = random_string();
    ASSERT_EQ(ConstantTimeEquals(a, b), a == b) << "\"" << a << "\" vs \"" << b << "\"";
    equal += a == b;
  }
  // Both outcomes were exercised.
  EXPECT_GT(equal, 0);
}

TEST(FindPrincipalTest, FindsTheEntryOfTheToken) {
  const std::vector<TokenEntry> entries = {{"a", "t1"}, {"b", "t2"}, {"a", "t3"}};
  EXPECT_EQ(FindPrincipal(entries, "t1"), "a");
  EXPECT_EQ(FindPrincipal(entries, "t2"), "b");
  EXPECT_EQ(FindPrincipal(entries, "t3"), "a");
  EXPECT_EQ(FindPrincipal(entries, "t4"), std::nullopt);
  EXPECT_EQ(FindPrincipal(entries, ""), std::nullopt);
  EXPECT_EQ(FindPrincipal({}, "t1"), std::nullopt);
}

TEST(AuthTokensTest, ReloadSwapsTheTokensAndKeepsThemOnError) {
  const ScratchDir dir("security_");
  const std::filesystem::path file = dir.root() / "tokens";
  EXPECT_THAT(AuthTokens::Load(file.string()).status().message(),
              HasSubstr(absl::StrCat("--auth_tokens_file: cannot read ", file.string())));

  WriteFile(file, "a:old\n");
  absl::StatusOr<std::unique_ptr<AuthTokens>> tokens = AuthTokens::Load(file.string());
  ASSERT_TRUE(tokens.ok()) << tokens.status();
  AuthTokens& store = **tokens;
  EXPECT_EQ(store.PrincipalOf("old"), "a");

  WriteFile(file, "a:new\nb:other\n");
  ASSERT_TRUE(store.Reload().ok());
  EXPECT_EQ(store.PrincipalOf("old"), std::nullopt);
  EXPECT_EQ(store.PrincipalOf("new"), "a");
  EXPECT_EQ(store.PrincipalOf("other"), "b");
  EXPECT_EQ(store.size(), 2u);

  WriteFile(file, "a:new\nbroken\n");
  const absl::Status bad = store.Reload();
  EXPECT_THAT(bad.message(), HasSubstr(absl::StrCat(file.string(), ":2:")));
  EXPECT_EQ(store.PrincipalOf("other"), "b");

  std::filesystem::remove(file);
  EXPECT_FALSE(store.Reload().ok());
  EXPECT_EQ(store.PrincipalOf("new"), "a");
}

}  // namespace
}  // namespace wasserwarp::service
