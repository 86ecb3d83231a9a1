// Every single-op TFLite model of refs/layers (each layer of the int8 test
// models, and refs/layers/ops: each op kiln imports, int8 and float),
// compiled through the whole pipeline and the JIT, against the reference
// interpreter on the same model: int8 bit for bit, float within 1e-5 of the
// largest magnitude. Two inputs each: the refs' (Arm NN's chained outputs)
// and one of full-range random codes.
//
// usage: compiled_layers_test REFS_DIR/layers

#include "compiler/frontend/ModelImporter.h"
#include "compiler/interpreter/Interpreter.h"
#include "compiler/jit/BundleJit.h"
#include "compiler/pipeline/Pipeline.h"
#include "tests/common/ReferenceCheck.h"

#include "llvm/Support/FileSystem.h"
#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

namespace kiln {
namespace {

std::string layersDir;

/// The models, as <dir>/<k>.tflite paths, in a fixed order.
std::vector<std::string> layerModels() {
  std::vector<std::string> dirs, models;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(layersDir, ec), end; it != end && !ec;
       it.increment(ec))
    if (llvm::sys::fs::is_directory(it->path()))
      dirs.push_back(it->path());
  std::sort(dirs.begin(), dirs.end());
  for (const std::string &dir : dirs)
    for (int k = 0;; ++k) {
      std::string path = dir + "/" + std::to_string(k) + ".tflite";
      if (!llvm::sys::fs::exists(path))
        break;
      models.push_back(path);
    }
  return models;
}

Tensor randomCodes(const TensorType &type, uint64_t seed) {
  Tensor t(type);
  std::mt19937_64 rng(seed);
  if (type.dtype == DType::I8) {
    std::uniform_int_distribution<int> dist(-128, 127);
    for (int64_t i = 0; i < t.numElements(); ++i)
      t.data<int8_t>()[i] = int8_t(dist(rng));
  } else {
    std::uniform_real_distribution<float> dist(-8, 8);
    for (int64_t i = 0; i < t.numElements(); ++i)
      t.data<float>()[i] = dist(rng);
  }
  return t;
}

void expectSame(const Tensor &got, const Tensor &want) {
  ASSERT_EQ(got.getType(), want.getType());
  if (want.getDType() != DType::F32) {
    EXPECT_EQ(0, std::memcmp(got.rawData(), want.rawData(), want.sizeInBytes()));
    return;
  }
  double scale = 1;
  for (int64_t i = 0; i < want.numElements(); ++i)
    scale = std::max(scale, double(std::fabs(want.data<float>()[i])));
  for (int64_t i = 0; i < want.numElements(); ++i)
    ASSERT_LE(std::fabs(got.data<float>()[i] - want.data<float>()[i]), 1e-5 * scale)
        << "element " << i;
}

TEST(TFLiteLayers, CompiledMatchesInterpreter) {
  std::vector<std::string> models = layerModels();
  ASSERT_GE(models.size(), 100u) << layersDir;
  for (const std::string &path : models) {
    SCOPED_TRACE(path);
    auto ref = importModelFile(path, {}), g = importModelFile(path, {});
    ASSERT_TRUE(ref && g) << path;
    std::string base = path.substr(0, path.size() - std::strlen(".tflite"));
    std::vector<Tensor> refInputs, randomInputs;
    for (size_t i = 0; i < (*ref)->getInputs().size(); ++i) {
      const TensorType &t = (*ref)->getInputs()[i]->getType();
      refInputs.push_back(readRawTensor(base + ".input" + std::to_string(i) + ".bin", t));
      randomInputs.push_back(randomCodes(t, 100 + i));
    }
    llvm::Error err = runPipeline(**g, defaultPipeline(), {});
    ASSERT_FALSE(static_cast<bool>(err)) << llvm::toString(std::move(err));
    auto bundle = JitBundle::compile(**g);
    ASSERT_TRUE(static_cast<bool>(bundle)) << llvm::toString(bundle.takeError());
    for (const auto &inputs : {refInputs, randomInputs}) {
      auto want = runGraph(**ref, inputs);
      ASSERT_TRUE(static_cast<bool>(want)) << llvm::toString(want.takeError());
      auto got = (*bundle)->run(inputs);
      ASSERT_TRUE(static_cast<bool>(got)) << llvm::toString(got.takeError());
      ASSERT_EQ(got->size(), want->size());
      for (size_t o = 0; o < want->size(); ++o)
        expectSame((*got)[o], (*want)[o]);
    }
  }
}

} // namespace
} // namespace kiln

int main(int argc, char **argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s REFS_DIR/layers\n", argv[0]);
    return 2;
  }
  kiln::layersDir = argv[1];
  return RUN_ALL_TESTS();
}
