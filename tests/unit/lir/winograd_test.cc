// Winograd F(2x2, 3x3): the packed weights against the direct convolution
// of a patch, and which convolutions generateLIR gives the Winograd kernel.

#include "compiler/lir/LIR.h"
#include "compiler/lir/Winograd.h"

#include "gtest/gtest.h"

#include <cmath>
#include <random>
#include <vector>

namespace kiln {
namespace {

TEST(Winograd, PackedWeightsGiveTheDirectConvolutionOfAPatch) {
  // Two output and three input channels, so the [16][C][OC] order matters.
  const int64_t OC = 2, C = 3;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> g(OC * C * 9), d(C * 16);
  for (float &v : g)
    v = dist(rng);
  for (float &v : d)
    v = dist(rng);
  Tensor w = Tensor::fromValues<float>(DType::F32, {OC, C, 3, 3}, g);
  std::vector<float> u(lir::winogradWeightsBytes(w.getShape()) / sizeof(float));
  ASSERT_EQ(u.size(), size_t(16 * OC * C));
  lir::packWinogradWeights(w, reinterpret_cast<uint8_t *>(u.data()));

  // B^T d B, U . V summed over channels, A^T m A: written out in full here,
  // independently of the kernel's factored form.
  const double BT[4][4] = {{1, 0, -1, 0}, {0, 1, 1, 0}, {0, -1, 1, 0}, {0, 1, 0, -1}};
  const double AT[2][4] = {{1, 1, 1, 0}, {0, 1, -1, -1}};
  for (int64_t oc = 0; oc < OC; ++oc) {
    double m[4][4] = {};
    for (int64_t c = 0; c < C; ++c)
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) {
          double v = 0;
          for (int a = 0; a < 4; ++a)
            for (int b = 0; b < 4; ++b)
              v += BT[i][a] * d[c * 16 + a * 4 + b] * BT[j][b];
          m[i][j] += u[((i * 4 + j) * C + c) * OC + oc] * v;
        }
    for (int y = 0; y < 2; ++y)
      for (int x = 0; x < 2; ++x) {
        double winograd = 0, direct = 0;
        for (int i = 0; i < 4; ++i)
          for (int j = 0; j < 4; ++j)
            winograd += AT[y][i] * m[i][j] * AT[x][j];
        for (int64_t c = 0; c < C; ++c)
          for (int kh = 0; kh < 3; ++kh)
            for (int kw = 0; kw < 3; ++kw)
              direct += g[(oc * C + c) * 9 + kh * 3 + kw] * d[c * 16 + (y + kh) * 4 + x + kw];
        EXPECT_NEAR(winograd, direct, 1e-5) << "output channel " << oc << " pixel " << y << x;
      }
  }
}

/// The packing generateLIR gives the weights of one Conv of `channels`
/// channels on a size x size image.
lir::Packing weightsPacking(int64_t channels, int64_t size, int64_t kernel,
                            int64_t stride) {
  Graph g("conv");
  Value *x = g.addInput("x", TensorType(DType::F32, {1, channels, size, size}));
  Value *w = g.addConstant("w", Tensor(TensorType(DType::F32, {16, channels, kernel, kernel})));
  auto conv = g.addNode(OpKind::Conv, "conv", {x, w},
                        {{"strides", Attr::ofInts({stride, stride})},
                         {"pads", Attr::ofInts({1, 1, 1, 1})}});
  EXPECT_TRUE(static_cast<bool>(conv)) << llvm::toString(conv.takeError());
  g.addOutput("y", (*conv)->getOutput());
  auto f = lir::generateLIR(g);
  EXPECT_TRUE(static_cast<bool>(f)) << llvm::toString(f.takeError());
  for (auto &b : f->buffers)
    if (b->region == lir::Region::Weights)
      return b->packing;
  return lir::Packing::None;
}

TEST(Winograd, ChosenFor3x3Stride1OnEnoughChannelsAndPixels) {
  EXPECT_EQ(weightsPacking(16, 12, 3, 1), lir::Packing::Winograd);
  EXPECT_EQ(weightsPacking(16, 8, 3, 1), lir::Packing::Winograd);
  EXPECT_EQ(weightsPacking(16, 7, 3, 1), lir::Packing::ConvTapMajor);  // small image
  EXPECT_EQ(weightsPacking(3, 32, 3, 1), lir::Packing::ConvTapMajor);  // few channels
  EXPECT_EQ(weightsPacking(16, 32, 3, 2), lir::Packing::ConvTapMajor); // strided
  EXPECT_EQ(weightsPacking(16, 32, 5, 1), lir::Packing::ConvTapMajor); // 5x5
}

} // namespace
} // namespace kiln
