//===- Report.h - The conformance report and the passing list --*- C++ -*-===//
//
// docs/onnx-conformance.md is generated from the results of a full run:
// totals per suite, the ops kiln lacks ranked by the cases they block, a
// per-op table of the node suite and every case that does not pass, with its
// reason. tests/conformance/passing.txt, the regression test's list, is the
// sorted keys of the passing cases.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TESTS_CONFORMANCE_REPORT_H
#define KILN_TESTS_CONFORMANCE_REPORT_H

#include "tests/conformance/CaseRunner.h"
#include "tests/conformance/OnnxSuite.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <set>
#include <string>
#include <vector>

namespace kiln {
namespace conformance {

/// One case's result, with what the report groups it by.
struct CaseRecord {
  /// "node/test_abs"
  std::string key;
  /// The op the case tests (see opUnderTest).
  std::string op;
  /// Op types of the model that kiln does not know, in graph order.
  std::vector<std::string> unknownOps;
  CaseResult result;
};

/// The op a case tests: the only op of its model other than Constant, or
/// the ops joined with '+'. A node-suite "X_expanded" case (the op's ONNX
/// function body) counts under the op of case X, given as `unexpanded`.
std::string opUnderTest(const ModelInfo &info, const ModelInfo *unexpanded);

/// Op types in `info` that have no OpDef (Constant aside).
std::vector<std::string> unknownOps(const ModelInfo &info);

/// The Markdown report; `command` is how to regenerate it.
std::string renderReport(llvm::ArrayRef<CaseRecord> records,
                         llvm::StringRef command);

/// Reads a passing list: one case key per line; '#' starts a comment.
std::set<std::string> parsePassingList(llvm::StringRef text);
/// Renders a passing list with a header saying what it is.
std::string renderPassingList(const std::set<std::string> &keys,
                              llvm::StringRef command);

} // namespace conformance
} // namespace kiln

#endif
