//===- ParserTest.cpp - Reading the printer's text form -------------------===//
//
// The printer is the parser's oracle: printing what was parsed must give the
// text back, for hand-written graphs and for every shipped model, as
// imported and after the default pipeline.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/onnx/OnnxImporter.h"
#include "compiler/graph/Parser.h"
#include "compiler/graph/Printer.h"
#include "compiler/pipeline/Pipeline.h"

#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace kiln {
namespace {

std::string print(const Graph &g) {
  std::string text;
  llvm::raw_string_ostream os(text);
  printGraph(g, os);
  return text;
}

/// Parses `text`, which must hold one graph.
std::unique_ptr<Graph> parseOne(llvm::StringRef text) {
  auto graphs = parseGraphs(text, "test");
  if (!graphs) {
    ADD_FAILURE() << llvm::toString(graphs.takeError());
    return nullptr;
  }
  EXPECT_EQ(graphs->size(), 1u);
  return std::move(graphs->front());
}

std::string parseError(llvm::StringRef text) {
  auto graphs = parseGraphs(text, "test");
  if (graphs) {
    ADD_FAILURE() << "parsed:\n" << text.str();
    return "";
  }
  return llvm::toString(graphs.takeError());
}

TEST(Parser, ReadsBackWhatThePrinterWrites) {
  const char *text =
      "graph g {\n"
      "  input %x : f32[1,2,4,4]\n"
      "  input %q : i8[1,2]{q:0.125,-3}\n"
      "  const %w : f32[3,2,3,3]\n"
      "  const %odd : f32[6] = [0.1,-0,1e-38,inf,-inf,3.4028235e+38]\n"
      "  const %big : i64[2] = [9223372036854775807,-9223372036854775808]\n"
      "  const %ubig : u64[1] = [18446744073709551615]\n"
      "  const %d : f64[1] = [0.1]\n"
      "  const %mode : bool[] = [0]\n"
      "  const %wq : i8[2,1]{q:0.5,0;0.25,0@0} = [-128,127]\n"
      "  %conv = Conv(%x, %w, none) {auto_pad=\"SAME_UPPER\", "
      "kiln.activation=Clip(0,6)} : f32[1,3,4,4]\n"
      "  %drop:0, %drop:1 = Dropout(%conv, none, %mode) : f32[1,3,4,4], "
      "bool[1,3,4,4]\n"
      "  %fill = ConstantOfShape() {shape=[2], value=tensor<f32[1]>[0.5]} : "
      "f32[2]\n"
      "  output \"y \\\"1\\\"\" = %drop:0\n"
      "  output \"mask\" = %drop:1\n"
      "  output \"fill\" = %fill\n"
      "}\n";
  std::unique_ptr<Graph> g = parseOne(text);
  ASSERT_TRUE(g);
  EXPECT_EQ(print(*g), text);
  const Tensor &odd = g->getConstants()[1]->getConstant();
  EXPECT_EQ(odd.values<float>()[0], 0.1f);
  EXPECT_TRUE(std::signbit(odd.values<float>()[1]));
  EXPECT_EQ(g->getConstants()[2]->getConstant().values<int64_t>()[1],
            std::numeric_limits<int64_t>::min());
  EXPECT_EQ(g->getConstants()[3]->getConstant().values<uint64_t>()[0],
            std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(g->getConstants()[4]->getConstant().values<double>()[0], 0.1);
  EXPECT_EQ(g->getOutputs()[0].name, "y \"1\"");
}

TEST(Parser, ConstantsWithoutDataAreGeneratedFromTheirName) {
  const char *text = "graph g {\n"
                     "  const %w : f32[4,5]\n"
                     "  const %v : f32[4,5]\n"
                     "  output \"w\" = %w\n"
                     "  output \"v\" = %v\n"
                     "}\n";
  std::unique_ptr<Graph> a = parseOne(text), b = parseOne(text);
  ASSERT_TRUE(a && b);
  const Tensor &w = a->getConstants()[0]->getConstant();
  EXPECT_TRUE(w.bitwiseEqual(b->getConstants()[0]->getConstant()));
  EXPECT_FALSE(w.bitwiseEqual(a->getConstants()[1]->getConstant()));
  for (float v : w.values<float>()) {
    EXPECT_GE(v, -1.0f);
    EXPECT_LT(v, 1.0f);
  }
}

TEST(Parser, SeveralGraphsAndComments) {
  auto graphs = parseGraphs("// a comment\n"
                            "graph a { // trailing\n"
                            "  input %x : f32[2]\n"
                            "  output \"y\" = %x\n"
                            "}\n"
                            "graph b {\n"
                            "}\n",
                            "test");
  ASSERT_TRUE(bool(graphs)) << llvm::toString(graphs.takeError());
  ASSERT_EQ(graphs->size(), 2u);
  EXPECT_EQ((*graphs)[1]->getName(), "b");
}

struct ErrorCase {
  const char *body;
  const char *message;
};

TEST(Parser, ErrorsSayWhereAndWhat) {
  const ErrorCase cases[] = {
      {"  %y = Foo(%x) : f32[2]\n", "test:3:8: unknown op 'Foo'"},
      {"  %y = Relu(%z) : f32[2]\n", "test:3:13: value %z is not defined"},
      {"  input %x : f32[3]\n", "test:3:9: value %x is defined twice"},
      {"  %x = Relu(%x) : f32[2]\n", "test:3:3: value %x is defined twice"},
      {"  %y = Relu(%x) : f32[3]\n",
       "test:3:19: result 0 of Relu: the type rule gives f32[2], the text "
       "says f32[3]"},
      {"  %y = Relu(%x) {alpha=1} : f32[2]\n",
       "test:3:18: Relu has no attribute 'alpha'"},
      {"  %y = LeakyRelu(%x) {alpha=x} : f32[2]\n",
       "test:3:29: expected a number, got 'x'"},
      {"  const %c : f32[2] = [1,2,3]\n", "test:3:23: 3 values for f32[2]"},
      {"  const %c : f33[2]\n", "test:3:14: unknown element type 'f33'"},
      {"  const %c : f32[-1]\n",
       "test:3:14: negative dimension or too many elements in f32[-1]"},
      {"  const %c : f32[65536,65536]\n",
       "test:3:14: negative dimension or too many elements"},
      {"  %y = Add(%x) : f32[2]\n",
       "test:3:3: node 'y' (Add): expects 2 to 2 inputs, got 1"},
      {"  %y = Conv(%x, %x) {kiln.activation=Clip(1)} : f32[2]\n",
       "test:3:38: Clip takes 2 parameters, got 1"},
      {"  output \"y\" = %x\n  bogus\n",
       "test:4:3: expected 'input', 'const', 'output', a node or '}'"},
      {"  output \"y = %x\n", "unterminated string"},
  };
  for (const ErrorCase &c : cases) {
    std::string text = std::string("graph g {\n  input %x : f32[2]\n") + c.body;
    if (llvm::StringRef(c.body).contains("bogus") ||
        !llvm::StringRef(c.body).contains("unterminated"))
      text += "}\n";
    EXPECT_NE(parseError(text).find(c.message), std::string::npos)
        << c.body << "gave: " << parseError(text);
  }
  EXPECT_NE(parseError("graph g {\n").find("expected '}' at the end of graph g"),
            std::string::npos);
  EXPECT_NE(parseError("").find("test:1:1: expected 'graph'"), std::string::npos);
}

class ParserOnModel : public ::testing::TestWithParam<const char *> {};

TEST_P(ParserOnModel, PrintParsePrintIsTheSameText) {
  std::string path = std::string("bundles/models/") + GetParam() + ".onnx";
  auto g = importOnnxFile(path, {});
  ASSERT_TRUE(bool(g)) << llvm::toString(g.takeError());
  for (bool optimized : {false, true}) {
    if (optimized) {
      llvm::Error err = runPipeline(**g, defaultPipeline(), {});
      ASSERT_FALSE(bool(err)) << llvm::toString(std::move(err));
    }
    std::string text = print(**g);
    std::unique_ptr<Graph> parsed = parseOne(text);
    ASSERT_TRUE(parsed) << text;
    EXPECT_EQ(print(*parsed), text) << (optimized ? "optimized" : "imported");
  }
}

INSTANTIATE_TEST_SUITE_P(Shipped, ParserOnModel,
                         ::testing::Values("lenet5", "mlp", "ds_cnn_kws",
                                           "resnet8_cifar", "gru", "lstm",
                                           "transformer_encoder", "unet_small",
                                           "vit_tiny", "attention_seqfirst",
                                           "pointnet_small", "odd_convs", "audio_m5",
                                           "wav2vec_features", "style_transfer", "espcn",
                                           "conformer_conv", "video_3d", "yolo_small",
                                           "dcgan_small", "dilated_context", "vocoder_small",
                                           "unet3d_small", "lrn_net"));

} // namespace
} // namespace kiln
