// The reference interpreter on the TFLite test models, before and after the
// optimization pipeline, against Arm NN's reference backend (refs/, from
// tools/tflite_refs/generate.py). The interpreter is the oracle the compiled
// int8 code is checked against bit for bit, so it is itself checked here
// against an independent one: float outputs within 1e-4 * max(1, max|ref|),
// int8 outputs within 1 step on at least 99% of the elements and within 2
// everywhere (Arm NN computes quantized ops through float). Every int8 model
// is also checked layer by layer (refs/layers: each op alone, on Arm NN's
// output of the op before it), where that drift cannot build up, and so is
// each case of refs/layers/ops (synthetic single-op models, int8 and float).
//
// usage: interpreter_test REFS_DIR MODEL.tflite...

#include "compiler/frontend/ModelImporter.h"
#include "compiler/interpreter/Interpreter.h"
#include "compiler/pipeline/Pipeline.h"
#include "tests/common/ReferenceCheck.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace kiln {
namespace {

std::string refsDir;
std::vector<std::string> modelPaths;

TEST(TFLiteInterpreter, MatchesArmNNBeforeAndAfterPasses) {
  ASSERT_FALSE(modelPaths.empty());
  for (const std::string &path : modelPaths) {
    SCOPED_TRACE(path);
    std::string stem = llvm::sys::path::stem(path).str();
    auto g = importModelFile(path, {});
    ASSERT_TRUE(static_cast<bool>(g)) << llvm::toString(g.takeError());
    ASSERT_EQ((*g)->getInputs().size(), 1u);
    ASSERT_EQ((*g)->getOutputs().size(), 1u);
    const TensorType &inType = (*g)->getInputs()[0]->getType();
    const TensorType outType = (*g)->getOutputs()[0].value->getType();
    std::vector<Tensor> inputs, refs;
    for (int k = 0; k < 2; ++k) {
      std::string base = refsDir + "/" + stem + "." + std::to_string(k);
      inputs.push_back(readRawTensor(base + ".input.bin", inType));
      refs.push_back(readRawTensor(base + ".output.bin", outType));
    }
    for (bool optimized : {false, true}) {
      if (optimized) {
        llvm::Error err = runPipeline(**g, defaultPipeline(), {});
        ASSERT_FALSE(static_cast<bool>(err)) << llvm::toString(std::move(err));
      }
      for (int k = 0; k < 2; ++k) {
        std::printf("%s sample %d (%s):\n", stem.c_str(), k,
                    optimized ? "optimized" : "as imported");
        auto out = runGraph(**g, {inputs[k]});
        ASSERT_TRUE(static_cast<bool>(out)) << llvm::toString(out.takeError());
        expectMatchesReference((*out)[0], refs[k]);
      }
    }
  }
}

TEST(TFLiteInterpreter, EachInt8LayerMatchesArmNN) {
  std::string layers = refsDir + "/layers";
  std::vector<std::string> models;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(layers, ec), end; it != end && !ec;
       it.increment(ec))
    if (llvm::sys::fs::is_directory(it->path()))
      models.push_back(it->path());
  ASSERT_FALSE(ec) << layers << ": " << ec.message();
  std::sort(models.begin(), models.end());
  ASSERT_GE(models.size(), 6u);
  for (const std::string &dir : models) {
    int k = 0;
    for (;; ++k) {
      std::string base = dir + "/" + std::to_string(k);
      if (!llvm::sys::fs::exists(base + ".tflite"))
        break;
      SCOPED_TRACE(base + ".tflite");
      // Each layer model on its own: one that fails does not hide the others.
      auto g = importModelFile(base + ".tflite", {});
      if (!g) {
        ADD_FAILURE() << llvm::toString(g.takeError());
        continue;
      }
      std::vector<Tensor> inputs;
      for (size_t i = 0; i < (*g)->getInputs().size(); ++i)
        inputs.push_back(readRawTensor(base + ".input" + std::to_string(i) + ".bin",
                                 (*g)->getInputs()[i]->getType()));
      Tensor ref = readRawTensor(base + ".output.bin",
                           (*g)->getOutputs()[0].value->getType());
      auto out = runGraph(**g, inputs);
      if (!out) {
        ADD_FAILURE() << llvm::toString(out.takeError());
        continue;
      }
      std::printf("%s:", base.c_str());
      expectMatchesReference((*out)[0], ref);
    }
    EXPECT_GT(k, 0) << dir;
  }
}

/// The int8 LSTM layers (trained_lstm_int8's, and refs/layers/int8_lstm's
/// synthetic cases, which saturate gates and the cell, clip it, move the
/// zero points and use both layouts): their references are TFLM's integer
/// kernel in numpy (tools/tflite_refs/integer_lstm_oracle.py), exact rather
/// than Arm NN's float rounding, so the interpreter matches them bit for bit.
TEST(TFLiteInterpreter, IntegerLSTMMatchesTFLMBitForBit) {
  std::vector<std::string> bases = {refsDir + "/layers/trained_lstm_int8/0"};
  for (int k = 0;; ++k) {
    std::string base = refsDir + "/layers/int8_lstm/" + std::to_string(k);
    if (!llvm::sys::fs::exists(base + ".tflite"))
      break;
    bases.push_back(base);
  }
  ASSERT_GE(bases.size(), 6u);
  for (const std::string &base : bases) {
    SCOPED_TRACE(base + ".tflite");
    auto g = importModelFile(base + ".tflite", {});
    ASSERT_TRUE(static_cast<bool>(g)) << llvm::toString(g.takeError());
    Tensor x = readRawTensor(base + ".input0.bin", (*g)->getInputs()[0]->getType());
    Tensor ref = readRawTensor(base + ".output.bin", (*g)->getOutputs()[0].value->getType());
    auto out = runGraph(**g, {x});
    ASSERT_TRUE(static_cast<bool>(out)) << llvm::toString(out.takeError());
    EXPECT_TRUE((*out)[0].bitwiseEqual(ref));
  }
}

/// person_detect (which Arm NN rejects) on its two real test images: TFLM's
/// test expects the person score (index 1) above the other for person.bmp,
/// and below it for no_person.bmp.
TEST(TFLiteInterpreter, PersonDetectRanksItsTwoImages) {
  auto g = importModelFile("tests/tflite/models/person_detect.tflite", {});
  ASSERT_TRUE(static_cast<bool>(g)) << llvm::toString(g.takeError());
  for (int k = 0; k < 2; ++k) {
    Tensor image = readRawTensor(refsDir + "/person_detect." + std::to_string(k) +
                                     ".input.bin",
                                 (*g)->getInputs()[0]->getType());
    auto out = runGraph(**g, {image});
    ASSERT_TRUE(static_cast<bool>(out)) << llvm::toString(out.takeError());
    const int8_t *score = (*out)[0].data<int8_t>();
    std::printf("person_detect image %d: no person %d, person %d\n", k, score[0],
                score[1]);
    if (k == 0)
      EXPECT_GT(score[1], score[0]) << "person.bmp";
    else
      EXPECT_GT(score[0], score[1]) << "no_person.bmp";
  }
}

} // namespace
} // namespace kiln

int main(int argc, char **argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s REFS_DIR MODEL.tflite...\n", argv[0]);
    return 2;
  }
  kiln::refsDir = argv[1];
  for (int i = 2; i < argc; ++i)
    kiln::modelPaths.push_back(argv[i]);
  return RUN_ALL_TESTS();
}
