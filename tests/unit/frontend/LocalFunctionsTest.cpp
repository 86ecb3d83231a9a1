//===- LocalFunctionsTest.cpp - ONNX model-local functions, inlined -------===//
//
// inlineLocalFunctions on small models: the main graph it leaves (ops,
// value names, resolved attributes) written out in each test, a model
// imported and run against values computed here, and every error. The
// whole path against ONNX Runtime is the opset case local_functions
// (//tests/conformance:conformance_test).
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/onnx/LocalFunctions.h"
#include "tests/common/OnnxNodeProto.h"
#include "tests/unit/frontend/ImportTestUtil.h"
#include "tests/unit/frontend/OnnxModelBuilder.h"

#include <gtest/gtest.h>

#include <google/protobuf/unknown_field_set.h>

namespace kiln {
namespace {

using test::ModelBuilder;

constexpr const char *kDomain = "my.fns";

onnx::FunctionProto &addFunction(ModelBuilder &b, const std::string &name,
                                 std::vector<std::string> inputs,
                                 std::vector<std::string> outputs, int64_t opset = 18) {
  onnx::FunctionProto *f = b.proto().add_functions();
  f->set_domain(kDomain);
  f->set_name(name);
  for (const std::string &i : inputs)
    f->add_input(i);
  for (const std::string &o : outputs)
    f->add_output(o);
  onnx::OperatorSetIdProto *id = f->add_opset_import();
  id->set_domain("");
  id->set_version(opset);
  return *f;
}

onnx::NodeProto &addNode(onnx::FunctionProto &f, const std::string &op,
                         std::vector<std::string> inputs, std::vector<std::string> outputs,
                         const std::string &domain = "") {
  onnx::NodeProto *n = test::addNodeProto(&f, op, "", inputs, outputs);
  n->set_domain(domain);
  return *n;
}

void refAttr(onnx::NodeProto &n, const std::string &name, const std::string &ref) {
  onnx::AttributeProto *a = n.add_attribute();
  a->set_name(name);
  a->set_ref_attr_name(ref);
  a->set_type(onnx::AttributeProto::FLOAT);
}

/// An IR-9 attribute default, where ONNX 1.12's protobufs keep it: field 11
/// of FunctionProto, unknown to them.
void addDefault(onnx::FunctionProto &f, const std::string &name, float value) {
  onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(onnx::AttributeProto::FLOAT);
  a.set_f(value);
  f.GetReflection()->MutableUnknownFields(&f)->AddLengthDelimited(11, a.SerializeAsString());
}

/// Each node of the main graph as "name: Op(in, ...) -> out, ... {attr=value}".
std::string mainGraph(const onnx::ModelProto &m) {
  std::string s;
  for (const onnx::NodeProto &n : m.graph().node()) {
    s += n.name() + ": " + n.op_type() + "(";
    for (int i = 0; i < n.input_size(); ++i)
      s += (i ? ", " : "") + n.input(i);
    s += ") ->";
    for (const std::string &o : n.output())
      s += " " + o;
    for (const onnx::AttributeProto &a : n.attribute())
      s += " {" + a.name() + "=" + std::to_string(a.f()).substr(0, 4) + "}";
    s += "\n";
  }
  return s;
}

std::string inlineError(ModelBuilder &b, ResourceLimits limits = {}) {
  llvm::Error err = inlineLocalFunctions(b.proto(), 18, limits);
  return err ? llvm::toString(std::move(err)) : "inlining unexpectedly succeeded";
}

/// LeakyAdd(a, b) = LeakyRelu(a + b, alpha = slope), slope defaulting to 0.25;
/// Twice(x) = LeakyAdd(x, x) with Twice's own slope.
ModelBuilder callsModel() {
  ModelBuilder b(18, 9);
  b.input("x", {3}).output("y", {3}).output("z", {3});
  onnx::FunctionProto &leakyAdd = addFunction(b, "LeakyAdd", {"a", "b"}, {"out"});
  addNode(leakyAdd, "Add", {"a", "b"}, {"s"});
  refAttr(addNode(leakyAdd, "LeakyRelu", {"s"}, {"out"}), "alpha", "slope");
  addDefault(leakyAdd, "slope", 0.25f);
  onnx::FunctionProto &twice = addFunction(b, "Twice", {"x"}, {"y"});
  twice.add_attribute("slope");
  refAttr(addNode(twice, "LeakyAdd", {"x", "x"}, {"y"}, kDomain), "slope", "slope");
  onnx::NodeProto &first = b.node("LeakyAdd", {"x", "x"}, {"h"}, "first");
  first.set_domain(kDomain);
  test::setFloat(first, "slope", 0.5f);
  b.node("Twice", {"h"}, {"y"}).set_domain(kDomain);
  onnx::NodeProto &second = b.node("Twice", {"h"}, {"z"}, "second");
  second.set_domain(kDomain);
  test::setFloat(second, "slope", 0.125f);
  return b;
}

TEST(LocalFunctions, CallsAreReplacedByTheirNodes) {
  ModelBuilder b = callsModel();
  ASSERT_FALSE(bool(inlineLocalFunctions(b.proto(), 18, {})));
  EXPECT_EQ(mainGraph(b.proto()),
            "first/Add_0: Add(x, x) -> first/s\n"
            "first/LeakyRelu_1: LeakyRelu(first/s) -> h {alpha=0.50}\n"
            "Twice_1/LeakyAdd_0/Add_0: Add(h, h) -> Twice_1/LeakyAdd_0/s\n"
            "Twice_1/LeakyAdd_0/LeakyRelu_1: LeakyRelu(Twice_1/LeakyAdd_0/s) -> y {alpha=0.25}\n"
            "second/LeakyAdd_0/Add_0: Add(h, h) -> second/LeakyAdd_0/s\n"
            "second/LeakyAdd_0/LeakyRelu_1: LeakyRelu(second/LeakyAdd_0/s) -> z {alpha=0.12}\n");
}

TEST(LocalFunctions, TheInlinedModelComputesTheFunctions) {
  auto g = test::importOk(callsModel());
  ASSERT_TRUE(g);
  std::vector<float> x = {-1.0f, 0.5f, -4.0f};
  auto out = runGraph(*g, {Tensor::fromValues<float>(DType::F32, {3}, x)});
  ASSERT_TRUE(bool(out)) << llvm::toString(out.takeError());
  auto leaky = [](float v, float slope) { return v < 0 ? v * slope : v; };
  for (int i = 0; i < 3; ++i) {
    float h = leaky(x[i] + x[i], 0.5f);
    EXPECT_EQ((*out)[0].data<float>()[i], leaky(h + h, 0.25f)) << i;
    EXPECT_EQ((*out)[1].data<float>()[i], leaky(h + h, 0.125f)) << i;
  }
}

TEST(LocalFunctions, OmittedOutputsAndTakenNamesGetFreshNames) {
  ModelBuilder b(18);
  b.input("x", {2}).output("y", {2});
  onnx::FunctionProto &f = addFunction(b, "Pair", {"a"}, {"p", "q"});
  addNode(f, "Relu", {"a"}, {"p"});
  addNode(f, "Neg", {"a"}, {"q"});
  b.node("Pair", {"x"}, {"y"}, "call").set_domain(kDomain);
  // A value of the model already has the name the omitted output would get.
  b.node("Identity", {"x"}, {"call/q"}, "other");
  ASSERT_FALSE(bool(inlineLocalFunctions(b.proto(), 18, {})));
  EXPECT_EQ(mainGraph(b.proto()), "call/Relu_0: Relu(x) -> y\n"
                                  "call/Neg_1: Neg(x) -> call/q_1\n"
                                  "other: Identity(x) -> call/q\n");
}

TEST(LocalFunctions, AnOverloadIsChosenByTheNodesOverload) {
  ModelBuilder b(18, 10);
  b.input("x", {2}).output("y", {2});
  for (const char *overload : {"relu", "neg"}) {
    onnx::FunctionProto &f = addFunction(b, "Act", {"a"}, {"b"});
    addNode(f, overload == std::string("relu") ? "Relu" : "Neg", {"a"}, {"b"});
    f.GetReflection()->MutableUnknownFields(&f)->AddLengthDelimited(13, overload);
  }
  onnx::NodeProto &call = b.node("Act", {"x"}, {"y"}, "act");
  call.set_domain(kDomain);
  call.GetReflection()->MutableUnknownFields(&call)->AddLengthDelimited(8, "neg");
  ASSERT_FALSE(bool(inlineLocalFunctions(b.proto(), 18, {})));
  EXPECT_EQ(mainGraph(b.proto()), "act/Neg_0: Neg(x) -> y\n");
}

TEST(LocalFunctions, AModelWithoutFunctionsIsLeftAsItIs) {
  ModelBuilder b(18);
  b.input("x", {2}).output("y", {2});
  b.node("Relu", {"x"}, {"y"});
  std::string before = b.bytes();
  ASSERT_FALSE(bool(inlineLocalFunctions(b.proto(), 18, {})));
  EXPECT_EQ(b.bytes(), before);
}

TEST(LocalFunctions, MalformedCallsAreErrorsNamingTheCall) {
  {
    ModelBuilder b(18);
    b.input("x", {2}).output("y", {2});
    onnx::FunctionProto &f = addFunction(b, "Loop", {"a"}, {"b"});
    addNode(f, "Loop", {"a"}, {"b"}, kDomain);
    b.node("Loop", {"x"}, {"y"}, "call").set_domain(kDomain);
    ResourceLimits limits;
    limits.maxSubgraphDepth = 4;
    EXPECT_EQ(inlineError(b, limits),
              "node 'call/Loop_0/Loop_0/Loop_0/Loop_0' (Loop): calling function 'my.fns.Loop': "
              "calls nest deeper than the limit of 4 levels (--max-subgraph-depth); a "
              "function may not call itself");
  }
  {
    ModelBuilder b(18);
    b.input("x", {2}).output("y", {2});
    addNode(addFunction(b, "Old", {"a"}, {"b"}, 13), "Relu", {"a"}, {"b"});
    b.node("Old", {"x"}, {"y"}, "call").set_domain(kDomain);
    EXPECT_EQ(inlineError(b), "node 'call' (Old): calling function 'my.fns.Old': the function "
                              "imports ONNX opset 13 and the model 18; kiln imports every "
                              "node at the model's opset");
  }
  {
    ModelBuilder b(18);
    b.input("x", {2}).output("y", {2});
    addNode(addFunction(b, "One", {"a"}, {"b"}), "Relu", {"a"}, {"b"});
    b.node("One", {"x", "x"}, {"y"}, "call").set_domain(kDomain);
    EXPECT_EQ(inlineError(b), "node 'call' (One): calling function 'my.fns.One': the call has "
                              "2 inputs and 1 outputs, the function 1 and 1");
  }
  {
    ModelBuilder b(18);
    b.input("x", {2}).output("y", {2});
    addNode(addFunction(b, "One", {"a"}, {"b"}), "Relu", {"a"}, {"b"});
    onnx::NodeProto &call = b.node("One", {"x"}, {"y"}, "call");
    call.set_domain(kDomain);
    test::setFloat(call, "gain", 2.0f);
    EXPECT_EQ(inlineError(b), "node 'call' (One): calling function 'my.fns.One': the function "
                              "has no attribute 'gain'");
  }
  {
    ModelBuilder b(18);
    b.input("x", {2}).output("y", {2});
    onnx::FunctionProto &f = addFunction(b, "Leaky", {"a"}, {"b"});
    refAttr(addNode(f, "LeakyRelu", {"a"}, {"b"}), "alpha", "slope");
    b.node("Leaky", {"x"}, {"y"}, "call").set_domain(kDomain);
    EXPECT_EQ(inlineError(b), "node 'call' (Leaky): calling function 'my.fns.Leaky': node "
                              "'LeakyRelu_0' refers to attribute 'slope', which the function "
                              "does not declare");
  }
  {
    ModelBuilder b(18);
    b.input("x", {2}).output("y", {2});
    addNode(addFunction(b, "One", {"a"}, {"b"}), "Relu", {"a"}, {"b"});
    addNode(addFunction(b, "One", {"a"}, {"b"}), "Neg", {"a"}, {"b"});
    b.node("One", {"x"}, {"y"}, "call").set_domain(kDomain);
    EXPECT_EQ(inlineError(b), "function 'my.fns.One' is defined twice");
  }
}

TEST(LocalFunctions, InliningStopsAtTheNodeLimit) {
  // Each level calls the one below twice: 2^6 Relus from six small functions.
  ModelBuilder b(18);
  b.input("x", {2}).output("y", {2});
  addNode(addFunction(b, "L0", {"a"}, {"b"}), "Relu", {"a"}, {"b"});
  for (int level = 1; level <= 6; ++level) {
    onnx::FunctionProto &f = addFunction(b, "L" + std::to_string(level), {"a"}, {"b"});
    std::string below = "L" + std::to_string(level - 1);
    addNode(f, below, {"a"}, {"m"}, kDomain);
    addNode(f, below, {"m"}, {"b"}, kDomain);
  }
  b.node("L6", {"x"}, {"y"}, "call").set_domain(kDomain);
  ResourceLimits limits;
  limits.maxNodes = 50;
  EXPECT_EQ(inlineError(b, limits),
            "node 'call/L5_1/L4_1/L3_0/L2_0/L1_1/L0_0/Relu_0' (Relu): inlining the model's "
            "functions makes more than 50 nodes (--max-nodes)");
  ModelBuilder fits = b;
  ASSERT_FALSE(bool(inlineLocalFunctions(fits.proto(), 18, {})));
  EXPECT_EQ(fits.proto().graph().node_size(), 64);
}

} // namespace
} // namespace kiln
