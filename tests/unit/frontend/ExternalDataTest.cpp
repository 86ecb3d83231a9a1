//===- ExternalDataTest.cpp - ONNX tensors stored beside the model --------===//
//
// Models written to a directory of their own with their weights in files
// beside them, as ONNX's external data format lays them out, imported and
// run; then each malformed reference, with the error it must give.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/ModelImporter.h"
#include "compiler/frontend/onnx/OnnxImporter.h"
#include "compiler/interpreter/Interpreter.h"
#include "tests/common/TestDir.h"
#include "tests/unit/frontend/OnnxModelBuilder.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <utility>
#include <vector>

namespace kiln {
namespace {

using test::ModelBuilder;
namespace fs = std::filesystem;

using Entries = std::vector<std::pair<std::string, std::string>>;

void writeFile(const fs::path &p, const std::string &bytes) {
  std::ofstream out(p, std::ios::binary);
  out << bytes;
}

std::string floatBytes(const std::vector<float> &v) {
  std::string s(v.size() * sizeof(float), '\0');
  std::memcpy(s.data(), v.data(), s.size());
  return s;
}

/// Makes `t` (a float tensor of `dims`) external: no values in the model,
/// `entries` as its external_data.
void makeExternal(onnx::TensorProto &t, const std::string &name,
                  std::vector<int64_t> dims, const Entries &entries) {
  t.Clear();
  t.set_name(name);
  t.set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims)
    t.add_dims(d);
  t.set_data_location(onnx::TensorProto::EXTERNAL);
  for (const auto &[key, value] : entries) {
    onnx::StringStringEntryProto *e = t.add_external_data();
    e->set_key(key);
    e->set_value(value);
  }
}

const std::vector<float> kWeights = {1.5f, -2.0f, 0.25f, 8.0f};
const std::vector<float> kScale = {2.0f, 3.0f, -1.0f, 0.5f};

/// y = (x + w) * s: w an initializer at offset 8 of weights.bin (after 8
/// other bytes), s a Constant node's value, all of scale.bin. `wEntries`
/// replaces w's external_data.
ModelBuilder externalModel(const Entries &wEntries = {{"location", "weights.bin"},
                                                      {"offset", "8"},
                                                      {"length", "16"}}) {
  ModelBuilder b(13);
  b.input("x", {4}).output("y", {4});
  b.initializer("w", {4}, {0, 0, 0, 0});
  makeExternal(*b.proto().mutable_graph()->mutable_initializer(0), "w", {4},
               wEntries);
  onnx::NodeProto &constant = b.node("Constant", {}, {"s"}, "scale");
  onnx::AttributeProto *value = constant.add_attribute();
  value->set_name("value");
  value->set_type(onnx::AttributeProto::TENSOR);
  makeExternal(*value->mutable_t(), "s", {4}, {{"location", "scale.bin"}});
  b.node("Add", {"x", "w"}, {"sum"});
  b.node("Mul", {"sum", "s"}, {"y"});
  return b;
}

/// Writes `b` as dir/model.onnx beside weights.bin and scale.bin.
fs::path writeModel(const fs::path &dir, const ModelBuilder &b) {
  writeFile(dir / "weights.bin", std::string("\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f", 8) +
                                     floatBytes(kWeights));
  writeFile(dir / "scale.bin", floatBytes(kScale));
  writeFile(dir / "model.onnx", b.bytes());
  return dir / "model.onnx";
}

std::string importFileError(const fs::path &model) {
  auto g = importOnnxFile(model.string(), {});
  if (g)
    return "import unexpectedly succeeded";
  return llvm::toString(g.takeError());
}

TEST(ExternalData, WeightsAndConstantsAreReadFromFilesBesideTheModel) {
  fs::path model = writeModel(test::freshTestDir(), externalModel());
  // importModelFile is what kilnc calls.
  auto g = importModelFile(model.string(), {});
  ASSERT_TRUE(bool(g)) << llvm::toString(g.takeError());
  std::vector<float> x = {1.0f, 2.0f, 3.0f, 4.0f};
  auto out = runGraph(**g, {Tensor::fromValues<float>(DType::F32, {4}, x)});
  ASSERT_TRUE(bool(out)) << llvm::toString(out.takeError());
  const float *y = (*out)[0].data<float>();
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(y[i], (x[i] + kWeights[i]) * kScale[i]) << i;
}

TEST(ExternalData, ALocationInASubdirectoryOfTheModelsIsRead) {
  fs::path dir = test::freshTestDir();
  fs::create_directories(dir / "data");
  writeFile(dir / "data" / "w.bin", floatBytes(kWeights));
  fs::path model = writeModel(dir, externalModel({{"location", "data/w.bin"}}));
  auto g = importOnnxFile(model.string(), {});
  EXPECT_TRUE(bool(g)) << llvm::toString(g.takeError());
}

TEST(ExternalData, MalformedReferencesAreErrorsNamingTheTensor) {
  fs::path dir = test::freshTestDir();
  fs::create_directories(dir / "a_directory");
  const std::pair<Entries, std::string> cases[] = {
      {{{"location", "missing.bin"}},
       "cannot read external data file '" + (dir / "missing.bin").string() +
           "': No such file or directory"},
      {{{"location", "a_directory"}},
       "cannot read external data file '" + (dir / "a_directory").string() +
           "': not a regular file"},
      {{{"location", "/etc/hostname"}},
       "external data location '/etc/hostname' is not a relative path inside "
       "the model's directory"},
      {{{"location", "data/../../weights.bin"}},
       "external data location 'data/../../weights.bin' is not a relative "
       "path inside the model's directory"},
      {{{"offset", "0"}}, "the data is external but no location names its file"},
      {{{"location", "weights.bin"}, {"offset", "25"}},
       "external data offset 25 is past the end of 'weights.bin' (24 bytes)"},
      {{{"location", "weights.bin"}, {"offset", "12"}, {"length", "16"}},
       "external data of 16 bytes at offset 12 runs past the end of "
       "'weights.bin' (24 bytes)"},
      {{{"location", "weights.bin"}},
       "external data holds 24 bytes, the dims need 16"},
      {{{"location", "weights.bin"}, {"offset", "-8"}},
       "external_data offset '-8' is not a non-negative integer"},
      {{{"location", "weights.bin"}, {"length", "16 bytes"}},
       "external_data length '16 bytes' is not a non-negative integer"},
      {{{"location", "weights.bin"}, {"location", "scale.bin"}},
       "external_data key 'location' appears twice"},
      {{{"location", "weights.bin"}, {"compression", "zstd"}},
       "unknown external_data key 'compression'"},
  };
  for (const auto &[entries, message] : cases) {
    fs::path model = writeModel(dir, externalModel(entries));
    EXPECT_EQ(importFileError(model), "tensor 'w': " + message);
  }
}

TEST(ExternalData, ValuesInTheModelAndAFileAreAmbiguous) {
  ModelBuilder b = externalModel();
  b.proto().mutable_graph()->mutable_initializer(0)->add_float_data(1.0f);
  EXPECT_EQ(importFileError(writeModel(test::freshTestDir(), b)),
            "tensor 'w': holds values both in the model and in an external file");

  ModelBuilder notExternal = externalModel();
  notExternal.proto().mutable_graph()->mutable_initializer(0)->set_data_location(
      onnx::TensorProto::DEFAULT);
  EXPECT_EQ(importFileError(writeModel(test::freshTestDir(), notExternal)),
            "tensor 'w': has external_data entries but its data_location is "
            "not EXTERNAL");
}

TEST(ExternalData, AModelFromMemoryHasNoDirectoryToReadFrom) {
  auto g = importOnnxBuffer(externalModel().bytes(), "m", {});
  ASSERT_FALSE(bool(g));
  EXPECT_EQ(llvm::toString(g.takeError()),
            "tensor 'w': the data is in the external file 'weights.bin', which "
            "is found beside the model file; this model was not read from a "
            "file");
}

TEST(ExternalData, AConstantNodesErrorNamesTheNode) {
  fs::path dir = test::freshTestDir();
  fs::path model = writeModel(dir, externalModel());
  fs::remove(dir / "scale.bin");
  EXPECT_EQ(importFileError(model),
            "node 'scale' (Constant): tensor 's': cannot read external data "
            "file '" + (dir / "scale.bin").string() +
                "': No such file or directory");
}

} // namespace
} // namespace kiln
