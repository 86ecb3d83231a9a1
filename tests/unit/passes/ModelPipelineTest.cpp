//===- ModelPipelineTest.cpp - The default pipeline on the shipped models -===//
//
// Imports each model in bundles/models, runs the default pipeline and checks
// that only primitives are left, that the optimized graph still reproduces
// the exporter's reference output, and that it agrees with the unoptimized
// graph under the reference interpreter.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/onnx/OnnxImporter.h"
#include "compiler/interpreter/Interpreter.h"
#include "compiler/lowering/Lowering.h"
#include "compiler/pipeline/Pipeline.h"
#include "tests/unit/passes/GraphTestUtil.h"

#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

namespace kiln {
namespace {

struct Model {
  const char *name;
  /// Op counts after the default pipeline.
  std::map<std::string, int> ops;
};

const Model kModels[] = {
    {"lenet5", {{"Conv", 2}, {"MatMul", 3}, {"MaxPool", 2}, {"Reshape", 1}}},
    {"mlp", {{"MatMul", 3}}},
    {"ds_cnn_kws",
     {{"AveragePool", 1}, {"Conv", 9}, {"MatMul", 1}, {"Reshape", 1}}},
    {"resnet8_cifar",
     {{"Add", 3},
      {"AveragePool", 1},
      {"Conv", 9},
      {"MatMul", 1},
      {"Relu", 3},
      {"Reshape", 1}}},
};

/// Raw little-endian f32 data of `type`.
Tensor readF32(const std::string &path, const TensorType &type) {
  Tensor t(type);
  auto buf = llvm::MemoryBuffer::getFile(path);
  if (!buf || (*buf)->getBufferSize() != t.sizeInBytes()) {
    ADD_FAILURE() << "cannot read " << path << " as " << type.str();
    return t;
  }
  std::memcpy(t.rawData(), (*buf)->getBufferStart(), t.sizeInBytes());
  return t;
}

class ModelPipeline : public ::testing::TestWithParam<Model> {};

TEST_P(ModelPipeline, LowersToPrimitivesAndKeepsTheResult) {
  const Model &m = GetParam();
  std::string base = std::string("bundles/models/") + m.name;
  auto ref = importOnnxFile(base + ".onnx", {});
  ASSERT_TRUE(bool(ref)) << llvm::toString(ref.takeError());
  auto g = importOnnxFile(base + ".onnx", {});
  ASSERT_TRUE(bool(g)) << llvm::toString(g.takeError());

  llvm::Error err = runPipeline(**g, defaultPipeline(), {});
  ASSERT_FALSE(bool(err)) << llvm::toString(std::move(err));
  std::map<std::string, int> ops;
  for (const Node *n : (*g)->getNodes()) {
    EXPECT_TRUE(n->getDef().isPrimitive()) << n->getName().str();
    ++ops[n->getOpName().str()];
  }
  EXPECT_EQ(ops, m.ops);

  ASSERT_EQ((*g)->getInputs().size(), 1u);
  ASSERT_EQ((*g)->getOutputs().size(), 1u);
  EXPECT_EQ((*g)->getOutputs()[0].name, (*ref)->getOutputs()[0].name);
  Tensor input = readF32(base + ".input.bin", (*g)->getInputs()[0]->getType());
  Tensor expected =
      readF32(base + ".output.bin", (*g)->getOutputs()[0].value->getType());
  auto before = runGraph(**ref, {input});
  ASSERT_TRUE(bool(before)) << llvm::toString(before.takeError());
  auto after = runGraph(**g, {input});
  ASSERT_TRUE(bool(after)) << llvm::toString(after.takeError());
  EXPECT_TRUE(test::outputsClose({expected}, *after, 1e-4));
  EXPECT_TRUE(test::outputsClose(*before, *after, 1e-4));
}

INSTANTIATE_TEST_SUITE_P(Shipped, ModelPipeline, ::testing::ValuesIn(kModels),
                         [](const auto &info) {
                           return std::string(info.param.name);
                         });

} // namespace
} // namespace kiln
