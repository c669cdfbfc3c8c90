// The test suite's FileCheck (test/support/filecheck.h): every directive must
// pass on a matching output and, as important, FAIL on a wrong expectation,
// with a message that names the directive's line and shows the output.
#include <gtest/gtest.h>

#include "support/filecheck.h"

namespace tritonc::test {
namespace {

const char* const kOutput = R"(kernel @k(%a: f32*, %n: i32) {
entry:
  %0 = range 0 : i32<16>
  %x = add %0, %0 : i32<16>
  %y = mul %x,   %x : i32<16>
  %p = splat %a : f32*<16>
  ret
}

kernel @other() {
entry:
  %z = range 8 : i32<4>
  ret
}
)";

CheckResult check(const std::string& checks) { return fileCheck(checks, kOutput, "t.tir"); }

#define EXPECT_PASS(checks)                       \
  do {                                            \
    CheckResult r_ = check(checks);               \
    EXPECT_TRUE(r_.ok) << r_.message;             \
  } while (0)
#define EXPECT_FAIL(checks) EXPECT_FALSE(check(checks).ok) << "expected a failure for:\n" << (checks)

TEST(FileCheck, CheckInOrder) {
  EXPECT_PASS("; CHECK: range 0\n; CHECK: add\n; CHECK: ret\n");
  EXPECT_FAIL("; CHECK: add\n; CHECK: range 0\n");  // out of order
  EXPECT_FAIL("; CHECK: sub\n");
  // Several matches on one line, left to right.
  EXPECT_PASS("; CHECK: %x = add\n; CHECK: %0, %0\n");
  EXPECT_FAIL("; CHECK: %0, %0\n; CHECK: %x = add\n");
}

TEST(FileCheck, WhitespaceRunsCollapse) {
  EXPECT_PASS("; CHECK: %y = mul %x, %x\n");          // output has three spaces
  EXPECT_PASS("; CHECK:    %x   =   add  %0, %0   \n");  // pattern has extra spaces
  EXPECT_FAIL("; CHECK: %x=add\n");                    // but whitespace is not optional
  EXPECT_FAIL("; CHECK: add %0,%0\n");
}

TEST(FileCheck, LiteralRegexCharacters) {
  EXPECT_PASS("; CHECK: f32*<16>\n");
  EXPECT_PASS("; CHECK: @k(%a: f32*, %n: i32) {\n");
  EXPECT_FAIL("; CHECK: f32.<16>\n");  // '.' is not a wildcard outside {{ }}
}

TEST(FileCheck, RegexFragments) {
  EXPECT_PASS("; CHECK: %{{[0-9]+}} = range\n");
  EXPECT_PASS("; CHECK: range {{[0-9]}} : i32<{{[0-9]{2}}}>\n");  // a brace inside the regex
  EXPECT_FAIL("; CHECK: %{{[0-9]+}} = add\n");
  EXPECT_PASS("; CHECK: %x = {{add|sub}}\n");
  std::string err;
  EXPECT_TRUE(parseCheckDirectives("; CHECK: {{[0-9}}\n", 1, &err).empty());
  EXPECT_NE(err.find("invalid regex"), std::string::npos) << err;
  EXPECT_TRUE(parseCheckDirectives("; CHECK: {{abc\n", 1, &err).empty());
  EXPECT_NE(err.find("unterminated"), std::string::npos) << err;
}

TEST(FileCheck, CheckNext) {
  EXPECT_PASS("; CHECK: %0 = range\n; CHECK-NEXT: %x = add\n; CHECK-NEXT: %y = mul\n");
  EXPECT_FAIL("; CHECK: %0 = range\n; CHECK-NEXT: %y = mul\n");  // two lines down
  EXPECT_FAIL("; CHECK: %x = add\n; CHECK-NEXT: %0 = range\n");  // the line before
  EXPECT_FAIL("; CHECK: %x = add\n; CHECK-NEXT: %x = add\n");    // the same line
}

TEST(FileCheck, CheckSame) {
  EXPECT_PASS("; CHECK: %x = add\n; CHECK-SAME: : i32<16>\n");
  EXPECT_FAIL("; CHECK: %x = add\n; CHECK-SAME: %x\n");        // before the match
  EXPECT_FAIL("; CHECK: %x = add\n; CHECK-SAME: mul\n");       // on the next line
  EXPECT_PASS("; CHECK: %p = splat\n; CHECK-SAME: %a\n; CHECK-SAME: f32*<16>\n");
}

TEST(FileCheck, CheckNot) {
  EXPECT_PASS("; CHECK: entry:\n; CHECK-NOT: sub\n; CHECK: ret\n");
  EXPECT_FAIL("; CHECK: entry:\n; CHECK-NOT: add\n; CHECK: ret\n");  // between the matches
  // Only the range between the surrounding matches counts.
  EXPECT_PASS("; CHECK: %x = add\n; CHECK-NOT: range 0\n; CHECK: ret\n");
  EXPECT_PASS("; CHECK: range 0\n; CHECK-NOT: add\n; CHECK: add\n");
  // A trailing CHECK-NOT looks up to the end of the output.
  EXPECT_FAIL("; CHECK: @k\n; CHECK-NOT: range 8\n");
  EXPECT_PASS("; CHECK: range 8\n; CHECK-NOT: range 0\n");
  // A leading one from the start.
  EXPECT_FAIL("; CHECK-NOT: kernel\n; CHECK: entry\n");
  // On the same line, before and after the match.
  EXPECT_FAIL("; CHECK: %x = add\n; CHECK-NOT: i32<16>\n; CHECK-NEXT: %y\n");
  EXPECT_PASS("; CHECK-NOT: i1\n");
}

TEST(FileCheck, CheckLabelRegions) {
  EXPECT_PASS("; CHECK-LABEL: @k(\n; CHECK: range 0\n; CHECK-LABEL: @other(\n; CHECK: range 8\n");
  // `add` is in @k's region, not in @other's.
  EXPECT_FAIL("; CHECK-LABEL: @k(\n; CHECK-LABEL: @other(\n; CHECK: add\n");
  // `range 8` is after @k, but not in its region.
  EXPECT_FAIL("; CHECK-LABEL: @k(\n; CHECK: range 8\n; CHECK-LABEL: @other(\n");
  // CHECK-NOT stops at the next label.
  EXPECT_PASS("; CHECK-LABEL: @k(\n; CHECK-NOT: range 8\n; CHECK-LABEL: @other(\n");
  EXPECT_FAIL("; CHECK-LABEL: @other(\n; CHECK-LABEL: @k(\n");  // labels are ordered
  EXPECT_PASS("; CHECK-LABEL: kernel @other\n; CHECK-NEXT: entry:\n");
}

TEST(FileCheck, DirectivesOnlyInCommentLines) {
  std::string err;
  auto d = parseCheckDirectives("  %x = add %a, %b ; CHECK: nothing\n// CHECK: a\n# CHECK-NOT: b\n  ; CHECK-LABEL: c\n",
                                10, &err);
  ASSERT_EQ(err, "");
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0].kind, CheckDirective::Kind::Check);
  EXPECT_EQ(d[0].line, 11);
  EXPECT_EQ(d[0].pattern, "a");
  EXPECT_EQ(d[1].kind, CheckDirective::Kind::Not);
  EXPECT_EQ(d[2].kind, CheckDirective::Kind::Label);
  EXPECT_EQ(d[2].line, 13);
  // RUN lines and prose are not directives; the words must be exact.
  EXPECT_TRUE(parseCheckDirectives("; RUN: passes=cse\n; PRECHECK: x\n; checks that\n", 1, &err).empty());
  EXPECT_EQ(err, "");
}

TEST(FileCheck, MalformedDirectives) {
  std::string err;
  EXPECT_TRUE(parseCheckDirectives("; CHECK-NXET: x\n", 1, &err).empty());
  EXPECT_NE(err.find("unknown directive"), std::string::npos) << err;
  EXPECT_TRUE(parseCheckDirectives("; CHECK: x\n; CHECK:   \n", 1, &err).empty());
  EXPECT_NE(err.find("line 2"), std::string::npos) << err;
  EXPECT_TRUE(parseCheckDirectives("; CHECK-NEXT: x\n", 1, &err).empty());
  EXPECT_NE(err.find("without a CHECK"), std::string::npos) << err;
  EXPECT_TRUE(parseCheckDirectives("; CHECK-NOT: y\n; CHECK-SAME: x\n", 1, &err).empty());
  // fileCheck turns these into failures, and so is a text with no directive.
  EXPECT_FALSE(check("; CHECK-BOGUS: x\n").ok);
  EXPECT_FALSE(check("; nothing to check\n").ok);
}

TEST(FileCheck, FailureMessages) {
  // A missing pattern: file and line of the directive, the pattern, the
  // output near the search with the closest line pointed at.
  CheckResult r = fileCheck("\n; CHECK: %0 = range\n; CHECK-NEXT: %x = sub %0, %0\n", kOutput, "cases/x.tir", 40);
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.message.find("cases/x.tir:42: CHECK-NEXT:"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("pattern: %x = sub %0, %0"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("%x = add %0, %0 : i32<16>  <-- closest line"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("previous match"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("     4 | "), std::string::npos) << r.message;  // numbered output lines

  // An excluded pattern: where it was found.
  r = fileCheck("; CHECK: entry:\n; CHECK-NOT: mul\n; CHECK: ret\n", kOutput, "y.tir");
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.message.find("y.tir:2: CHECK-NOT: excluded pattern found at output line 5"), std::string::npos)
      << r.message;
  EXPECT_NE(r.message.find("<-- excluded pattern"), std::string::npos) << r.message;

  // A pattern that exists, but before the search range, is pointed at too.
  r = fileCheck("; CHECK: ret\n; CHECK: %x = add\n", "  %x = add\n  ret\n", "z.tir");
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.message.find("matches here (out of the searched range)"), std::string::npos) << r.message;
}

TEST(FileCheck, EmptyOutput) {
  CheckResult r = fileCheck("; CHECK: x\n", "", "e.tir");
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.message.find("the output is empty"), std::string::npos) << r.message;
  EXPECT_TRUE(fileCheck("; CHECK-NOT: x\n", "", "e.tir").ok);
}

}  // namespace
}  // namespace tritonc::test
