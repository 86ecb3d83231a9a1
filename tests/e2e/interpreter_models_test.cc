// The reference interpreter on each model's reference input, before and after
// the optimization pipeline, against PyTorch's output. The interpreter is the
// oracle for the compiled code's other tests, so it is checked here against
// an independent one.
//
// usage: interpreter_models_test MODEL.onnx...   (NAME.input.bin and
// NAME.output.bin beside each model)

#include "compiler/frontend/onnx/OnnxImporter.h"
#include "compiler/interpreter/Interpreter.h"
#include "compiler/pipeline/Pipeline.h"

#include "llvm/Support/MemoryBuffer.h"
#include "gtest/gtest.h"

#include <cmath>
#include <cstring>

namespace kiln {
namespace {

std::vector<std::string> modelPaths;

Tensor readRaw(const std::string &path, const TensorType &type) {
  auto buf = llvm::MemoryBuffer::getFile(path);
  EXPECT_TRUE(static_cast<bool>(buf)) << path;
  Tensor t(type);
  if (buf && (*buf)->getBufferSize() == t.sizeInBytes())
    std::memcpy(t.rawData(), (*buf)->getBufferStart(), t.sizeInBytes());
  else
    ADD_FAILURE() << path << ": expected " << t.sizeInBytes() << " bytes";
  return t;
}

void expectMatchesReference(const Tensor &got, const Tensor &ref) {
  ASSERT_EQ(got.numElements(), ref.numElements());
  double maxRef = 0, maxErr = 0;
  for (int64_t i = 0; i < ref.numElements(); ++i) {
    maxRef = std::max(maxRef, std::fabs(double(ref.data<float>()[i])));
    double err = std::fabs(double(got.data<float>()[i]) - ref.data<float>()[i]);
    maxErr = std::isnan(err) ? INFINITY : std::max(maxErr, err);
  }
  EXPECT_LE(maxErr, 1e-4 * std::max(1.0, maxRef));
  std::printf("  max abs error %.3g (max |ref| %.3g)\n", maxErr, maxRef);
}

TEST(InterpreterModels, MatchReferenceBeforeAndAfterPasses) {
  ASSERT_FALSE(modelPaths.empty());
  for (const std::string &path : modelPaths) {
    SCOPED_TRACE(path);
    std::string stem = path.substr(0, path.size() - std::strlen(".onnx"));
    auto g = importOnnxFile(path, {});
    ASSERT_TRUE(static_cast<bool>(g)) << llvm::toString(g.takeError());
    ASSERT_EQ((*g)->getInputs().size(), 1u);
    ASSERT_EQ((*g)->getOutputs().size(), 1u);
    Tensor input = readRaw(stem + ".input.bin", (*g)->getInputs()[0]->getType());
    Tensor ref = readRaw(stem + ".output.bin", (*g)->getOutputs()[0].value->getType());
    for (bool optimized : {false, true}) {
      if (optimized)
        ASSERT_FALSE(static_cast<bool>(runPipeline(**g, defaultPipeline(), {})));
      std::printf("%s (%s):\n", path.c_str(), optimized ? "optimized" : "as imported");
      auto out = runGraph(**g, {input});
      ASSERT_TRUE(static_cast<bool>(out)) << llvm::toString(out.takeError());
      expectMatchesReference((*out)[0], ref);
    }
  }
}

} // namespace
} // namespace kiln

int main(int argc, char **argv) {
  ::testing::InitGoogleTest(&argc, argv);
  for (int i = 1; i < argc; ++i)
    kiln::modelPaths.push_back(argv[i]);
  return RUN_ALL_TESTS();
}
