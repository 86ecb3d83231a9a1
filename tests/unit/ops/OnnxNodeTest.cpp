//===- OnnxNodeTest.cpp - Reference semantics vs ONNX's test data ----------===//
//
// Runs every ONNX backend test case that kiln's IR can express through the
// interpreter and compares with ONNX's recorded outputs (rtol 1e-3, atol 1e-7,
// the tolerances of ONNX's own backend tests). Cases kiln cannot express are
// skipped with their reason; cases whose node kiln's type rules reject must be
// listed in kExpectedRejections with the reason, so a type rule that starts
// rejecting a valid case fails the test instead of silently skipping it.
//
//===----------------------------------------------------------------------===//
#include "tests/unit/ops/OnnxTestData.h"

#include "compiler/interpreter/Interpreter.h"
#include "compiler/ops/OpHelpers.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <iostream>
#include <map>

namespace kiln {
namespace testing {
namespace {

const char *const kSuites[] = {"node", "pytorch-converted", "pytorch-operator",
                               "simple"};

/// Cases kiln rejects on purpose (a type rule at graph construction or the
/// reference kernel at run time), with a piece of the expected message.
const std::map<std::string, std::string> kExpectedRejections = {
    {"node/test_add_uint8", "expected f32, i32, i64"},
    {"node/test_sub_uint8", "expected f32, i32, i64"},
    {"node/test_mul_uint8", "expected f32, i32, i64"},
    {"node/test_div_uint8", "expected f32, i32, i64"},
    {"node/test_clip_default_int8_inbounds", "expected f32"},
    {"node/test_clip_default_int8_max", "expected f32"},
    {"node/test_clip_default_int8_min", "expected f32"},
    {"node/test_batchnorm_epsilon_training_mode", "training_mode=1"},
    {"node/test_batchnorm_example_training_mode", "training_mode=1"},
    {"node/test_training_dropout", "training_mode=true"},
    {"node/test_training_dropout_default", "training_mode=true"},
    {"node/test_training_dropout_default_mask", "training_mode=true"},
    {"node/test_training_dropout_mask", "training_mode=true"},
    {"node/test_training_dropout_zero_ratio", "training_mode=true"},
    {"node/test_training_dropout_zero_ratio_mask", "training_mode=true"},
};

/// The fewest cases that must run and match ONNX: what kiln reaches today.
constexpr int kMinPassedCases = 224;

std::string caseKey(const std::string &dir) {
  llvm::StringRef name = llvm::sys::path::filename(dir);
  llvm::StringRef suite =
      llvm::sys::path::filename(llvm::sys::path::parent_path(dir));
  return (suite + "/" + name).str();
}

/// Compares one output; returns a description of the first mismatch.
std::string compareTensors(const Tensor &got, const Tensor &want) {
  if (got.getType() != want.getType())
    return "type " + got.getType().str() + ", expected " + want.getType().str();
  bool isFloat = got.getDType() == DType::F32 || got.getDType() == DType::F16;
  for (int64_t i = 0; i < got.numElements(); ++i) {
    double g, w;
    if (got.getDType() == DType::F16) {
      g = halfToFloat(got.data<uint16_t>()[i]);
      w = halfToFloat(want.data<uint16_t>()[i]);
    } else {
      g = got.getAsDouble(i);
      w = want.getAsDouble(i);
    }
    bool ok = isFloat ? (std::isnan(g) && std::isnan(w)) || g == w ||
                            std::fabs(g - w) <= 1e-7 + 1e-3 * std::fabs(w)
                      : got.getAsInt(i) == want.getAsInt(i);
    if (!ok)
      return "element " + std::to_string(i) + " is " + std::to_string(g) +
             ", expected " + std::to_string(w);
  }
  return "";
}

struct Outcome {
  enum Kind { Passed, Skipped, Rejected, Failed };
  Kind kind;
  /// The skip reason, the rejection or the failure.
  std::string detail;
  /// The case's ops, "Conv" or "Reshape+Transpose+Reshape".
  std::string ops;
};

Outcome runCase(const std::string &dir) {
  auto expected = kExpectedRejections.find(caseKey(dir));
  auto onError = [&](llvm::Error e, std::string ops) -> Outcome {
    std::string msg = llvm::toString(std::move(e));
    if (expected == kExpectedRejections.end())
      return {Outcome::Failed, "unexpected error: " + msg, ops};
    if (msg.find(expected->second) == std::string::npos)
      return {Outcome::Failed,
              "error does not mention '" + expected->second + "': " + msg, ops};
    return {Outcome::Rejected, msg, ops};
  };
  auto c = loadOnnxCase(dir);
  if (!c)
    return onError(c.takeError(), "");
  if (!c->graph)
    return {Outcome::Skipped, c->skipReason, ""};
  std::string ops;
  for (const std::string &op : c->opTypes)
    ops += (ops.empty() ? "" : "+") + op;
  auto outs = runGraph(*c->graph, c->inputs);
  if (!outs)
    return onError(outs.takeError(), ops);
  if (expected != kExpectedRejections.end())
    return {Outcome::Failed, "expected kiln to reject it: " + expected->second,
            ops};
  if (outs->size() != c->expected.size())
    return {Outcome::Failed, "wrong number of outputs", ops};
  for (size_t i = 0; i < outs->size(); ++i) {
    std::string mismatch = compareTensors((*outs)[i], c->expected[i]);
    if (!mismatch.empty())
      return {Outcome::Failed, "output " + std::to_string(i) + ": " + mismatch,
              ops};
  }
  return {Outcome::Passed, "", ops};
}

std::vector<std::string> allCases() {
  std::vector<std::string> dirs;
  for (const char *suite : kSuites)
    for (std::string &d : listOnnxCases(suite))
      dirs.push_back(std::move(d));
  return dirs;
}

class OnnxNodeCase : public ::testing::TestWithParam<std::string> {};

TEST_P(OnnxNodeCase, MatchesOnnxOutputs) {
  Outcome o = runCase(GetParam());
  switch (o.kind) {
  case Outcome::Passed:
    break;
  case Outcome::Skipped:
    GTEST_SKIP() << o.detail;
  case Outcome::Rejected:
    GTEST_SKIP() << "rejected by kiln as expected: " << o.detail;
  case Outcome::Failed:
    FAIL() << o.detail;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Onnx, OnnxNodeCase, ::testing::ValuesIn(allCases()),
    [](const ::testing::TestParamInfo<std::string> &info) {
      std::string name = caseKey(info.param);
      for (char &ch : name)
        if (!std::isalnum(static_cast<unsigned char>(ch)))
          ch = '_';
      return name;
    });

/// Guards the coverage itself: enough cases must pass, and every listed
/// rejection must still happen. Prints the cases that pass per op and why
/// the others were skipped.
TEST(OnnxNodeCoverage, EnoughCasesPass) {
  std::vector<std::string> dirs = allCases();
  ASSERT_FALSE(dirs.empty()) << "no ONNX test data under " << kOnnxTestDataRoot
                             << "; run tools/install_deps.sh";
  std::map<std::string, int> passedPerOps, skipReasons;
  int counts[4] = {};
  for (const std::string &dir : dirs) {
    Outcome o = runCase(dir);
    ++counts[o.kind];
    if (o.kind == Outcome::Passed)
      ++passedPerOps[o.ops];
    if (o.kind == Outcome::Skipped)
      ++skipReasons[o.detail];
  }
  std::cout << "ONNX cases that pass, per op:\n";
  for (auto &[ops, count] : passedPerOps)
    std::cout << "  " << ops << ": " << count << "\n";
  std::cout << "skip reasons (number of cases):\n";
  for (auto &[reason, count] : skipReasons)
    std::cout << "  " << reason << ": " << count << "\n";
  std::cout << "passed " << counts[Outcome::Passed] << ", rejected "
            << counts[Outcome::Rejected] << ", skipped "
            << counts[Outcome::Skipped] << ", failed "
            << counts[Outcome::Failed] << " of " << dirs.size() << "\n";
  EXPECT_EQ(counts[Outcome::Failed], 0);
  EXPECT_EQ(counts[Outcome::Rejected], int(kExpectedRejections.size()));
  EXPECT_GE(counts[Outcome::Passed], kMinPassedCases);
}

} // namespace
} // namespace testing
} // namespace kiln
