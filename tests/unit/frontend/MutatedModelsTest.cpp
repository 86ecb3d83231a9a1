//===- MutatedModelsTest.cpp - Corrupted models never crash the importer --===//
//
// Feeds the importer deterministic corruptions of the shipped models: every
// truncation length on a coarse grid, and structural mutations made through
// the protobuf API (attribute values, dims, element types, op types, input
// names, initializer shapes). Each import must return a graph that verifies
// or an error; a crash fails the test binary. This covers the importer and
// the ops' type rules on inputs no exporter would write.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/onnx/OnnxImporter.h"
#include "compiler/graph/Verifier.h"

#include "llvm/Support/MemoryBuffer.h"

#include "onnx/onnx_pb.h"

#include <gtest/gtest.h>

#include <iostream>
#include <random>

namespace kiln {
namespace {

constexpr int kMutationsPerModel = 3000;
const char *const kModels[] = {"lenet5", "ds_cnn_kws", "resnet8_cifar"};

std::string readModel(const std::string &name) {
  auto file = llvm::MemoryBuffer::getFile("bundles/models/" + name + ".onnx");
  if (!file) {
    ADD_FAILURE() << "cannot read " << name;
    return "";
  }
  return (*file)->getBuffer().str();
}

/// Imports `bytes`; true if it imported. A graph that imports must verify.
bool importChecked(const std::string &bytes, const std::string &what) {
  auto g = importOnnxBuffer(bytes, "m", {});
  if (!g) {
    EXPECT_FALSE(llvm::toString(g.takeError()).empty()) << what;
    return false;
  }
  if (llvm::Error e = verifyGraph(**g))
    ADD_FAILURE() << what << ": " << llvm::toString(std::move(e));
  return true;
}

TEST(MutatedModels, TruncationsNeverCrash) {
  for (const char *name : kModels) {
    std::string bytes = readModel(name);
    for (size_t len = 0; len < bytes.size(); len += 1 + bytes.size() / 500)
      importChecked(bytes.substr(0, len), std::string(name) + " truncated");
  }
}

/// Values that break arithmetic: zero, negatives, huge, overflowing.
int64_t nastyInt(std::mt19937 &rng) {
  static const int64_t values[] = {0,
                                   1,
                                   2,
                                   3,
                                   -1,
                                   -2,
                                   7,
                                   1000,
                                   1 << 20,
                                   int64_t(1) << 40,
                                   INT64_MAX,
                                   INT64_MIN,
                                   -(int64_t(1) << 40)};
  return values[rng() % (sizeof(values) / sizeof(values[0]))];
}

class Mutator {
  /// A random element of a non-empty repeated field.
  template <typename Repeated> auto &pick(Repeated &r) {
    return *r.Mutable(rng_() % r.size());
  }

public:
  explicit Mutator(uint32_t seed) : rng_(seed) {}

  /// Applies one random structural mutation to `m`.
  void mutate(onnx::ModelProto &m) {
    onnx::GraphProto &g = *m.mutable_graph();
    switch (rng_() % 9) {
    case 0: { // an int or ints attribute value
      onnx::NodeProto &n = pick(*g.mutable_node());
      if (n.attribute_size() == 0)
        return;
      onnx::AttributeProto &a = pick(*n.mutable_attribute());
      if (a.ints_size() > 0)
        a.set_ints(rng_() % a.ints_size(), nastyInt(rng_));
      else
        a.set_i(nastyInt(rng_));
      return;
    }
    case 1: { // the length of an ints attribute
      onnx::NodeProto &n = pick(*g.mutable_node());
      if (n.attribute_size() == 0)
        return;
      onnx::AttributeProto &a = pick(*n.mutable_attribute());
      if (rng_() % 2 && a.ints_size() > 0)
        a.mutable_ints()->RemoveLast();
      else
        a.add_ints(nastyInt(rng_));
      return;
    }
    case 2: { // a graph input dimension
      onnx::TensorShapeProto *shape = pick(*g.mutable_input())
                                          .mutable_type()
                                          ->mutable_tensor_type()
                                          ->mutable_shape();
      if (rng_() % 3 == 0)
        shape->add_dim()->set_dim_value(1 + rng_() % 4);
      else if (shape->dim_size() > 0)
        pick(*shape->mutable_dim()).set_dim_value(nastyInt(rng_) % 100);
      return;
    }
    case 3: // an element type
      pick(*g.mutable_input())
          .mutable_type()
          ->mutable_tensor_type()
          ->set_elem_type(rng_() % 18);
      return;
    case 4: { // an op type
      static const char *const ops[] = {"Conv",
                                        "Gemm",
                                        "MatMul",
                                        "Add",
                                        "Relu",
                                        "Clip",
                                        "MaxPool",
                                        "AveragePool",
                                        "GlobalAveragePool",
                                        "BatchNormalization",
                                        "Softmax",
                                        "Flatten",
                                        "Reshape",
                                        "Transpose",
                                        "Concat",
                                        "Pad",
                                        "Dropout",
                                        "Shape",
                                        "Gather",
                                        "Unsqueeze",
                                        "Squeeze",
                                        "Cast",
                                        "Constant"};
      pick(*g.mutable_node())
          .set_op_type(ops[rng_() % (sizeof(ops) / sizeof(ops[0]))]);
      return;
    }
    case 5: { // an input name: another value, nothing, or unknown
      onnx::NodeProto &n = pick(*g.mutable_node());
      if (n.input_size() == 0)
        return;
      std::string *in = &n.mutable_input()->at(rng_() % n.input_size());
      const onnx::NodeProto &other = g.node(rng_() % g.node_size());
      switch (rng_() % 3) {
      case 0: *in = other.output_size() ? other.output(0) : ""; break;
      case 1: *in = ""; break;
      default: *in = "undefined"; break;
      }
      return;
    }
    case 6: { // an extra or a missing input
      onnx::NodeProto &n = pick(*g.mutable_node());
      if (rng_() % 2 && n.input_size() > 0)
        n.mutable_input()->RemoveLast();
      else
        n.add_input(g.input(0).name());
      return;
    }
    case 7: { // an initializer's dims
      if (g.initializer_size() == 0)
        return;
      onnx::TensorProto &t = pick(*g.mutable_initializer());
      if (t.dims_size() > 0 && rng_() % 2)
        t.set_dims(rng_() % t.dims_size(), nastyInt(rng_));
      else
        t.add_dims(1 + rng_() % 3);
      return;
    }
    default: // the opset
      m.mutable_opset_import(0)->set_version(5 + rng_() % 15);
      return;
    }
  }

private:
  std::mt19937 rng_;
};

TEST(MutatedModels, StructuralMutationsNeverCrash) {
  for (const char *name : kModels) {
    onnx::ModelProto original;
    std::string bytes = readModel(name);
    ASSERT_TRUE(original.ParseFromString(bytes)) << name;
    // A fixed seed keeps the test deterministic.
    Mutator mutator(1234);
    int imported = 0;
    for (int i = 0; i < kMutationsPerModel; ++i) {
      onnx::ModelProto m = original;
      for (int k = 0, e = 1 + i % 3; k < e; ++k)
        mutator.mutate(m);
      std::string mutated;
      m.SerializeToString(&mutated);
      imported += importChecked(mutated, std::string(name) + " mutation " +
                                             std::to_string(i));
    }
    std::cout << name << ": " << kMutationsPerModel << " mutated models, "
              << imported << " imported, " << kMutationsPerModel - imported
              << " rejected\n";
    // Many mutations are harmless (e.g. an attribute set to its value), so
    // a healthy importer accepts some; none at all means it rejects
    // everything and the test checks nothing.
    EXPECT_GT(imported, 0) << name;
    EXPECT_LT(imported, kMutationsPerModel) << name;
  }
}

} // namespace
} // namespace kiln
