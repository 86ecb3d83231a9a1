//===- OnnxNodeTest.cpp - Reference semantics vs ONNX's test data ----------===//
//
// Runs every ONNX backend test case (node, simple, pytorch-converted,
// pytorch-operator) that kiln imports through the reference interpreter and
// compares with ONNX's recorded outputs, with ONNX's own tolerances; and
// make_opset_cases.py's cases (tests/conformance/opset_cases) against ONNX
// Runtime's. The
// cases are read by //tests/conformance:onnx_suite, the reader the
// conformance runner uses for compiled bundles, so the oracle and the
// compiled code are checked against the same data in the same way.
//
// A case whose import fails because kiln lacks something (the message says
// it is not supported) is skipped with that reason; any other import error,
// an interpreter error or a wrong output fails.
//
//===----------------------------------------------------------------------===//
#include "tests/conformance/OnnxSuite.h"

#include "compiler/interpreter/Interpreter.h"

#include <gtest/gtest.h>

#include <iostream>
#include <map>

namespace kiln {
namespace conformance {
namespace {

/// The fewest cases that must run and match ONNX: what kiln reaches today.
constexpr int kMinPassedCases = 981;

struct Outcome {
  enum Kind { Passed, Unsupported, Failed };
  Kind kind;
  /// Why it is unsupported or failed.
  std::string detail;
};

Outcome runCase(const std::string &dir) {
  auto classify = [](llvm::Error e) -> Outcome {
    std::string msg = llvm::toString(std::move(e));
    return {isUnsupportedMessage(msg) ? Outcome::Unsupported : Outcome::Failed,
            msg};
  };
  auto info = readModelInfo(dir);
  if (!info)
    return classify(info.takeError());
  if (!info->nonTensor.empty())
    return {Outcome::Unsupported, info->nonTensor};
  std::vector<std::string> sets = listDataSets(dir);
  if (sets.empty())
    return {Outcome::Failed, "no test data set"};
  for (const std::string &set : sets) {
    auto data = readDataSet(set);
    if (!data)
      return classify(data.takeError());
    auto c = importCase(dir, *info, *data);
    if (!c)
      return classify(c.takeError());
    auto outs = runGraph(*c->graph, c->inputs);
    if (!outs)
      return {Outcome::Failed, llvm::toString(outs.takeError())};
    if (outs->size() != data->outputs.size())
      return {Outcome::Failed, "wrong number of outputs"};
    for (size_t i = 0; i < outs->size(); ++i) {
      Comparison cmp = compareWithOnnx((*outs)[i], data->outputs[i]);
      if (!cmp.match)
        return {Outcome::Failed,
                "output " + std::to_string(i) + ": " + cmp.mismatch};
    }
  }
  return {Outcome::Passed, ""};
}

class OnnxCase : public ::testing::TestWithParam<std::string> {};

std::string testName(const ::testing::TestParamInfo<std::string> &info) {
  return caseTestName(info.param);
}

TEST_P(OnnxCase, MatchesOnnxOutputs) {
  Outcome o = runCase(GetParam());
  if (o.kind == Outcome::Unsupported)
    GTEST_SKIP() << o.detail;
  EXPECT_EQ(o.kind, Outcome::Passed) << o.detail;
}

INSTANTIATE_TEST_SUITE_P(
    Onnx, OnnxCase, ::testing::ValuesIn(listAllCases()),
    testName);

INSTANTIATE_TEST_SUITE_P(
    OpsetCases, OnnxCase,
    ::testing::ValuesIn(listCases("opset_cases", "tests/conformance")),
    testName);

/// Guards the coverage itself: enough cases must pass. Prints why the
/// others are unsupported.
TEST(OnnxCoverage, EnoughCasesPass) {
  std::vector<std::string> dirs = listAllCases();
  ASSERT_FALSE(dirs.empty()) << "no ONNX test data under " << kOnnxTestDataRoot
                             << "; run tools/install_deps.sh";
  std::map<std::string, int> reasons;
  int counts[3] = {};
  for (const std::string &dir : dirs) {
    Outcome o = runCase(dir);
    ++counts[o.kind];
    if (o.kind != Outcome::Unsupported)
      continue;
    // Without the node name, so that cases with the same reason group.
    size_t at = o.detail.find("): ");
    ++reasons[at == std::string::npos ? o.detail : o.detail.substr(at + 3)];
  }
  std::cout << "unsupported (number of cases):\n";
  for (auto &[reason, count] : reasons)
    std::cout << "  " << reason << ": " << count << "\n";
  std::cout << "passed " << counts[Outcome::Passed] << ", unsupported "
            << counts[Outcome::Unsupported] << ", failed "
            << counts[Outcome::Failed] << " of " << dirs.size() << "\n";
  EXPECT_EQ(counts[Outcome::Failed], 0);
  EXPECT_GE(counts[Outcome::Passed], kMinPassedCases);
}

} // namespace
} // namespace conformance
} // namespace kiln
