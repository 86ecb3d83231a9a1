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

/// Checks U = G g G^T of F(m x m, 3x3) packed by packWinogradWeights
/// against the direct convolution of a random n x n patch, through B^T and
/// A^T written out in full (independently of the kernel's factored form).
template <int M>
void checkPackedWeights(const double (&BT)[M + 2][M + 2], const double (&AT)[M][M + 2],
                        double tolerance) {
  constexpr int N = M + 2;
  // Two output and three input channels, so the [points][C][OC] order
  // matters.
  const int64_t OC = 2, C = 3;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> g(OC * C * 9), d(C * N * N);
  for (float &v : g)
    v = dist(rng);
  for (float &v : d)
    v = dist(rng);
  Tensor w = Tensor::fromValues<float>(DType::F32, {OC, C, 3, 3}, g);
  std::vector<float> u(lir::winogradWeightsBytes(w.getShape(), M) / sizeof(float));
  ASSERT_EQ(u.size(), size_t(N * N * OC * C));
  lir::packWinogradWeights(w, M, reinterpret_cast<uint8_t *>(u.data()));

  for (int64_t oc = 0; oc < OC; ++oc) {
    double m[N][N] = {};
    for (int64_t c = 0; c < C; ++c)
      for (int i = 0; i < N; ++i)
        for (int j = 0; j < N; ++j) {
          double v = 0;
          for (int a = 0; a < N; ++a)
            for (int b = 0; b < N; ++b)
              v += BT[i][a] * d[(c * N + a) * N + b] * BT[j][b];
          m[i][j] += u[((i * N + j) * C + c) * OC + oc] * v;
        }
    for (int y = 0; y < M; ++y)
      for (int x = 0; x < M; ++x) {
        double winograd = 0, direct = 0;
        for (int i = 0; i < N; ++i)
          for (int j = 0; j < N; ++j)
            winograd += AT[y][i] * m[i][j] * AT[x][j];
        for (int64_t c = 0; c < C; ++c)
          for (int kh = 0; kh < 3; ++kh)
            for (int kw = 0; kw < 3; ++kw)
              direct += g[(oc * C + c) * 9 + kh * 3 + kw] * d[(c * N + y + kh) * N + x + kw];
        EXPECT_NEAR(winograd, direct, tolerance)
            << "F(" << M << "x" << M << ") output channel " << oc << " pixel " << y << x;
      }
  }
}

TEST(Winograd, PackedWeightsGiveTheDirectConvolutionOfAPatch2x2) {
  const double BT[4][4] = {{1, 0, -1, 0}, {0, 1, 1, 0}, {0, -1, 1, 0}, {0, 1, 0, -1}};
  const double AT[2][4] = {{1, 1, 1, 0}, {0, 1, -1, -1}};
  checkPackedWeights<2>(BT, AT, 1e-5);
}

TEST(Winograd, PackedWeightsGiveTheDirectConvolutionOfAPatch4x4) {
  const double BT[6][6] = {{4, 0, -5, 0, 1, 0},  {0, -4, -4, 1, 1, 0}, {0, 4, -4, -1, 1, 0},
                           {0, -2, -1, 2, 1, 0}, {0, 2, -1, -2, 1, 0}, {0, 4, 0, -5, 0, 1}};
  const double AT[4][6] = {
      {1, 1, 1, 1, 1, 0}, {0, 1, -1, 2, -2, 0}, {0, 1, 1, 4, 4, 0}, {0, 1, -1, 8, -8, 1}};
  checkPackedWeights<4>(BT, AT, 1e-5);
}

/// The packing generateLIR gives the weights of one Conv of `channels`
/// channels on a size x size image.
lir::Packing weightsPacking(int64_t channels, int64_t size, int64_t kernel,
                            int64_t stride, unsigned lanes = 16) {
  Graph g("conv");
  Value *x = g.addInput("x", TensorType(DType::F32, {1, channels, size, size}));
  Value *w = g.addConstant("w", Tensor(TensorType(DType::F32, {16, channels, kernel, kernel})));
  auto conv = g.addNode(OpKind::Conv, "conv", {x, w},
                        {{"strides", Attr::ofInts({stride, stride})},
                         {"pads", Attr::ofInts({1, 1, 1, 1})}});
  EXPECT_TRUE(static_cast<bool>(conv)) << llvm::toString(conv.takeError());
  g.addOutput("y", (*conv)->getOutput());
  lir::LIROptions opts;
  opts.vectorLanes = lanes;
  auto f = lir::generateLIR(g, opts);
  EXPECT_TRUE(static_cast<bool>(f)) << llvm::toString(f.takeError());
  for (auto &b : f->buffers)
    if (b->region == lir::Region::Weights)
      return b->packing;
  return lir::Packing::None;
}

TEST(Winograd, ChosenFor3x3Stride1OnEnoughChannelsAndPixels) {
  EXPECT_NE(lir::winogradTileOf(weightsPacking(16, 12, 3, 1)), 0);
  EXPECT_NE(lir::winogradTileOf(weightsPacking(16, 8, 3, 1)), 0);
  EXPECT_EQ(weightsPacking(16, 7, 3, 1), lir::Packing::ConvTapMajor);  // small image
  EXPECT_EQ(weightsPacking(3, 32, 3, 1), lir::Packing::ConvTapMajor);  // few channels
  EXPECT_EQ(weightsPacking(16, 32, 3, 2), lir::Packing::ConvTapMajor); // strided
  EXPECT_EQ(weightsPacking(16, 32, 5, 1), lir::Packing::ConvTapMajor); // 5x5
}

TEST(Winograd, TileByCostWithVectorsAndAlways2x2OnScalarCores) {
  // resnet8_cifar's layers on AVX-512: F(4x4) on 32x32 and 16x16 images,
  // F(2x2) on 8x8 ones, whose 2x2 tiles of F(4x4) would fill a quarter of
  // the vectors of its products.
  EXPECT_EQ(weightsPacking(16, 32, 3, 1), lir::Packing::Winograd4x4);
  EXPECT_EQ(weightsPacking(32, 16, 3, 1), lir::Packing::Winograd4x4);
  EXPECT_EQ(weightsPacking(64, 8, 3, 1), lir::Packing::Winograd2x2);
  for (int64_t size : {8, 16, 32, 64})
    EXPECT_EQ(weightsPacking(16, size, 3, 1, 1), lir::Packing::Winograd2x2) << size;
}

} // namespace
} // namespace kiln
