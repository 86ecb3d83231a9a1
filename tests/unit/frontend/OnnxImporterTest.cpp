//===- OnnxImporterTest.cpp - Model-level import behaviour ----------------===//
//
// Graph inputs, initializers, Constant nodes, naming, outputs and the error
// messages a user sees for models kiln cannot compile.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/onnx/OnnxImporter.h"
#include "tests/unit/frontend/ImportTestUtil.h"
#include "tests/unit/frontend/OnnxModelBuilder.h"

#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

#include <functional>
#include <limits>

namespace kiln {
namespace {

using test::importError;
using test::importOk;
using test::ModelBuilder;

/// y = Relu(x) over f32[2,3]: the smallest valid model, varied by tests.
ModelBuilder reluModel(int64_t opset = 13) {
  ModelBuilder b(opset);
  b.input("x", {2, 3}).output("y", {2, 3});
  b.node("Relu", {"x"}, {"y"}, "relu");
  return b;
}

TEST(OnnxImporter, MinimalModel) {
  auto g = importOk(reluModel());
  ASSERT_TRUE(g);
  EXPECT_EQ(g->getName(), "m");
  ASSERT_EQ(g->getInputs().size(), 1u);
  EXPECT_EQ(g->getInputs()[0]->getName(), "x");
  EXPECT_EQ(g->getInputs()[0]->getType(), TensorType(DType::F32, {2, 3}));
  ASSERT_EQ(g->getNumNodes(), 1u);
  Node *n = g->getNodes()[0];
  EXPECT_TRUE(n->is(OpKind::Relu));
  EXPECT_EQ(n->getName(), "relu");
  ASSERT_EQ(g->getOutputs().size(), 1u);
  EXPECT_EQ(g->getOutputs()[0].name, "y");
  EXPECT_EQ(g->getOutputs()[0].value, n->getOutput());
  // Results keep their ONNX tensor names.
  EXPECT_EQ(n->getOutput()->getName(), "y");
}

TEST(OnnxImporter, InitializerBackedInputIsAConstant) {
  ModelBuilder b(13, /*irVersion=*/3);
  b.input("x", {2}).input("w", {2}).output("y", {2});
  b.initializer("w", {2}, {1.5f, -2.0f});
  b.node("Add", {"x", "w"}, {"y"});
  auto g = importOk(b);
  ASSERT_TRUE(g);
  ASSERT_EQ(g->getInputs().size(), 1u);
  EXPECT_EQ(g->getInputs()[0]->getName(), "x");
  Value *w = g->getNodes()[0]->getInput(1);
  ASSERT_TRUE(w->isConstant());
  EXPECT_EQ(w->getName(), "w");
  EXPECT_EQ(w->getConstant().values<float>(),
            llvm::ArrayRef<float>({1.5f, -2.0f}));
}

TEST(OnnxImporter, DuplicateGraphInputIsAnError) {
  ModelBuilder b(13);
  b.input("x", {2}).input("x", {2}).output("y", {2});
  b.node("Relu", {"x"}, {"y"});
  EXPECT_NE(importError(b).find("graph input 'x' is listed twice"), std::string::npos)
      << importError(b);
}

TEST(OnnxImporter, ConstantNodeForms) {
  ModelBuilder b(13);
  b.input("x", {2, 3}).output("y").output("c", {2}, onnx::TensorProto::INT64);
  test::setInts(b.node("Constant", {}, {"c"}), "value_ints", {3, 2});
  test::setFloat(b.node("Constant", {}, {"k"}), "value_float", 0.5f);
  b.node("Mul", {"x", "k"}, {"y"});
  auto g = importOk(b);
  ASSERT_TRUE(g);
  ASSERT_EQ(g->getNumNodes(), 1u);
  Value *k = g->getNodes()[0]->getInput(1);
  ASSERT_TRUE(k->isConstant());
  EXPECT_EQ(k->getType(), TensorType(DType::F32, {}));
  EXPECT_EQ(k->getConstant().values<float>()[0], 0.5f);
  // A graph output may be a constant.
  Value *c = g->getOutputs()[1].value;
  ASSERT_TRUE(c->isConstant());
  EXPECT_EQ(c->getConstant().values<int64_t>(),
            llvm::ArrayRef<int64_t>({3, 2}));
}

TEST(OnnxImporter, OutputMayBeAGraphInput) {
  ModelBuilder b = reluModel();
  b.output("x", {2, 3});
  auto g = importOk(b);
  ASSERT_TRUE(g);
  ASSERT_EQ(g->getOutputs().size(), 2u);
  EXPECT_EQ(g->getOutputs()[1].value, g->getInputs()[0]);
}

TEST(OnnxImporter, NodeNamesAreUniqueAndDefaulted) {
  ModelBuilder b(13);
  b.input("x", {2}).output("d", {2});
  b.node("Relu", {"x"}, {"a"}, "same");
  b.node("Relu", {"a"}, {"b"}, "same");
  b.node("Sigmoid", {"b"}, {"c"});
  b.node("Tanh", {"c"}, {"d"});
  auto g = importOk(b);
  ASSERT_TRUE(g);
  std::vector<std::string> names;
  for (Node *n : g->getNodes())
    names.push_back(n->getName().str());
  EXPECT_EQ(names, (std::vector<std::string>{"same", "same_1", "Sigmoid_2",
                                             "Tanh_3"}));
}

TEST(OnnxImporter, NodesMayShareANameWithTheirOutput) {
  ModelBuilder b(13);
  b.input("x", {2}).output("b", {2});
  b.node("Relu", {"x"}, {"a"}, "a");
  b.node("Relu", {"a"}, {"b"}, "b");
  auto g = importOk(b);
  ASSERT_TRUE(g);
  std::vector<Node *> nodes = g->getNodes();
  ASSERT_EQ(nodes.size(), 2u);
  EXPECT_EQ(nodes[0]->getName(), "a");
  EXPECT_EQ(nodes[0]->getOutput()->getName(), "a");
  EXPECT_EQ(nodes[1]->getName(), "b");
  EXPECT_EQ(nodes[1]->getOutput()->getName(), "b");
}

TEST(OnnxImporter, TruncatedAndGarbageFilesGiveTheParseError) {
  auto bytes = llvm::MemoryBuffer::getFile("bundles/models/lenet5.onnx");
  ASSERT_TRUE(bytes) << bytes.getError().message();
  llvm::StringRef full = (*bytes)->getBuffer();
  auto whole = importOnnxBuffer(full, "lenet5", {});
  ASSERT_TRUE(bool(whole)) << llvm::toString(whole.takeError());
  auto truncated =
      importOnnxBuffer(full.take_front(full.size() / 2), "lenet5.onnx", {});
  ASSERT_FALSE(truncated);
  EXPECT_EQ(llvm::toString(truncated.takeError()),
            "lenet5.onnx: not a valid ONNX model (failed to parse protobuf: "
            "malformed, or messages nested more than 100 deep)");
  auto garbage = importOnnxBuffer("this is not an ONNX model", "junk", {});
  ASSERT_FALSE(garbage);
  EXPECT_EQ(llvm::toString(garbage.takeError()),
            "junk: not a valid ONNX model (failed to parse protobuf: "
            "malformed, or messages nested more than 100 deep)");
  // Bytes that happen to parse as a protobuf but carry no model.
  auto empty = importOnnxBuffer("", "empty", {});
  ASSERT_FALSE(empty);
  EXPECT_EQ(llvm::toString(empty.takeError()),
            "empty: not a valid ONNX model (no ir_version)");
}

TEST(OnnxImporter, MissingFile) {
  auto g = importOnnxFile("/nonexistent/model.onnx", {});
  ASSERT_FALSE(g);
  EXPECT_NE(llvm::toString(g.takeError())
                .find("/nonexistent/model.onnx: cannot read file"),
            std::string::npos);
}

TEST(OnnxImporter, AllUnsupportedOpsInOneMessage) {
  ModelBuilder b(13);
  b.input("x", {2}).output("z");
  b.node("Relu", {"x"}, {"a"}, "n1");
  b.node("Unique", {"a"}, {"b"}, "n3");
  b.node("Foo", {"b"}, {"c"}, "n9").set_domain("com.x");
  b.node("Relu", {"c"}, {"z"}, "");
  b.node("Relu", {"c"}, {"w"}, "").set_domain("com.x");
  EXPECT_EQ(importError(b),
            "unsupported ops: node 'n3' (Unique: its result's shape depends "
            "on the input data: kiln plans all memory at compile time for "
            "static shapes), node 'n9' (Foo) [domain com.x], node 'Relu_4' "
            "(Relu) [domain com.x]");
}

/// NonZero of a constant is a constant: PyTorch's exports before opset 11
/// write torch.arange(n) as NonZero(ConstantOfShape(n, 1)).
TEST(OnnxImporter, NonZeroOfAConstantFolds) {
  ModelBuilder b(9);
  b.input("x", {2, 3}).output("y");
  b.initializer("c", {2, 3}, {0.0f, 2.0f, 0.0f, -1.0f, 0.5f, 0.0f});
  b.node("NonZero", {"c"}, {"nz"}, "nz");
  b.node("Cast", {"nz"}, {"nzf"}, "cast").add_attribute()->CopyFrom([] {
    onnx::AttributeProto a;
    a.set_name("to");
    a.set_type(onnx::AttributeProto::INT);
    a.set_i(onnx::TensorProto::FLOAT);
    return a;
  }());
  b.node("Add", {"x", "nzf"}, {"y"}, "add");
  auto g = importOk(b);
  ASSERT_TRUE(g);
  // Rows: the elements' row and column indices, row-major: (0,1) (1,0) (1,1).
  EXPECT_EQ(test::runOnInput(*g, {2, 3}, std::vector<float>(6, 10.0f)),
            std::vector<float>({10, 11, 11, 11, 10, 11}));
}

TEST(OnnxImporter, NonZeroOfARunTimeValueIsAnError) {
  ModelBuilder b(13);
  b.input("x", {4}).output("y");
  b.node("NonZero", {"x"}, {"y"}, "nz");
  EXPECT_EQ(importError(b),
            "node 'nz' (NonZero): its input is computed at run time, and a result whose shape "
            "depends on the input data is not supported: kiln plans all memory at compile "
            "time for static shapes (a NonZero of a constant folds at import)");
}

TEST(OnnxImporter, ShapeMismatchNamesTheNode) {
  ModelBuilder b(13);
  b.input("a", {2, 3}).input("b", {4}).output("c");
  b.node("Add", {"a", "b"}, {"c"}, "add0");
  std::string msg = importError(b);
  EXPECT_EQ(msg.rfind("node 'add0' (Add): ", 0), 0u) << msg;
}

TEST(OnnxImporter, AbsurdSizesAreErrorsNotOverflows) {
  // Window attributes far beyond any tensor.
  ModelBuilder conv(13);
  conv.input("x", {1, 1, 8, 8}).initializer("w", {1, 1, 3, 3},
                                            std::vector<float>(9, 1.0f));
  conv.output("y");
  test::setInts(conv.node("Conv", {"x", "w"}, {"y"}, "conv"), "dilations",
                {int64_t(1) << 62, 1});
  std::string msg = importError(conv);
  EXPECT_EQ(msg.rfind("node 'conv' (Conv): kernel sizes, strides and "
                      "dilations must be in [1, 16777216]",
                      0),
            0u)
      << msg;
  // Results whose element count overflows, or is merely too large.
  for (int64_t pad : {int64_t(1) << 40, int64_t(1) << 20}) {
    ModelBuilder b(13);
    b.input("x", {1, 2}).int64Initializer("pads", {4}, {0, 0, pad, pad});
    b.output("y");
    b.node("Pad", {"x", "pads"}, {"y"}, "pad");
    msg = importError(b);
    EXPECT_NE(msg.find("node 'pad' (Pad): a result of shape"),
              std::string::npos)
        << msg;
    EXPECT_NE(msg.find("would exceed kiln's limit of 2147483647 elements"),
              std::string::npos)
        << msg;
  }
}

// The probe's pad that adds 2^63-1 to an extent of 1: an overflow, named as
// such (it once read "pads remove more than the 1 elements").
TEST(OnnxImporter, PadOverflowIsNamed) {
  ModelBuilder b(13);
  b.input("x", {1, 2}).int64Initializer("pads", {4}, {INT64_MAX, 0, 0, 0});
  b.output("y");
  b.node("Pad", {"x", "pads"}, {"y"}, "pad");
  EXPECT_EQ(importError(b),
            "node 'pad' (Pad): pads 9223372036854775807 and 0 of dimension 0 (extent 1) "
            "overflow int64");
}

/// The message of importing a one-node model over f32 `a` [2,3] and `b`
/// [3,2] (both used where the op has two inputs), after `set` adds
/// attributes to the node.
std::string oneNodeError(const char *op, std::vector<int64_t> aShape,
                      const std::function<void(onnx::NodeProto &)> &set) {
  ModelBuilder b(13);
  std::vector<test::Dim> dims(aShape.begin(), aShape.end());
  b.input("a", dims).input("b", {3, 2}).output("y");
  bool binary = std::string(op) == "Gemm";
  onnx::NodeProto &n = binary ? b.node(op, {"a", "b"}, {"y"}, "the_node")
                              : b.node(op, {"a"}, {"y"}, "the_node");
  set(n);
  return importError(b);
}

TEST(OnnxImporter, AttributesOutsideTheirDomainAreErrors) {
  for (int64_t bad : {int64_t(2), int64_t(100000), INT64_MIN})
    for (const char *flag : {"transA", "transB"})
      EXPECT_EQ(oneNodeError("Gemm", {2, 3}, [&](onnx::NodeProto &n) { test::setInt(n, flag, bad); }),
                "node 'the_node' (Gemm): attribute '" + std::string(flag) +
                    "' must be 0 or 1, got " + std::to_string(bad));
  EXPECT_EQ(oneNodeError("Gemm", {2, 3},
                      [](onnx::NodeProto &n) {
                        test::setFloat(n, "alpha", std::numeric_limits<float>::quiet_NaN());
                      }),
            "node 'the_node' (Gemm): attribute 'alpha' must be finite, got nan");
  EXPECT_EQ(oneNodeError("Gemm", {2, 3},
                      [](onnx::NodeProto &n) {
                        test::setFloat(n, "beta", -std::numeric_limits<float>::infinity());
                      }),
            "node 'the_node' (Gemm): attribute 'beta' must be finite, got -inf");
  auto pool = [](const std::function<void(onnx::NodeProto &)> &set) {
    return oneNodeError("MaxPool", {1, 1, 4, 4}, [&](onnx::NodeProto &n) {
      test::setInts(n, "kernel_shape", {2, 2});
      set(n);
    });
  };
  EXPECT_EQ(pool([](onnx::NodeProto &n) { test::setInt(n, "ceil_mode", 7); }),
            "node 'the_node' (MaxPool): attribute 'ceil_mode' must be 0 or 1, got 7");
  EXPECT_EQ(pool([](onnx::NodeProto &n) { test::setString(n, "auto_pad", "SAME"); }),
            "node 'the_node' (MaxPool): attribute 'auto_pad' must be one of \"NOTSET\", "
            "\"VALID\", \"SAME_UPPER\", \"SAME_LOWER\", got \"SAME\"");
  EXPECT_EQ(oneNodeError("LeakyRelu", {2, 3},
                      [](onnx::NodeProto &n) {
                        test::setFloat(n, "alpha", std::numeric_limits<float>::infinity());
                      }),
            "node 'the_node' (LeakyRelu): attribute 'alpha' must be finite, got inf");
  EXPECT_EQ(oneNodeError("DepthToSpace", {1, 4, 2, 2},
                      [](onnx::NodeProto &n) {
                        test::setInt(n, "blocksize", 2);
                        test::setString(n, "mode", "dcr");
                      }),
            "node 'the_node' (DepthToSpace): attribute 'mode' must be one of \"DCR\", "
            "\"CRD\", got \"dcr\"");
}

TEST(OnnxImporter, InitializerWithTwoDataFieldsIsAnError) {
  ModelBuilder b = reluModel();
  b.initializer("w", {1}, {1.0f});
  b.proto().mutable_graph()->mutable_initializer(0)->set_raw_data(std::string(4, '\0'));
  EXPECT_EQ(importError(b), "tensor 'w': holds values in more than one data field");
}

TEST(OnnxImporter, SymbolicDimensionNeedsABinding) {
  ModelBuilder b(13);
  b.input("x", {"N", 3}).output("y");
  b.node("Relu", {"x"}, {"y"});
  EXPECT_EQ(importError(b), "input 'x' dimension 0 is symbolic ('N'): bind "
                            "it with --dim N=VALUE");
  OnnxImportOptions opts;
  opts.dimBindings["N"] = 5;
  auto g = importOk(b, opts);
  ASSERT_TRUE(g);
  EXPECT_EQ(g->getInputs()[0]->getType(), TensorType(DType::F32, {5, 3}));
  EXPECT_EQ(g->getOutputs()[0].value->getType(),
            TensorType(DType::F32, {5, 3}));
}

TEST(OnnxImporter, InputTypeErrors) {
  ModelBuilder noValue(13);
  noValue.input("x", {2, test::Dim(-1)}).output("y");
  noValue.node("Relu", {"x"}, {"y"});
  EXPECT_EQ(importError(noValue), "input 'x' dimension 1 has no value");

  ModelBuilder noShape(13);
  noShape.input("x", {}).output("y");
  noShape.proto()
      .mutable_graph()
      ->mutable_input(0)
      ->mutable_type()
      ->mutable_tensor_type()
      ->clear_shape();
  noShape.node("Relu", {"x"}, {"y"});
  EXPECT_EQ(importError(noShape),
            "input 'x' has no shape; kiln compiles static shapes only");

  ModelBuilder complex(13);
  complex.input("x", {2}, onnx::TensorProto::COMPLEX64).output("y");
  complex.node("Relu", {"x"}, {"y"});
  EXPECT_EQ(importError(complex),
            "input 'x': element type COMPLEX64 is not supported");
}

TEST(OnnxImporter, OpsetRange) {
  EXPECT_EQ(importError(reluModel(0)),
            "ONNX opset 0 is not supported; kiln supports opsets 1 to 22");
  EXPECT_EQ(importError(reluModel(23)),
            "ONNX opset 23 is not supported; kiln supports opsets 1 to 22");
  EXPECT_TRUE(importOk(reluModel(1)));
  EXPECT_TRUE(importOk(reluModel(6)));
  EXPECT_TRUE(importOk(reluModel(17)));
  EXPECT_TRUE(importOk(reluModel(22)));

  ModelBuilder aiOnnx = reluModel();
  aiOnnx.proto().mutable_opset_import(0)->set_domain("ai.onnx");
  EXPECT_TRUE(importOk(aiOnnx));
  ModelBuilder noDefault = reluModel();
  noDefault.proto().mutable_opset_import(0)->set_domain("ai.onnx.ml");
  EXPECT_EQ(importError(noDefault),
            "the model imports only the domains ai.onnx.ml, which are not "
            "supported (only the default ONNX domain is)");
  ModelBuilder oldIr = reluModel();
  oldIr.proto().set_ir_version(2);
  EXPECT_EQ(importError(oldIr),
            "ir_version 2 is not supported; kiln needs ir_version >= 3");
}

TEST(OnnxImporter, AttributeErrors) {
  ModelBuilder kilnAttr = reluModel();
  test::setString(*kilnAttr.proto().mutable_graph()->mutable_node(0),
                  "kiln.activation", "Relu");
  EXPECT_EQ(importError(kilnAttr),
            "node 'relu' (Relu): attribute 'kiln.activation' is reserved for "
            "kiln's own use");

  ModelBuilder unknown = reluModel();
  test::setInt(*unknown.proto().mutable_graph()->mutable_node(0), "frobnicate",
               1);
  EXPECT_EQ(importError(unknown),
            "node 'relu' (Relu): unsupported attribute 'frobnicate'");

  ModelBuilder graphAttr = reluModel();
  onnx::AttributeProto *a =
      graphAttr.proto().mutable_graph()->mutable_node(0)->add_attribute();
  a->set_name("body");
  a->set_type(onnx::AttributeProto::GRAPH);
  EXPECT_EQ(importError(graphAttr),
            "node 'relu' (Relu): attribute 'body' has kind GRAPH, which kiln "
            "does not support");
}

TEST(OnnxImporter, UndefinedNodeInput) {
  ModelBuilder b(13);
  b.input("x", {2}).output("y");
  b.node("Add", {"x", "ghost"}, {"y"}, "add");
  EXPECT_EQ(importError(b),
            "node 'add' (Add): input 'ghost' is not a graph input, an "
            "initializer or an output of an earlier node");
}

TEST(OnnxImporter, StructuralErrors) {
  ModelBuilder empty(13);
  empty.input("x", {2}).output("x");
  EXPECT_EQ(importError(empty), "the model's graph is empty (it has no nodes)");

  ModelBuilder noOutputs(13);
  noOutputs.input("x", {2});
  noOutputs.node("Relu", {"x"}, {"y"});
  EXPECT_EQ(importError(noOutputs), "the model's graph has no outputs");

  ModelBuilder unknownOutput = reluModel();
  unknownOutput.output("nowhere");
  EXPECT_EQ(importError(unknownOutput),
            "graph output 'nowhere' is not computed by the graph");

  ModelBuilder redefined(13);
  redefined.input("x", {2}).output("y");
  redefined.node("Relu", {"x"}, {"y"});
  redefined.node("Relu", {"x"}, {"y"});
  EXPECT_EQ(importError(redefined), "value 'y' is defined more than once");

  ModelBuilder wrongDecl(13);
  wrongDecl.input("x", {2, 3}).output("y", {3, 2});
  wrongDecl.node("Relu", {"x"}, {"y"});
  EXPECT_EQ(importError(wrongDecl),
            "graph output 'y': the model declares FLOAT[3,2] but the graph "
            "computes f32[2,3]");
}

} // namespace
} // namespace kiln
