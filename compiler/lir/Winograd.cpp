//===- Winograd.cpp - Winograd convolution layout -------------------------===//

#include "compiler/lir/Winograd.h"
#include "compiler/lir/ToomCook.h"
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

/// Kernels of one row or column run as Winograd from this many taps: F(2, 5)
/// saves 1.67x of the products, F(2, 7) 1.75x.
constexpr int64_t kMinLineTaps = 5;
constexpr int64_t kMaxLineTaps = 7;

/// Tiles a block aims at: a few vectors of the widest registers for the
/// products, few enough that V and M of a block stay in L2 (at most
/// kBlockFloats floats of them together) unless the weights do not fit
/// there either (kCachedWeightsBytes): then fewer blocks, as each reads them.
constexpr int64_t kBlockTiles = 48;
constexpr int64_t kBlockFloats = 64 * 1024;

/// A kernel of one row or column has 8 points where F(4x4, 3x3) has 36: its
/// blocks are as many tile rows as leave the fewest partly empty vectors,
/// up to this many tiles. inception_v3's 12x12 1x7 layers (72 tiles) take
/// blocks of 48 and 24 (3 and 2 vectors of 16), where the 3x3 rule's blocks
/// of 24 or 36 filled 3/4 of theirs; one block of 72 was no faster.
constexpr int64_t kLineBlockTiles = 48;

/// Tile rows per block of a kernel of one row or column: blocks of that
/// many whole rows of `tilesW` tiles and a last one of the rest, at most
/// kLineBlockTiles tiles (or one row), leaving the fewest vectors of
/// kConvPackBlock lanes; of those, the largest blocks.
int64_t lineBlockRows(int64_t tilesH, int64_t tilesW) {
  int64_t best = 1, bestVectors = INT64_MAX;
  for (int64_t rows = tilesH; rows >= 1; --rows) {
    if (rows * tilesW > kLineBlockTiles && rows > 1)
      continue;
    int64_t full = tilesH / rows, edge = tilesH % rows;
    int64_t vectors = full * llvm::divideCeil(rows * tilesW, kConvPackBlock) +
                      llvm::divideCeil(edge * tilesW, kConvPackBlock);
    if (vectors < bestVectors) {
      best = rows;
      bestVectors = vectors;
    }
  }
  return best;
}

/// Operations per vector of tiles of the input transform (loads, the 1-D
/// transforms of the rows and columns, stores) and of the output transform
/// (loads, 1-D transforms, bias, interleaving and stores), for F(2x2) and
/// F(4x4).
double inputTransformOps(int64_t m) { return m == 2 ? 64 : 216; }
double outputTransformOps(int64_t m) { return m == 2 ? 50 : 170; }

/// Weights of this size or more pass the L2: the first block reads them from
/// memory at about kStreamBytesPerCycle (resnet18's 14x14x256 layers, one
/// block: 0.92 ms as F(2x2), 1.3 to 1.7 ms as F(4x4) with 2.25x the
/// weights), every later block again from L3 at about kReadBytesPerCycle
/// (VGG's 64 -> 128 layer at 112x112, 14 blocks of F(4x4)'s 1.18 MB: 3.7 ms,
/// where F(2x2)'s 0.52 MB in 56 blocks took 5.7 ms).
constexpr double kCachedWeightsBytes = 1 << 20;
constexpr double kStreamBytesPerCycle = 2;
constexpr double kReadBytesPerCycle = 8;

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
  int64_t kh = w.shape[2], kw = w.shape[3];
  bool square = kh == 3 && kw == 3;
  bool line = std::min(kh, kw) == 1 && std::max(kh, kw) >= kMinLineTaps &&
              std::max(kh, kw) <= kMaxLineTaps;
  return (square || line) && x.shape[1] >= kMinChannels &&
         y.shape[2] * y.shape[3] >= kMinOutputPixels;
}

WinogradTile winogradTileFor(llvm::ArrayRef<int64_t> weightsShape, int64_t m) {
  int64_t kh = weightsShape[2], kw = weightsShape[3];
  return {kh > 1 ? m : 1, kw > 1 ? m : 1, kh, kw};
}

Packing winogradPacking(int64_t m, bool line) {
  if (line)
    return Packing::WinogradLine2;
  return m == 4 ? Packing::Winograd4x4 : Packing::Winograd2x2;
}

int64_t winogradTileOf(Packing p) {
  switch (p) {
  case Packing::Winograd2x2:
  case Packing::WinogradLine2: return 2;
  case Packing::Winograd4x4: return 4;
  default: return 0;
  }
}

WinogradLayout winogradLayout(const Node &conv, const WinogradTile &tile) {
  const TensorType &x = ConvView(conv).input()->getType();
  const TensorType &y = conv.getOutput()->getType();
  int64_t C = x.shape[1], OC = y.shape[1];
  WinogradLayout l;
  l.tile = tile;
  l.points = l.tile.points();
  l.tilesH = llvm::divideCeil(y.shape[2], l.tile.mh);
  l.tilesW = llvm::divideCeil(y.shape[3], l.tile.mw);
  // Blocks of equal numbers of tile rows, as many as the tile target asks.
  // Every block reads all the weights: past the cache they decide.
  int64_t target =
      l.points * OC * C * int64_t(sizeof(float)) >= kCachedWeightsBytes
          ? kBlockTiles
          : std::clamp<int64_t>(kBlockFloats / ((C + OC) * l.points), kConvPackBlock,
                                kBlockTiles);
  int64_t rows = std::clamp<int64_t>(llvm::divideCeil(target, l.tilesW), 1, l.tilesH);
  l.blockRows = l.tile.isLine() ? lineBlockRows(l.tilesH, l.tilesW)
                                : llvm::divideCeil(l.tilesH, llvm::divideCeil(l.tilesH, rows));
  l.blockTiles = llvm::alignTo(l.blockRows * l.tilesW, kConvPackBlock);
  l.vOffset = l.points * l.blockTiles + kConvPackBlock;
  l.vPointStride = C * l.blockTiles + kConvPackBlock;
  l.mPointStride = OC * l.blockTiles + kConvPackBlock;
  l.mOffset = l.vOffset + l.points * l.vPointStride;
  l.size = l.mOffset + l.points * l.mPointStride;
  return l;
}

double winogradCost(const Node &conv, int64_t m, unsigned vectorLanes) {
  WinogradLayout l = winogradLayout(conv, {m, m, 3, 3});
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
    int64_t n = l.tile.nh();
    double cut = C * rows * n * llvm::divideCeil(l.tilesW, lanes) * (2.0 * n + 2) / 2;
    cost += blocks * (products + in + out + cut);
  }
  double weights = winogradWeightsBytes({OC, C, 3, 3}, m);
  if (weights >= kCachedWeightsBytes)
    cost += weights / kStreamBytesPerCycle +
            (llvm::divideCeil(l.tilesH, l.blockRows) - 1) * weights / kReadBytesPerCycle;
  return cost;
}

int64_t chooseWinogradTile(const Node &conv, unsigned vectorLanes) {
  if (vectorLanes == 1 || winogradTileFor(ConvView(conv).weights()->getType().shape, 2).isLine())
    return 2;
  return winogradCost(conv, 4, vectorLanes) < winogradCost(conv, 2, vectorLanes) ? 4 : 2;
}

uint64_t winogradWeightsBytes(llvm::ArrayRef<int64_t> shape, int64_t m) {
  return winogradTileFor(shape, m).points() * shape[0] * shape[1] * sizeof(float);
}

uint64_t runTimeWinogradWeightsBytes(const Node &conv, const KernelStrategy &s) {
  if (!s.transformsWeights)
    return 0;
  int64_t m = std::max(s.winograd.mh, s.winograd.mw);
  return llvm::alignTo(winogradWeightsBytes(ConvView(conv).weights()->getType().shape, m),
                       kBufferAlignment);
}

std::vector<double> winogradG(int64_t m, int64_t r) {
  if (r == 3 && m == 2)
    return {&kG2[0][0], &kG2[0][0] + 4 * 3};
  if (r == 3 && m == 4)
    return {&kG4[0][0], &kG4[0][0] + 6 * 3};
  return toomCook(m, r).g;
}

void packWinogradWeights(const Tensor &w, int64_t m, uint8_t *dst) {
  llvm::ArrayRef<int64_t> shape = w.getType().shape;
  WinogradTile t = winogradTileFor(shape, m);
  const int64_t OC = shape[0], C = shape[1], nh = t.nh(), nw = t.nw(), rh = t.rh, rw = t.rw;
  const std::vector<double> gh = winogradG(t.mh, rh), gw = winogradG(t.mw, rw);
  const float *src = reinterpret_cast<const float *>(w.raw().data());
  float *out = reinterpret_cast<float *>(dst);
  std::vector<double> gg(nh * rw); // Gh g
  for (int64_t oc = 0; oc < OC; ++oc)
    for (int64_t c = 0; c < C; ++c) {
      const float *g = src + (oc * C + c) * rh * rw;
      for (int64_t i = 0; i < nh; ++i)
        for (int64_t j = 0; j < rw; ++j) {
          double v = 0;
          for (int64_t k = 0; k < rh; ++k)
            v += gh[i * rh + k] * g[k * rw + j];
          gg[i * rw + j] = v;
        }
      for (int64_t i = 0; i < nh; ++i)
        for (int64_t j = 0; j < nw; ++j) {
          double u = 0;
          for (int64_t k = 0; k < rw; ++k)
            u += gg[i * rw + k] * gw[j * rw + k];
          out[((i * nw + j) * C + c) * OC + oc] = static_cast<float>(u);
        }
    }
}

} // namespace lir
} // namespace kiln
