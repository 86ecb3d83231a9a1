//===- ConformanceTest.cpp - The passing ONNX cases keep passing ----------===//
//
// Every case in tests/conformance/passing.txt is compiled through the code
// generator and run as a bundle (in a child process, with a timeout) and
// must match ONNX's outputs. One gtest case per ONNX case, so Bazel's
// shard_count spreads them over shards.
//
//===----------------------------------------------------------------------===//

#include "tests/conformance/Isolation.h"
#include "tests/conformance/OnnxSuite.h"
#include "tests/conformance/Report.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>


namespace kiln {
namespace conformance {
namespace {

constexpr const char *kPassingList = "tests/conformance/passing.txt";

std::vector<std::string> listedCases() {
  auto buf = llvm::MemoryBuffer::getFile(kPassingList);
  if (!buf)
    return {};
  std::set<std::string> keys = parsePassingList((*buf)->getBuffer());
  return std::vector<std::string>(keys.begin(), keys.end());
}

class PassingCase : public ::testing::TestWithParam<std::string> {};

TEST_P(PassingCase, StillPasses) {
  std::string dir = caseDir(GetParam());
  ASSERT_TRUE(llvm::sys::fs::is_directory(dir))
      << dir << " is missing; run tools/install_deps.sh";
  CaseResult r = runOneIsolated(dir, /*timeoutSeconds=*/120);
  EXPECT_EQ(r.status, Status::Pass)
      << statusName(r.status).str() << ": " << r.detail;
}

std::string testName(const ::testing::TestParamInfo<std::string> &info) {
  return caseTestName(info.param);
}

INSTANTIATE_TEST_SUITE_P(Onnx, PassingCase, ::testing::ValuesIn(listedCases()), testName);

/// What opsets 18 to 22 changed, which Debian's test data (ONNX 1.12) predates:
/// make_opset_cases.py's cases, their outputs from ONNX Runtime (two whole
/// networks at opset 20: PyTorch's). Every one must pass.
class OpsetCase : public ::testing::TestWithParam<std::string> {};

TEST_P(OpsetCase, Passes) {
  CaseResult r = runOneIsolated(GetParam(), /*timeoutSeconds=*/120);
  EXPECT_EQ(r.status, Status::Pass) << statusName(r.status).str() << ": " << r.detail;
}

INSTANTIATE_TEST_SUITE_P(Opset18To22, OpsetCase,
                         ::testing::ValuesIn(listCases("opset_cases", "tests/conformance")),
                         testName);

TEST(PassingList, IsNotEmpty) {
  EXPECT_FALSE(listedCases().empty()) << kPassingList << " lists no cases";
}

TEST(OpsetCases, AreShipped) {
  EXPECT_FALSE(listCases("opset_cases", "tests/conformance").empty())
      << "tests/conformance/opset_cases is empty; run make_opset_cases.py";
}

} // namespace
} // namespace conformance
} // namespace kiln
