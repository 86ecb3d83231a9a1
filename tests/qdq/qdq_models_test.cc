// Quantized ONNX models (tests/qdq/models, from make_models.py) compiled
// through the default pipeline and the JIT, against ONNX Runtime's outputs
// (ort_reference.js), and with their integer ops compiled as int8 ops.
//
// Tolerance: ONNX Runtime requantizes in float, kiln as TFLite does (a Q31
// multiplier and a rounding shift), so a quantized result may be one step
// apart where the exact value is at or near a rounding tie; an error of one
// step may carry into the next layers, which requantize it, but not grow.
// Each single group (layer_*) must be within 1 step; a chain of them within
// what the steps it carries add up to.
//
// usage: qdq_models_test MODELS_DIR

#include "compiler/frontend/ModelImporter.h"
#include "compiler/jit/BundleJit.h"
#include "compiler/pipeline/Pipeline.h"
#include "tests/common/Int8Graph.h"
#include "tests/common/ReferenceCheck.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdio>

namespace kiln {
namespace {

std::string modelsDir;

struct Expectation {
  std::string model;
  /// The int8 op the model's groups must become, and how many.
  OpKind int8Op;
  unsigned int8Count;
  /// The largest difference allowed, in steps of the output's quantization.
  double maxSteps;
};

std::vector<Expectation> expectations() {
  std::vector<Expectation> e = {
      // A chain of nine groups: a step where ONNX Runtime's float rounding
      // differs may carry on and meet another one.
      {"qdq_cnn_u8", OpKind::Conv, 3, 2},
      {"qdq_cnn_s8", OpKind::Conv, 3, 2},
      // qdq_cnn_u8 fed its input's uint8 integers (the graph input is the
      // first QuantizeLinear's result).
      {"qdq_cnn_u8_io", OpKind::Conv, 3, 2},
      {"qdq_mlp_s8", OpKind::MatMul, 1, 1},
      // QLinearConv and QLinearMatMul as int8 ops; the MatMulInteger after
      // them computes exactly on identical integers.
      {"qlinear_ops", OpKind::MatMul, 1, 0},
      // Computed in f32 (no int8 op), exactly.
      {"conv_integer", OpKind::Conv, 0, 0},
      // A chain of four depthwise groups (their 3x3 windows run two outputs
      // a step on the Arm DSP; the bundle test checks that on Cortex-M).
      {"depthwise_windows_s8", OpKind::Conv, 4, 2},
      // A chain of six GEMM groups over the shapes of the kernel's blocks
      // (the bundle test checks the Arm DSP's on Cortex-M). Its last Conv
      // reads only 5 channels at a fine output scale: a step of ONNX
      // Runtime's float rounding carried down the chain grows to up to 5.
      {"gemm_windows_s8", OpKind::Conv, 6, 5},
  };
  const std::pair<const char *, OpKind> layers[] = {
      {"conv", OpKind::Conv},       {"depthwise", OpKind::Conv},
      {"add", OpKind::Add},         {"mul", OpKind::Mul},
      {"avgpool", OpKind::AveragePool}, {"gap", OpKind::ReduceMean},
      {"concat", OpKind::Concat},   {"gemm", OpKind::MatMul}};
  for (auto [layer, op] : layers)
    for (const char *type : {"u8", "s8"})
      e.push_back({std::string("layer_") + layer + "_" + type, op, 1, 1});
  return e;
}

class QdqModel : public ::testing::TestWithParam<Expectation> {};

TEST_P(QdqModel, MatchesOnnxRuntime) {
  const Expectation &e = GetParam();
  std::string base = modelsDir + "/" + e.model;
  SCOPED_TRACE(e.model);
  auto g = importModelFile(base + ".onnx", {});
  ASSERT_TRUE(static_cast<bool>(g)) << llvm::toString(g.takeError());
  llvm::Error err = runPipeline(**g, defaultPipeline(), {});
  ASSERT_FALSE(static_cast<bool>(err)) << llvm::toString(std::move(err));
  EXPECT_EQ(countInt8(**g, e.int8Op), e.int8Count);
  double step = outputStep((*g)->getOutputs()[0].value);

  ASSERT_EQ((*g)->getInputs().size(), 1u);
  Tensor input = readRawTensor(base + ".input.bin", (*g)->getInputs()[0]->getType());
  const TensorType &outType = (*g)->getOutputs()[0].value->getType();
  TensorType refType(outType.dtype, outType.shape);
  Tensor want = readRawTensor(base + ".output.bin", refType);
  auto bundle = JitBundle::compile(**g);
  ASSERT_TRUE(static_cast<bool>(bundle)) << llvm::toString(bundle.takeError());
  auto got = (*bundle)->run({input});
  ASSERT_TRUE(static_cast<bool>(got)) << llvm::toString(got.takeError());
  const Tensor &y = (*got)[0];
  ASSERT_EQ(y.numElements(), want.numElements());
  double maxErr = 0;
  int64_t exact = 0;
  for (int64_t i = 0; i < y.numElements(); ++i) {
    double d = std::fabs(y.getAsDouble(i) - want.getAsDouble(i));
    maxErr = std::max(maxErr, d);
    exact += d == 0;
  }
  std::printf("%s: %lld of %lld outputs equal to ONNX Runtime's, largest "
              "difference %g\n",
              e.model.c_str(), static_cast<long long>(exact),
              static_cast<long long>(y.numElements()), maxErr);
  EXPECT_LE(maxErr, e.maxSteps * step * (1 + 1e-6));
}

INSTANTIATE_TEST_SUITE_P(
    Models, QdqModel, ::testing::ValuesIn(expectations()),
    [](const ::testing::TestParamInfo<Expectation> &info) {
      return info.param.model;
    });

} // namespace
} // namespace kiln

int main(int argc, char **argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s MODELS_DIR\n", argv[0]);
    return 2;
  }
  kiln::modelsDir = argv[1];
  return RUN_ALL_TESTS();
}
