//===- Winograd.cpp - Winograd F(m x m, 3x3) convolution layout -----------===//

#include "compiler/lir/Winograd.h"
#include "compiler/ops/OpViews.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>

namespace kiln {
namespace lir {

namespace {
/// Below these the direct kernel is faster: with few input channels the
/// transforms outweigh the products they save, and on images of a few
/// pixels the transformed weights, 16/9 of the originals, are what the time
/// goes to (resnet18's 7x7 layers with 512 channels: 1.6x slower as
/// Winograd on Zen 5; 8x8 with 64 channels is 1.3x faster).
constexpr int64_t kMinChannels = 8;
constexpr int64_t kMinOutputPixels = 64;

/// Tiles a block aims at: a few vectors of the widest registers for the
/// products, few enough that V and M of a block stay in L2 (at most
/// kBlockFloats floats of them together) unless the weights do not fit
/// there either (kCachedWeightsBytes): then fewer blocks, as each reads them.
constexpr int64_t kBlockTiles = 48;
constexpr int64_t kBlockFloats = 64 * 1024;

/// Operations per vector of tiles of the input transform (loads, the 1-D
/// transforms of the rows and columns, stores) and of the output transform
/// (loads, 1-D transforms, bias, interleaving and stores), for F(2x2) and
/// F(4x4).
double inputTransformOps(int64_t m) { return m == 2 ? 64 : 216; }
double outputTransformOps(int64_t m) { return m == 2 ? 50 : 170; }

/// Weights of this size or more come from L3 or memory, at about this many
/// bytes a cycle (resnet18's 14x14x256 layers: 0.92 ms as F(2x2), 1.3 to
/// 1.7 ms as F(4x4) with 2.25x the weights).
constexpr double kCachedWeightsBytes = 1 << 20;
constexpr double kStreamBytesPerCycle = 2;

/// The transforms' matrices: G (n x 3) for the weights. B^T and A^T live in
/// the kernel, factored.
const double kG2[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
const double kG4[6][3] = {{1.0 / 4, 0, 0},
                          {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                          {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                          {1.0 / 24, 1.0 / 12, 1.0 / 6},
                          {1.0 / 24, -1.0 / 12, 1.0 / 6},
                          {0, 0, 1}};

/// Vectors of `lanes` covering `rows` rows of `rowLen` consecutive items:
/// one run over all of them (what the kernel does too).
int64_t vectorsOver(int64_t rows, int64_t rowLen, int64_t lanes) {
  return llvm::divideCeil(rows * rowLen, lanes);
}
} // namespace

bool isWinogradConv(const Node &conv) {
  if (!conv.is(OpKind::Conv))
    return false;
  ConvView v(conv);
  if (v.group() != 1)
    return false;
  const TensorType &x = v.input()->getType();
  const TensorType &w = v.weights()->getType();
  const TensorType &y = conv.getOutput()->getType();
  if (x.dtype != DType::F32 || w.dtype != DType::F32 || x.rank() != 4 || w.rank() != 4)
    return false;
  for (size_t i = 0; i < 2; ++i)
    if (v.strides(i) != 1 || v.dilations(i) != 1)
      return false;
  return w.shape[2] == 3 && w.shape[3] == 3 && x.shape[1] >= kMinChannels &&
         y.shape[2] * y.shape[3] >= kMinOutputPixels;
}

Packing winogradPacking(int64_t m) {
  return m == 4 ? Packing::Winograd4x4 : Packing::Winograd2x2;
}

int64_t winogradTileOf(Packing p) {
  return p == Packing::Winograd2x2 ? 2 : p == Packing::Winograd4x4 ? 4 : 0;
}

WinogradLayout winogradLayout(const Node &conv, int64_t m) {
  const TensorType &x = ConvView(conv).input()->getType();
  const TensorType &y = conv.getOutput()->getType();
  int64_t C = x.shape[1], OC = y.shape[1];
  WinogradLayout l;
  l.m = m;
  l.n = m + 2;
  l.points = l.n * l.n;
  l.tilesH = llvm::divideCeil(y.shape[2], m);
  l.tilesW = llvm::divideCeil(y.shape[3], m);
  // Blocks of equal numbers of tile rows, as many as the tile target asks.
  // Every block reads all the weights: past the cache they decide.
  int64_t target =
      winogradWeightsBytes({OC, C, 3, 3}, m) >= kCachedWeightsBytes
          ? kBlockTiles
          : std::clamp<int64_t>(kBlockFloats / ((C + OC) * l.points), kConvPackBlock,
                                kBlockTiles);
  int64_t rows = std::clamp<int64_t>(llvm::divideCeil(target, l.tilesW), 1, l.tilesH);
  l.blockRows = llvm::divideCeil(l.tilesH, llvm::divideCeil(l.tilesH, rows));
  l.blockTiles = llvm::alignTo(l.blockRows * l.tilesW, kConvPackBlock);
  l.vOffset = l.points * l.blockTiles + kConvPackBlock;
  l.vPointStride = C * l.blockTiles + kConvPackBlock;
  l.mPointStride = OC * l.blockTiles + kConvPackBlock;
  l.mOffset = l.vOffset + l.points * l.vPointStride;
  l.size = l.mOffset + l.points * l.mPointStride;
  return l;
}

double winogradCost(const Node &conv, int64_t m, unsigned vectorLanes) {
  WinogradLayout l = winogradLayout(conv, m);
  int64_t C = ConvView(conv).input()->getType().shape[1];
  int64_t OC = conv.getOutput()->getType().shape[1];
  int64_t lanes = vectorLanes;
  double cost = 0;
  int64_t full = l.tilesH / l.blockRows, edge = l.tilesH % l.blockRows;
  for (auto [blocks, rows] : {std::pair<int64_t, int64_t>{full, l.blockRows}, {1, edge}}) {
    if (!blocks || !rows)
      continue;
    int64_t tileVectors = llvm::divideCeil(rows * l.tilesW, lanes);
    double products = l.points * OC * (C * tileVectors / 2.0 + tileVectors);
    double in = C * vectorsOver(rows, l.tilesW, lanes) * inputTransformOps(m) / 2;
    double out = OC * vectorsOver(rows, l.tilesW, lanes) * outputTransformOps(m) / 2;
    // The cut: per channel, tile row, patch row and vector of tiles, a
    // load and a shuffle and a store per patch column.
    double cut = C * rows * l.n * llvm::divideCeil(l.tilesW, lanes) * (2.0 * l.n + 2) / 2;
    cost += blocks * (products + in + out + cut);
  }
  double weights = winogradWeightsBytes({OC, C, 3, 3}, m);
  if (weights >= kCachedWeightsBytes)
    cost += llvm::divideCeil(l.tilesH, l.blockRows) * weights / kStreamBytesPerCycle;
  return cost;
}

int64_t chooseWinogradTile(const Node &conv, unsigned vectorLanes) {
  if (vectorLanes == 1)
    return 2;
  return winogradCost(conv, 4, vectorLanes) < winogradCost(conv, 2, vectorLanes) ? 4 : 2;
}

uint64_t winogradWeightsBytes(llvm::ArrayRef<int64_t> shape, int64_t m) {
  return (m + 2) * (m + 2) * shape[0] * shape[1] * sizeof(float);
}

void packWinogradWeights(const Tensor &w, int64_t m, uint8_t *dst) {
  llvm::ArrayRef<int64_t> shape = w.getType().shape;
  int64_t OC = shape[0], C = shape[1], n = m + 2;
  const float *src = reinterpret_cast<const float *>(w.raw().data());
  float *out = reinterpret_cast<float *>(dst);
  auto G = [&](int64_t i, int64_t j) { return m == 4 ? kG4[i][j] : kG2[i][j]; };
  for (int64_t oc = 0; oc < OC; ++oc)
    for (int64_t c = 0; c < C; ++c) {
      const float *g = src + (oc * C + c) * 9;
      double gg[6][3]; // G g
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < 3; ++j)
          gg[i][j] = G(i, 0) * g[j] + G(i, 1) * g[3 + j] + G(i, 2) * g[6 + j];
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j) {
          double u = gg[i][0] * G(j, 0) + gg[i][1] * G(j, 1) + gg[i][2] * G(j, 2);
          out[((i * n + j) * C + c) * OC + oc] = static_cast<float>(u);
        }
    }
}

} // namespace lir
} // namespace kiln
