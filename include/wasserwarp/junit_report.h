// A judged result as JUnit XML, the test report CI systems (GitLab, Jenkins, GitHub actions)
// show: one <testsuites> holding one <testsuite>, its properties the result's numbers, texts
// and labels, one <testcase> per decision rule with a <failure> where it failed, or a single
// <testcase> with an <error> (the command could not run) or <skipped> (nothing judged yet).

#ifndef WASSERWARP_JUNIT_REPORT_H_
#define WASSERWARP_JUNIT_REPORT_H_

#include <string>

#include "wasserwarp/judged_result.h"

namespace wasserwarp {

// The XML document, UTF-8; characters XML 1.0 does not allow become U+FFFD.
std::string JudgedResultToJunit(const JudgedResult& result);

}  // namespace wasserwarp

#endif  // WASSERWARP_JUNIT_REPORT_H_
