//===- OnnxNodeTestsTest.cpp - Robustness over ONNX's node tests ----------===//
//
// Imports every model of ONNX's node test suite (Debian's libonnx-testdata):
// hundreds of real, varied and mostly unsupported models. Each must either
// import or fail with an error; a crash fails the whole test binary.
//
// The models that import are then run with the reference interpreter on
// their first test data set and compared with ONNX's expected outputs, which
// checks the importer's reading of attributes and opsets against ONNX's own
// reference implementation. Node tests feed Reshape's shape, Pad's pads,
// Clip's bounds and the like as graph inputs, which kiln requires to be
// constant; when the importer says so, the test turns that input into an
// initializer holding its test data and imports again.
//
// The floors below are the counts measured when the test was written; a
// drop means a regression, a rise means the floors can be raised.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/onnx/OnnxImporter.h"
#include "compiler/graph/Verifier.h"
#include "compiler/interpreter/Interpreter.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include "onnx/onnx_pb.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace kiln {
namespace {

const char kNodeTestDir[] = "/usr/share/libonnx-testdata/data/node";

constexpr int kMinModels = 932;
constexpr int kMinImported = 130;
constexpr int kMinFrozen = 29;
constexpr int kMinMatching = 159;

std::vector<std::string> sortedSubdirs(llvm::StringRef dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec))
    out.push_back(it->path());
  std::sort(out.begin(), out.end());
  return out;
}

std::string dataFile(const std::string &testDir, const std::string &prefix,
                     int i) {
  return testDir + "/test_data_set_0/" + prefix + "_" + std::to_string(i) +
         ".pb";
}

int countDataFiles(const std::string &testDir, const std::string &prefix) {
  int n = 0;
  while (llvm::sys::fs::exists(dataFile(testDir, prefix, n)))
    ++n;
  return n;
}

bool closeEnough(const Tensor &got, const Tensor &want) {
  if (got.getType() != want.getType())
    return false;
  if (got.getDType() != DType::F32)
    return got.bitwiseEqual(want);
  for (int64_t i = 0; i < got.numElements(); ++i) {
    float g = got.values<float>()[i], w = want.values<float>()[i];
    if (std::isnan(w) ? !std::isnan(g)
                      : !(std::fabs(g - w) <= 1e-5f + 1e-3f * std::fabs(w)))
      return false;
  }
  return true;
}

/// The value an import error asks to be constant ("...; 'NAME' is computed
/// at run time"), if that is the error.
std::optional<std::string> runtimeValueNeeded(llvm::StringRef msg) {
  size_t end = msg.find("' is computed at run time");
  if (end == llvm::StringRef::npos)
    return std::nullopt;
  size_t begin = msg.take_front(end).rfind("; '");
  if (begin == llvm::StringRef::npos)
    return std::nullopt;
  return msg.slice(begin + 3, end).str();
}

/// One node test model on its way through the importer.
struct NodeTest {
  std::string dir;
  onnx::ModelProto model;
  /// Indices of graph inputs turned into initializers.
  std::set<int> frozen;

  /// Turns graph input `name` into an initializer holding its test data.
  bool freeze(const std::string &name) {
    const onnx::GraphProto &g = model.graph();
    for (int i = 0; i < g.input_size(); ++i) {
      if (g.input(i).name() != name || frozen.count(i))
        continue;
      auto bytes = llvm::MemoryBuffer::getFile(dataFile(dir, "input", i));
      onnx::TensorProto t;
      if (!bytes || !t.ParseFromArray((*bytes)->getBufferStart(),
                                      (*bytes)->getBufferSize()))
        return false;
      t.set_name(name);
      *model.mutable_graph()->add_initializer() = t;
      frozen.insert(i);
      return true;
    }
    return false;
  }

  /// Imports, freezing inputs the importer needs constant, until it
  /// imports or fails for another reason.
  llvm::Expected<std::unique_ptr<Graph>> import() {
    for (;;) {
      std::string bytes;
      model.SerializeToString(&bytes);
      auto g = importOnnxBuffer(bytes, "model", {});
      if (g)
        return g;
      std::string msg = llvm::toString(g.takeError());
      std::optional<std::string> name = runtimeValueNeeded(msg);
      if (!name || !freeze(*name))
        return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
    }
  }

  /// Runs `g` on the first test data set; "" when the outputs match, else
  /// why not.
  std::string check(const Graph &g) const {
    std::vector<Tensor> inputs;
    for (int i = 0, e = countDataFiles(dir, "input"); i < e; ++i) {
      if (frozen.count(i))
        continue;
      auto t = readTensorProtoFile(dataFile(dir, "input", i));
      if (!t)
        return llvm::toString(t.takeError());
      inputs.push_back(std::move(*t));
    }
    int numOutputs = countDataFiles(dir, "output");
    if (inputs.size() != g.getInputs().size() ||
        static_cast<size_t>(numOutputs) != g.getOutputs().size())
      return "the test data does not match the graph's inputs/outputs";
    auto results = runGraph(g, inputs);
    if (!results)
      return llvm::toString(results.takeError());
    for (int i = 0; i < numOutputs; ++i) {
      auto want = readTensorProtoFile(dataFile(dir, "output", i));
      if (!want)
        return llvm::toString(want.takeError());
      if (!closeEnough((*results)[i], *want))
        return "output " + std::to_string(i) + " differs (" +
               (*results)[i].getType().str() + " vs " + want->getType().str() +
               ")";
    }
    return "";
  }
};

TEST(OnnxNodeTests, ImportNeverCrashes) {
  if (!llvm::sys::fs::is_directory(kNodeTestDir))
    GTEST_SKIP() << kNodeTestDir << " is missing: apt-get install "
                 << "libonnx-testdata";
  int models = 0, imported = 0, frozen = 0, rejected = 0, matching = 0;
  std::vector<std::string> mismatches;
  for (const std::string &dir : sortedSubdirs(kNodeTestDir)) {
    std::string path = dir + "/model.onnx";
    auto file = llvm::MemoryBuffer::getFile(path);
    if (!file)
      continue;
    ++models;
    // First the file exactly as shipped.
    auto direct = importOnnxFile(path, {});
    if (direct) {
      ++imported;
    } else {
      EXPECT_FALSE(llvm::toString(direct.takeError()).empty()) << path;
    }

    NodeTest test{dir, {}, {}};
    if (!test.model.ParseFromArray((*file)->getBufferStart(),
                                   (*file)->getBufferSize())) {
      ADD_FAILURE() << path << " does not parse with protobuf";
      continue;
    }
    auto g = test.import();
    if (!g) {
      EXPECT_FALSE(llvm::toString(g.takeError()).empty()) << path;
      ++rejected;
      continue;
    }
    if (!test.frozen.empty())
      ++frozen;
    if (llvm::Error e = verifyGraph(**g))
      ADD_FAILURE() << path << ": " << llvm::toString(std::move(e));
    std::string why = test.check(**g);
    if (why.empty())
      ++matching;
    else
      mismatches.push_back(llvm::sys::path::filename(dir).str() + ": " + why);
  }
  std::cout << "ONNX node tests: " << models << " models; " << imported
            << " import as shipped, " << frozen
            << " more with constant-only inputs frozen to their test data, "
            << rejected << " are rejected with an error; " << matching
            << " of the " << (models - rejected)
            << " imported match ONNX's expected outputs\n";
  for (const std::string &m : mismatches)
    std::cout << "  not matching: " << m << "\n";
  EXPECT_EQ(models, imported + frozen + rejected);
  EXPECT_GE(models, kMinModels);
  EXPECT_GE(imported, kMinImported);
  EXPECT_GE(frozen, kMinFrozen);
  EXPECT_GE(matching, kMinMatching);
}

} // namespace
} // namespace kiln
