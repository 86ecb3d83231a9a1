// Bias correction in insertQDQ (QDQInsertion.h): for a Conv (plain and
// grouped, with and without a bias) and a Gemm (transB, alpha and beta),
// the corrected bias against the formula computed here by hand: each
// output channel's bias minus the sum over its weights of (int8 weight x
// scale - float weight) x the mean of the input channel it multiplies.

#include "compiler/quantize/QDQInsertion.h"

#include "llvm/Support/FormatVariadic.h"

#include "gtest/gtest.h"

#include <cmath>
#include <functional>

namespace kiln {
namespace {

/// Weights with rounding error: no value is a multiple of max|w| / 127.
std::vector<float> weightValues(size_t n) {
  std::vector<float> w;
  for (size_t i = 0; i < n; ++i)
    w.push_back(float(std::sin(1.7 * double(i) + 0.3)) * 0.8f);
  return w;
}

/// w's symmetric int8 rounding per output channel (`channelOf`), as a float.
std::vector<double> roundTrip(const std::vector<float> &w, size_t channels,
                              std::function<size_t(size_t)> channelOf) {
  std::vector<double> scale(channels, 0.0), out(w.size());
  for (size_t i = 0; i < w.size(); ++i)
    scale[channelOf(i)] = std::max(scale[channelOf(i)], double(std::fabs(w[i])));
  for (size_t i = 0; i < w.size(); ++i) {
    float s = float(scale[channelOf(i)] / 127);
    out[i] = double(float(std::nearbyint(w[i] / s)) * s);
  }
  return out;
}

const Tensor &biasOf(const Graph &g, OpKind kind) {
  for (const Node *n : g.getNodes())
    if (n->is(kind))
      return n->getInput(2)->getConstant();
  ADD_FAILURE() << "no node";
  static Tensor none;
  return none;
}

void expectBias(const Tensor &got, const std::vector<double> &want) {
  ASSERT_EQ(got.numElements(), int64_t(want.size()));
  for (size_t c = 0; c < want.size(); ++c)
    EXPECT_NEAR(got.data<float>()[c], want[c], 1e-6) << "channel " << c;
}

/// Conv [OC=4, IC/group, 3, 3] over 4 input channels, group 1 or 2.
void checkConv(int64_t group, bool withBias) {
  SCOPED_TRACE(llvm::formatv("group {0}, bias {1}", group, withBias).str());
  const int64_t oc = 4, ic = 4, icg = ic / group, taps = 9;
  std::vector<float> w = weightValues(oc * icg * taps), b = {0.5f, -1, 0.25f, 2};
  std::vector<double> means = {0.7, -1.3, 2.1, 0.4};
  Graph g;
  Value *x = g.addInput("x", TensorType(DType::F32, {1, ic, 5, 5}));
  Value *wv = g.addConstant("w", Tensor::fromValues<float>(DType::F32, {oc, icg, 3, 3}, w));
  llvm::SmallVector<Value *, 3> in{x, wv};
  if (withBias)
    in.push_back(g.addConstant("b", Tensor::fromValues<float>(DType::F32, {oc}, b)));
  auto conv = g.addNode(OpKind::Conv, "conv", in,
                        {{"group", Attr::ofInt(group)},
                         {"kernel_shape", Attr::ofInts({3, 3})}});
  ASSERT_TRUE(bool(conv)) << llvm::toString(conv.takeError());
  g.addOutput("y", (*conv)->getOutput());

  WeightQuantization weights;
  weights.inputChannelMeans["conv"] = means;
  ASSERT_FALSE(bool(insertQDQ(g, {}, weights)));

  std::vector<double> wq = roundTrip(w, oc, [&](size_t i) { return i / (icg * taps); });
  std::vector<double> want(oc);
  for (int64_t o = 0; o < oc; ++o) {
    want[o] = withBias ? b[o] : 0.0;
    for (int64_t c = 0; c < icg; ++c)
      for (int64_t t = 0; t < taps; ++t) {
        size_t i = (o * icg + c) * taps + t;
        int64_t inputChannel = o / (oc / group) * icg + c;
        want[o] -= (wq[i] - w[i]) * means[inputChannel];
      }
  }
  expectBias(biasOf(g, OpKind::Conv), want);
}

TEST(BiasCorrection, Conv) {
  checkConv(1, true);
  checkConv(1, false);
  checkConv(2, true);
}

TEST(BiasCorrection, GemmWithTransBAlphaAndBeta) {
  const int64_t k = 5, n = 3;
  std::vector<float> w = weightValues(n * k), c = {0.1f, -0.2f, 0.3f};
  std::vector<double> means = {1.0, -0.5, 0.25, 2.0, -3.0};
  const float alpha = 0.5f, beta = 2.0f;
  Graph g;
  Value *x = g.addInput("x", TensorType(DType::F32, {2, k}));
  auto gemm = g.addNode(
      OpKind::Gemm, "fc",
      {x, g.addConstant("w", Tensor::fromValues<float>(DType::F32, {n, k}, w)),
       g.addConstant("c", Tensor::fromValues<float>(DType::F32, {n}, c))},
      {{"transB", Attr::ofInt(1)},
       {"alpha", Attr::ofFloat(alpha)},
       {"beta", Attr::ofFloat(beta)}});
  ASSERT_TRUE(bool(gemm)) << llvm::toString(gemm.takeError());
  g.addOutput("y", (*gemm)->getOutput());

  WeightQuantization weights;
  weights.inputChannelMeans["fc"] = means;
  ASSERT_FALSE(bool(insertQDQ(g, {}, weights)));

  // y = alpha x W^T + beta C: C absorbs the shift divided by beta.
  std::vector<double> wq = roundTrip(w, n, [&](size_t i) { return i / k; });
  std::vector<double> want(n);
  for (int64_t o = 0; o < n; ++o) {
    double shift = 0;
    for (int64_t j = 0; j < k; ++j)
      shift += (wq[o * k + j] - w[o * k + j]) * means[j];
    want[o] = c[o] - shift * alpha / beta;
  }
  expectBias(biasOf(g, OpKind::Gemm), want);
}

/// Without means, insertQDQ leaves the bias as it is.
TEST(BiasCorrection, OffLeavesTheBias) {
  Graph g;
  Value *x = g.addInput("x", TensorType(DType::F32, {1, 2, 4, 4}));
  std::vector<float> b = {0.5f, -1};
  auto conv = g.addNode(
      OpKind::Conv, "conv",
      {x, g.addConstant("w", Tensor::fromValues<float>(DType::F32, {2, 2, 1, 1}, weightValues(4))),
       g.addConstant("b", Tensor::fromValues<float>(DType::F32, {2}, b))},
      {{"kernel_shape", Attr::ofInts({1, 1})}});
  ASSERT_TRUE(bool(conv)) << llvm::toString(conv.takeError());
  g.addOutput("y", (*conv)->getOutput());
  ASSERT_FALSE(bool(insertQDQ(g, {}, WeightQuantization())));
  expectBias(biasOf(g, OpKind::Conv), {0.5, -1.0});
}

} // namespace
} // namespace kiln
