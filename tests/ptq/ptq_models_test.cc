// Post-training quantization of the shipped float models (bundles/models)
// with the checked-in calibration sets (make_calibration.py), for each line
// of cases.txt (model, calibrator):
//  - every Conv and MatMul becomes int8, and the int8 bundle is bit-exact
//    with kiln's int8 interpreter (the reference semantics) on the held-out
//    samples;
//  - the accuracy report's SQNR and top-1 agreement meet their floors;
//  - the QDQ model kiln writes (--save-qdq) is the one checked in, and ONNX
//    Runtime's outputs of it (ort_reference.js, checked in; ONNX's
//    semantics, see there) agree with the int8 bundle within one output
//    step on at least 99% of the elements.
//    generate.sh regenerates the models and references.
//
// usage: ptq_models_test MODELS_DIR PTQ_DIR

#include "compiler/frontend/ModelImporter.h"
#include "compiler/interpreter/Interpreter.h"
#include "compiler/jit/BundleJit.h"
#include "compiler/pipeline/Pipeline.h"
#include "compiler/quantize/CalibrationSet.h"
#include "compiler/quantize/QDQModelWriter.h"
#include "compiler/quantize/Quantizer.h"
#include "tests/common/Int8Graph.h"
#include "tests/common/ReferenceCheck.h"

#include "llvm/Support/MemoryBuffer.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdio>
#include <fstream>

namespace kiln {
namespace {

std::string modelsDir, ptqDir;

/// The floors of the accuracy report on the held-out samples (random
/// weights, inputs drawn like the reference inputs).
constexpr double kMinSqnrDb = 20;
constexpr double kMinTop1Agreement = 0.75;

struct Case {
  std::string model, calibrator;
};

std::vector<Case> readCases() {
  std::vector<Case> cases;
  std::ifstream in(ptqDir + "/cases.txt");
  for (Case c; in >> c.model >> c.calibrator;)
    cases.push_back(c);
  return cases;
}

void checkCase(const Case &c) {
  std::string name = c.model + "." + c.calibrator;
  SCOPED_TRACE(name);
  auto importGraph = [&] {
    return importModelFile(modelsDir + "/" + c.model + ".onnx", {});
  };
  QuantizeOptions opts;
  opts.calibrationDir = ptqDir + "/calibration/" + c.model;
  opts.calibrator = *parseCalibratorKind(c.calibrator);
  auto quantized = quantizeModel(importGraph, opts);
  ASSERT_TRUE(bool(quantized)) << llvm::toString(quantized.takeError());

  const AccuracyReport &report = quantized->report;
  ASSERT_EQ(report.outputs.size(), 1u);
  std::printf("%s: SQNR %.1f dB, top-1 agreement %.2f; worst tensor %s "
              "(%.1f dB)\n",
              name.c_str(), report.outputs[0].sqnrDb,
              report.outputs[0].top1Agreement.value_or(-1),
              report.worstTensors[0].tensor.c_str(), report.worstTensors[0].sqnrDb);
  EXPECT_GE(report.outputs[0].sqnrDb, kMinSqnrDb);
  ASSERT_TRUE(report.outputs[0].top1Agreement.has_value());
  EXPECT_GE(*report.outputs[0].top1Agreement, kMinTop1Agreement);

  Graph &g = *quantized->qdqGraph;
  auto qdqBytes = writeQDQModel(g);
  ASSERT_TRUE(bool(qdqBytes)) << llvm::toString(qdqBytes.takeError());
  auto checkedIn = llvm::MemoryBuffer::getFile(ptqDir + "/models/" + name + ".qdq.onnx");
  ASSERT_TRUE(bool(checkedIn));
  EXPECT_TRUE((*checkedIn)->getBuffer() == *qdqBytes)
      << "models/" << name << ".qdq.onnx is stale: run tests/ptq/generate.sh";

  llvm::Error err = runPipeline(g, defaultPipeline(), {});
  ASSERT_FALSE(bool(err)) << llvm::toString(std::move(err));
  unsigned floatLayers = 0;
  for (const Node *n : g.getNodes())
    floatLayers += (n->is(OpKind::Conv) || n->is(OpKind::MatMul)) &&
                   n->getOutput()->getType().dtype != DType::I8;
  EXPECT_EQ(floatLayers, 0u);
  EXPECT_GT(countInt8(g, OpKind::Conv) + countInt8(g, OpKind::MatMul), 0u);
  double step = outputStep(g.getOutputs()[0].value);
  ASSERT_GT(step, 0);

  auto bundle = JitBundle::compile(g);
  ASSERT_TRUE(bool(bundle)) << llvm::toString(bundle.takeError());
  llvm::SmallVector<const Value *, 1> inputs(g.getInputs().begin(), g.getInputs().end());
  auto samples = loadCalibrationSet(opts.calibrationDir, inputs);
  ASSERT_TRUE(bool(samples)) << llvm::toString(samples.takeError());
  const TensorType &outType = g.getOutputs()[0].value->getType();
  Tensor ort = readRawTensor(
      ptqDir + "/models/" + name + ".ort_output.bin",
      TensorType(DType::F32, {int64_t(samples->size()), outType.numElements()}));
  int64_t withinStep = 0, total = 0;
  double maxSteps = 0;
  for (size_t k = 0; k < samples->size(); ++k) {
    auto got = (*bundle)->run((*samples)[k]);
    ASSERT_TRUE(bool(got)) << llvm::toString(got.takeError());
    if (isHeldOut(k, samples->size())) {
      auto interpreted = runGraph(g, (*samples)[k]);
      ASSERT_TRUE(bool(interpreted)) << llvm::toString(interpreted.takeError());
      EXPECT_TRUE((*got)[0].bitwiseEqual((*interpreted)[0])) << "sample " << k;
    }
    for (int64_t i = 0; i < outType.numElements(); ++i) {
      double steps = std::fabs((*got)[0].getAsDouble(i) -
                               ort.getAsDouble(k * outType.numElements() + i)) /
                     step;
      maxSteps = std::max(maxSteps, steps);
      withinStep += steps <= 1 + 1e-4;
      ++total;
    }
  }
  std::printf("%s: %lld of %lld outputs within one step of ONNX Runtime's "
              "(largest: %.2f steps)\n",
              name.c_str(), static_cast<long long>(withinStep),
              static_cast<long long>(total), maxSteps);
  EXPECT_GE(double(withinStep), 0.99 * total);
}

TEST(PtqModels, Int8MatchesInterpreterAndOnnxRuntime) {
  std::vector<Case> cases = readCases();
  ASSERT_FALSE(cases.empty()) << ptqDir << "/cases.txt";
  for (const Case &c : cases)
    checkCase(c);
}

} // namespace
} // namespace kiln

int main(int argc, char **argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s MODELS_DIR PTQ_DIR\n", argv[0]);
    return 2;
  }
  kiln::modelsDir = argv[1];
  kiln::ptqDir = argv[2];
  return RUN_ALL_TESTS();
}
