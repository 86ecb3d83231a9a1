//===- ShippedModelsTest.cpp - The bundled test models import and run -----===//
//
// Imports the models in bundles/models and checks their interface, their op
// counts (from the exporter's manifest) and, through the reference
// interpreter, that the imported graph reproduces PyTorch's output.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/onnx/OnnxImporter.h"
#include "compiler/graph/Verifier.h"
#include "compiler/interpreter/Interpreter.h"

#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>

namespace kiln {
namespace {

struct ShippedModel {
  const char *name;
  Shape inputShape;
  Shape outputShape;
  /// Op counts of bundles/models/manifest.json, without Constant nodes
  /// (they become constants).
  std::map<std::string, int> ops;
};

const ShippedModel kModels[] = {
    {"lenet5",
     {1, 1, 28, 28},
     {1, 10},
     {{"Conv", 2}, {"Flatten", 1}, {"Gemm", 3}, {"MaxPool", 2}, {"Relu", 4}}},
    {"mlp", {1, 784}, {1, 10}, {{"Gemm", 3}, {"Relu", 2}}},
    {"ds_cnn_kws",
     {1, 1, 49, 10},
     {1, 12},
     {{"AveragePool", 1},
      {"Conv", 9},
      {"Flatten", 1},
      {"Gemm", 1},
      {"Pad", 1},
      {"Relu", 9}}},
    {"resnet8_cifar",
     {1, 3, 32, 32},
     {1, 10},
     {{"Add", 3},
      {"AveragePool", 1},
      {"Conv", 9},
      {"Flatten", 1},
      {"Gemm", 1},
      {"Pad", 1},
      {"Relu", 7}}},
};

/// Reads raw little-endian float32 data as a tensor of `shape`.
Tensor readF32(const std::string &path, llvm::ArrayRef<int64_t> shape) {
  auto buf = llvm::MemoryBuffer::getFile(path);
  Tensor t(TensorType(DType::F32, shape));
  if (!buf || (*buf)->getBufferSize() != t.sizeInBytes()) {
    ADD_FAILURE() << "cannot read " << path << " as " << t.getType().str();
    return t;
  }
  std::memcpy(t.rawData(), (*buf)->getBufferStart(), t.sizeInBytes());
  return t;
}

class ShippedModels : public ::testing::TestWithParam<ShippedModel> {};

TEST_P(ShippedModels, ImportsAndMatchesPyTorch) {
  const ShippedModel &m = GetParam();
  std::string base = std::string("bundles/models/") + m.name;
  auto g = importOnnxFile(base + ".onnx", {});
  ASSERT_TRUE(bool(g)) << llvm::toString(g.takeError());
  ASSERT_FALSE(bool(verifyGraph(**g)));
  EXPECT_EQ((*g)->getName(), m.name);

  ASSERT_EQ((*g)->getInputs().size(), 1u);
  EXPECT_EQ((*g)->getInputs()[0]->getName(), "input");
  EXPECT_EQ((*g)->getInputs()[0]->getType(),
            TensorType(DType::F32, m.inputShape));
  ASSERT_EQ((*g)->getOutputs().size(), 1u);
  EXPECT_EQ((*g)->getOutputs()[0].name, "output");
  EXPECT_EQ((*g)->getOutputs()[0].value->getType(),
            TensorType(DType::F32, m.outputShape));

  std::map<std::string, int> ops;
  for (Node *n : (*g)->getNodes())
    ++ops[n->getOpName().str()];
  EXPECT_EQ(ops, m.ops);
  // The Constant feeding Pad's pads input (eight zeros in both models)
  // became Pad's attribute.
  for (Node *n : (*g)->getNodes())
    if (n->is(OpKind::Pad)) {
      EXPECT_EQ(n->getNumInputs(), 1u);
      EXPECT_EQ(n->getInts("pads"), llvm::ArrayRef<int64_t>(Shape(8, 0)));
    }

  Tensor input = readF32(base + ".input.bin", m.inputShape);
  Tensor expected = readF32(base + ".output.bin", m.outputShape);
  auto out = runGraph(**g, {input});
  ASSERT_TRUE(bool(out)) << llvm::toString(out.takeError());
  ASSERT_EQ(out->size(), 1u);
  ASSERT_EQ((*out)[0].getType(), expected.getType());
  for (int64_t i = 0; i < expected.numElements(); ++i) {
    float want = expected.values<float>()[i];
    EXPECT_NEAR((*out)[0].values<float>()[i], want,
                1e-4f + 1e-4f * std::fabs(want))
        << m.name << " output element " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Frontend, ShippedModels, ::testing::ValuesIn(kModels),
                         [](const auto &info) {
                           return std::string(info.param.name);
                         });

} // namespace
} // namespace kiln
