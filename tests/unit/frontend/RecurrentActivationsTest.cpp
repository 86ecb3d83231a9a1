//===- RecurrentActivationsTest.cpp - ONNX's activations of RNN, GRU, LSTM -===//
//
// What the importer makes of `activations`, `activation_alpha` and
// `activation_beta` (the attributes it keeps, every error), and that the
// QDQ model writer (--save-qdq) writes them back. What they compute is
// checked against ONNX Runtime by the opset cases rnn_*, gru_* and lstm_*
// (//tests/conformance, and //tests/unit/ops through the interpreter).
//
//===----------------------------------------------------------------------===//

#include "compiler/ops/RecurrentShape.h"
#include "compiler/quantize/QDQModelWriter.h"
#include "tests/unit/frontend/ImportTestUtil.h"
#include "tests/unit/frontend/OnnxModelBuilder.h"

#include <gtest/gtest.h>

namespace kiln {
namespace {

using test::ModelBuilder;

/// An `op` (RNN, GRU or LSTM) of hidden size 2 over x of [3, 1, 2], in
/// `direction`, with the activations and parameters given.
ModelBuilder recurrentModel(const std::string &op, const std::string &direction,
                            std::vector<std::string> activations, std::vector<float> alphas = {},
                            std::vector<float> betas = {}) {
  const int64_t gates = op == "LSTM" ? 4 : op == "GRU" ? 3 : 1;
  const int64_t dirs = direction == "bidirectional" ? 2 : 1;
  ModelBuilder b(14);
  b.input("x", {3, 1, 2}).output("y");
  b.initializer("w", {dirs, gates * 2, 2}, std::vector<float>(dirs * gates * 4, 0.5f));
  b.initializer("r", {dirs, gates * 2, 2}, std::vector<float>(dirs * gates * 4, -0.25f));
  onnx::NodeProto &n = b.node(op.c_str(), {"x", "w", "r"}, {"y"}, "rec");
  test::setInt(n, "hidden_size", 2);
  test::setString(n, "direction", direction);
  onnx::AttributeProto *names = n.add_attribute();
  names->set_name("activations");
  names->set_type(onnx::AttributeProto::STRINGS);
  for (const std::string &a : activations)
    names->add_strings(a);
  for (const auto &[attr, values] : {std::pair("activation_alpha", &alphas),
                                     std::pair("activation_beta", &betas)}) {
    if (values->empty())
      continue;
    onnx::AttributeProto *a = n.add_attribute();
    a->set_name(attr);
    a->set_type(onnx::AttributeProto::FLOATS);
    for (float v : *values)
      a->add_floats(v);
  }
  return b;
}

/// The activations f, g, h of the one recurrent node of `g`, printed.
std::string activations(const Graph &g) {
  std::string s;
  for (const Node *n : g.getNodes())
    for (unsigned i = 0; i < recurrentActivationCount(n->getKind()); ++i)
      s += (i ? " " : "") + recurrentActivation(*n, i).str();
  return s;
}

TEST(RecurrentActivations, ParametersAreConsumedInOrderByTheActivationsThatTakeThem) {
  auto g = test::importOk(recurrentModel("LSTM", "forward", {"Sigmoid", "Softsign", "Elu"},
                                         {0.7f}));
  ASSERT_TRUE(g);
  EXPECT_EQ(activations(*g), "Sigmoid Softsign Elu(0.7)");
  g = test::importOk(recurrentModel("GRU", "bidirectional",
                                    {"HardSigmoid", "LeakyRelu", "HardSigmoid", "LeakyRelu"},
                                    {0.3f, 0.05f, 0.3f, 0.05f}, {0.4f, 0.4f}));
  ASSERT_TRUE(g);
  EXPECT_EQ(activations(*g), "HardSigmoid(0.3,0.4) LeakyRelu(0.05)");
}

TEST(RecurrentActivations, UnlistedParametersTakeOnnxsDefaults) {
  auto g = test::importOk(recurrentModel("GRU", "forward", {"hardsigmoid", "thresholdedrelu"}));
  ASSERT_TRUE(g);
  EXPECT_EQ(activations(*g), "HardSigmoid(0.2,0.5) ThresholdedRelu(1)");
}

TEST(RecurrentActivations, Errors) {
  EXPECT_EQ(test::importError(recurrentModel("RNN", "forward", {"Affine"})),
            "node 'rec' (RNN): activation 'Affine' is not supported (Relu, Tanh, Sigmoid, "
            "LeakyRelu, ThresholdedRelu, HardSigmoid, Elu, Softsign and Softplus are)");
  EXPECT_EQ(test::importError(recurrentModel("GRU", "forward", {"Relu"})),
            "node 'rec' (GRU): lists 1 activations; it takes 2 per direction");
  EXPECT_EQ(test::importError(recurrentModel("RNN", "bidirectional", {"Relu", "Tanh"})),
            "node 'rec' (RNN): activations that differ between the directions (Relu and Tanh) "
            "are not supported");
}

TEST(RecurrentActivations, TheQdqModelWriterWritesThemBack) {
  for (const ModelBuilder &b :
       {recurrentModel("RNN", "bidirectional", {"LeakyRelu", "LeakyRelu"}, {0.3f, 0.3f}),
        recurrentModel("LSTM", "forward", {"HardSigmoid", "Relu", "Softplus"}, {0.25f}, {0.6f}),
        recurrentModel("GRU", "reverse", {"Sigmoid", "Tanh"})}) {
    auto g = test::importOk(b);
    ASSERT_TRUE(g);
    auto bytes = writeQDQModel(**&g);
    ASSERT_TRUE(bool(bytes)) << llvm::toString(bytes.takeError());
    auto again = importOnnxBuffer(*bytes, "m", {});
    ASSERT_TRUE(bool(again)) << llvm::toString(again.takeError());
    EXPECT_EQ(activations(**again), activations(*g));
  }
}

} // namespace
} // namespace kiln
