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
#include "tests/common/ReferenceCheck.h"

#include "llvm/Support/MemoryBuffer.h"
#include "gtest/gtest.h"

#include <cmath>
#include <cstring>

namespace kiln {
namespace {

std::vector<std::string> modelPaths;

TEST(InterpreterModels, MatchReferenceBeforeAndAfterPasses) {
  ASSERT_FALSE(modelPaths.empty());
  for (const std::string &path : modelPaths) {
    SCOPED_TRACE(path);
    std::string stem = path.substr(0, path.size() - std::strlen(".onnx"));
    auto g = importOnnxFile(path, {});
    ASSERT_TRUE(static_cast<bool>(g)) << llvm::toString(g.takeError());
    ASSERT_EQ((*g)->getInputs().size(), 1u);
    ASSERT_EQ((*g)->getOutputs().size(), 1u);
    Tensor input = readRawTensor(stem + ".input.bin", (*g)->getInputs()[0]->getType());
    Tensor ref = readRawTensor(stem + ".output.bin", (*g)->getOutputs()[0].value->getType());
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
