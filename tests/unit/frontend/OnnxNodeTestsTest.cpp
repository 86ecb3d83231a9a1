//===- OnnxNodeTestsTest.cpp - Robustness over ONNX's node tests ----------===//
//
// Imports every model of ONNX's node test suite (Debian's libonnx-testdata):
// hundreds of real, varied and often unsupported models. Each must either
// import into a graph that verifies or fail with an error; a crash fails the
// whole test binary. Node tests feed Reshape's shape, Pad's pads and the like
// as graph inputs, which kiln requires to be constant; the shared reader
// (//tests/conformance:onnx_suite) gives those their test data as constants
// when the importer asks, as the conformance runner does.
//
// Whether the imported graphs compute ONNX's outputs is checked by
// //tests/unit/ops:onnx_node_test (interpreter) and //tests/conformance
// (compiled bundles). The floors below are counts measured when the test
// was last updated; a drop means a regression.
//
//===----------------------------------------------------------------------===//

#include "tests/conformance/OnnxSuite.h"

#include "compiler/frontend/onnx/OnnxImporter.h"
#include "compiler/graph/Verifier.h"

#include <gtest/gtest.h>

#include <iostream>

namespace kiln {
namespace conformance {
namespace {

constexpr int kMinModels = 932;
constexpr int kMinImported = 726;
constexpr int kMinWithConstantInputs = 115;

TEST(OnnxNodeTests, ImportNeverCrashes) {
  std::vector<std::string> dirs = listCases("node");
  // A skip would read as PASSED in bazel's summary; the data is one of the
  // packages tools/install_deps.sh installs for the tests.
  ASSERT_FALSE(dirs.empty()) << kOnnxTestDataRoot << "/node is missing: "
                             << "run tools/install_deps.sh";
  int models = 0, imported = 0, withConstantInputs = 0, rejected = 0;
  for (const std::string &dir : dirs) {
    ++models;
    // First the file exactly as shipped.
    auto direct = importOnnxFile(dir + "/model.onnx", {});
    if (direct)
      ++imported;
    else
      EXPECT_FALSE(llvm::toString(direct.takeError()).empty()) << dir;

    auto info = readModelInfo(dir);
    ASSERT_TRUE(bool(info)) << llvm::toString(info.takeError());
    std::vector<std::string> sets = listDataSets(dir);
    auto data = sets.empty() ? llvm::Expected<DataSet>(DataSet())
                             : readDataSet(sets[0]);
    if (!data) {
      EXPECT_FALSE(llvm::toString(data.takeError()).empty()) << dir;
      ++rejected;
      continue;
    }
    auto c = importCase(dir, *info, *data);
    if (!c) {
      EXPECT_FALSE(llvm::toString(c.takeError()).empty()) << dir;
      ++rejected;
      continue;
    }
    if (!c->constantInputs.empty())
      ++withConstantInputs;
    if (llvm::Error e = verifyGraph(*c->graph))
      ADD_FAILURE() << dir << ": " << llvm::toString(std::move(e));
  }
  std::cout << "ONNX node tests: " << models << " models; " << imported
            << " import as shipped, " << withConstantInputs
            << " more with constant-only inputs fixed to their test data, "
            << rejected << " are rejected with an error\n";
  EXPECT_EQ(models, imported + withConstantInputs + rejected);
  EXPECT_GE(models, kMinModels);
  EXPECT_GE(imported, kMinImported);
  EXPECT_GE(withConstantInputs, kMinWithConstantInputs);
}

} // namespace
} // namespace conformance
} // namespace kiln
