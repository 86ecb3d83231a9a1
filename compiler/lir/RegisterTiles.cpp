//===- RegisterTiles.cpp - Register tiles of the f32 GEMM kernels ---------===//

#include "compiler/lir/RegisterTiles.h"
#include "compiler/lir/ConvShape.h"
#include "compiler/lir/SelectKernels.h"
#include "compiler/lir/Winograd.h"
#include "compiler/ops/OpGeometry.h"
#include "compiler/ops/OpViews.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kiln {
namespace lir {

namespace {

/// Widest tile, in vectors: more would leave too few rows in 32 registers.
constexpr unsigned kMaxTileVecs = 4;

/// Vectors of a MatMul tile of one row. At batch 1 (M = 1, every
/// fully-connected layer) the product is bound by reading B once: one row of
/// up to this many vectors has independent accumulators enough to keep loads
/// and FMAs busy.
constexpr unsigned kGemvVecs = 8;

/// How much more a panel tile of a divisor of the output row may cost in its
/// K loops than the cheapest tile (convRegisterTile).
constexpr double kRowTileSlack = 1.25;

/// Weight bytes of a channel tile's K block over packed panels at most:
/// half of a 32 KiB L1 (256 steps of 16 channels).
constexpr int64_t kPanelKBytes = 16 * 1024;

/// Input bytes a cache block reads at most: a quarter of a 512 KiB L2, which
/// leaves room for the weights and the output the block's tiles touch.
constexpr int64_t kInputBlockBytes = 128 * 1024;

/// Largest row count for a tile of `vecs` vectors that fits `registers`:
/// the accumulators, the B vectors of a step and one broadcast A value.
unsigned maxTileRows(unsigned registers, unsigned vecs) {
  int rows = (static_cast<int>(registers) - static_cast<int>(vecs) - 1) /
             static_cast<int>(vecs);
  return static_cast<unsigned>(std::max(rows, 1));
}

/// Estimated cycles of one K step of a rows x vecs tile: FMA throughput
/// (two per cycle), FMA latency (4 cycles, so few accumulators stall) and
/// loads (two per cycle), whichever binds.
double tileStepCycles(unsigned rows, unsigned vecs) {
  double fmas = rows * vecs;
  return std::max({fmas / 2, 4.0, (rows + vecs) / 2.0});
}

/// (number of tiles, tile size) pairs covering `size` with tiles of `tile`.
using Tiling = llvm::SmallVector<std::pair<int64_t, int64_t>, 2>;
Tiling tiling(int64_t size, int64_t tile) {
  Tiling t{{size / tile, tile}};
  if (size % tile)
    t.push_back({1, size % tile});
  return t;
}

/// Estimated cycles of `rows` x `vecs` tiles over a rows x vectors product
/// of reduction `K`: their K loops, stores and a fixed overhead per tile.
double productCost(int64_t rowCount, int64_t vectors, int64_t K, unsigned rows,
                   unsigned vecs) {
  double cost = 0;
  for (auto [nr, r] : tiling(rowCount, rows))
    for (auto [nv, v] : tiling(vectors, vecs))
      if (nr && r && nv && v)
        cost += nr * nv * (K * tileStepCycles(r, v) + r * v + 10);
  return cost;
}

/// The tile of a rows x `elems` product of reduction `K` with the fewest
/// estimated cycles (productCost).
RegisterTile cheapestProductTile(int64_t rowCount, int64_t elems, int64_t K,
                                 const LIROptions &opts) {
  const int64_t vectors = (elems + opts.vectorLanes - 1) / opts.vectorLanes;
  RegisterTile best{false, 1, 1};
  double bestCost = std::numeric_limits<double>::infinity();
  for (unsigned vecs = 1; vecs <= kMaxTileVecs && vecs <= vectors; ++vecs)
    for (unsigned rows = 1; rows <= maxTileRows(opts.vectorRegisters, vecs) && rows <= rowCount;
         ++rows) {
      double cost = productCost(rowCount, vectors, K, rows, vecs);
      if (cost < bestCost) {
        bestCost = cost;
        best.rows = rows, best.vecs = vecs;
      }
    }
  return best;
}

/// Estimated cycles of Conv tile `p`: per tile, the K loop's steps
/// (tileStepCycles), the epilogue (stores; for channels on the lanes, the
/// transposes) and a fixed overhead; summed over the tiles of the rows and
/// vector dimensions.
double convTileCost(const RegisterTile &p, const ConvShape &s, const ConvRows &r,
                    unsigned lanes) {
  auto tileCost = [&](int64_t rows, int64_t v) {
    double epilogue = rows * v;
    if (p.channelsOnLanes && lanes > 1)
      epilogue = v * std::ceil(double(rows) / lanes) * lanes * (std::log2(lanes) + 1);
    return s.reduction() * tileStepCycles(rows, v) + epilogue + 10;
  };
  auto inVectors = [&](Tiling t) {
    for (auto &[n, elems] : t)
      elems = (elems + lanes - 1) / lanes;
    return t;
  };
  int64_t rowVectors = (r.rowLen + lanes - 1) / lanes;
  Tiling rows, vecs;
  int64_t repeat = p.span ? 1 : r.numRows;
  if (!p.channelsOnLanes) {
    rows = tiling(s.OCg, p.rows);
    if (p.span)
      for (auto [n, span] : tiling(r.numRows, p.span))
        vecs.push_back({n, span * rowVectors});
    else
      vecs = inVectors(tiling(r.rowLen, int64_t(p.vecs) * lanes));
  } else {
    vecs = inVectors(tiling(s.OCg, int64_t(p.vecs) * lanes));
    if (p.span)
      for (auto [n, span] : tiling(r.numRows, p.span))
        rows.push_back({n, span * r.rowLen});
    else
      rows = tiling(r.rowLen, p.rows);
  }
  double cost = 0;
  for (auto [nr, rr] : rows)
    for (auto [nv, v] : vecs)
      cost += nr * nv * tileCost(rr, v);
  return repeat * cost;
}

/// The cheapest Conv tile; over packed panels, channels on the lanes and at
/// most kMinPanelPixels pixels a tile. With `rowsDividing`, only tiles of
/// rows that divide it and no spans.
RegisterTile cheapestConvTile(const ConvShape &s, const ConvRows &r, bool packed,
                              const LIROptions &opts, int64_t rowsDividing = 0) {
  const unsigned lanes = opts.vectorLanes;
  RegisterTile best{false, 1, 1};
  double bestCost = std::numeric_limits<double>::infinity();
  auto consider = [&](RegisterTile p) {
    double cost = convTileCost(p, s, r, lanes);
    if (cost < bestCost)
      best = p, bestCost = cost;
  };
  for (bool channelsOnLanes : {false, true}) {
    // Pixels on the lanes need consecutive pixels consecutive in the view;
    // channels on the lanes need packed weights.
    if ((channelsOnLanes && !packed) || (!channelsOnLanes && (r.pixelStep != 1 || r.panels)))
      continue;
    int64_t rowDim = channelsOnLanes ? r.rowLen : s.OCg;
    int64_t vecDim = channelsOnLanes ? s.OCg : r.rowLen;
    int64_t vectors = (vecDim + lanes - 1) / lanes;
    // Tiles over packed output channels must start where packing blocks
    // do, or inside one block.
    auto fitsBlocks = [&](int64_t channels) {
      return !packed || kConvPackBlock % channels == 0 || channels % kConvPackBlock == 0;
    };
    for (unsigned vecs = 1; vecs <= kMaxTileVecs && (vecs <= vectors || !channelsOnLanes);
         ++vecs) {
      if (channelsOnLanes && !fitsBlocks(int64_t(vecs) * lanes))
        continue;
      if (vecs > vectors && vecs % vectors != 0)
        continue;
      unsigned maxRows = maxTileRows(opts.vectorRegisters, vecs);
      if (r.panels)
        maxRows = std::min<unsigned>(maxRows, kMinPanelPixels);
      for (unsigned rows = 1; rows <= maxRows && rows <= rowDim; ++rows)
        if ((channelsOnLanes || fitsBlocks(rows)) && (!rowsDividing || rowsDividing % rows == 0)) {
          if (vecs <= vectors)
            consider({channelsOnLanes, rows, vecs});
          // Whole output rows of `vectors` vectors each.
          if (!channelsOnLanes && vecs % vectors == 0 && vecs / vectors >= 2 &&
              vecs / vectors <= r.numRows)
            consider({false, rows, vecs, vecs / vectors});
        }
      if (channelsOnLanes && !rowsDividing)
        for (int64_t span = 2; span <= r.numRows && span * r.rowLen <= maxRows; ++span)
          consider({true, static_cast<unsigned>(span * r.rowLen), vecs, span});
    }
  }
  return best;
}

/// The cache block of `p` (RegisterTile::block): as many output rows, or
/// whole tiles of a plane's pixels when it is one row, as keep the input
/// they read within kInputBlockBytes. Only pixels on the lanes block: there a
/// tile reads a few weights and long runs of input, so the input is what
/// must stay in cache; with channels on the lanes a tile reads as many
/// weight bytes as input bytes, and its weights stay in L2 across the pixel
/// tiles only without blocks. Weights larger than the input (re-read once per
/// block) do not block either.
int64_t cacheBlock(const RegisterTile &p, const ConvShape &s, const ConvRows &r,
                   unsigned lanes) {
  if (p.span || p.channelsOnLanes)
    return 0;
  const int64_t channelBytes = s.ICg * int64_t(sizeof(float));
  // A row of output reads the input rows up to the next one's, or its
  // window's when that is shorter; a plane read as one row, its pixels.
  int64_t rowBytes = r.numRows == 1 ? channelBytes * r.pixelStep * r.rowLen
                                    : channelBytes * r.rowStride *
                                          std::min(s.sh, (s.KH - 1) * s.dh + 1);
  if (rowBytes * r.numRows <= kInputBlockBytes ||
      s.OCg * s.reduction() * int64_t(sizeof(float)) > rowBytes * r.numRows)
    return 0;
  if (r.numRows == 1) {
    int64_t tile = int64_t(p.vecs) * lanes;
    int64_t tiles = kInputBlockBytes / (channelBytes * r.pixelStep * tile);
    return std::max<int64_t>(1, tiles) * tile;
  }
  return std::max<int64_t>(1, kInputBlockBytes / rowBytes);
}

} // namespace

RegisterTile convRegisterTile(const Node &conv, const KernelStrategy &strategy,
                              const PaddedInput *layout, const LIROptions &opts) {
  ConvShape s = ConvShape::of(conv);
  ConvRows r = convRows(s, layout, strategy);
  RegisterTile tile = cheapestConvTile(s, r, strategy.packedWeights, opts);
  // Panels of a unit-stride 1x1 Conv without padding copy runs of pixels.
  // Other panels copy a tile within one output row a run of the input row
  // per tap and channel (vectors), any other pixel by pixel, which can cost
  // more than the tile's FMAs: take the cheapest tile of a divisor of the
  // row's pixels unless its K loops cost kRowTileSlack times more, or it
  // is narrower. A narrower one (17 pixels of one vector for an output row
  // of 17, where the cheapest is 14 of two) costs more than estimated:
  // Inception-v3's 3x3 of stride 2 to 17x17 took 3.6 ms on it, 3.1 on 14x2
  // with its panels copied pixel by pixel.
  if (r.panels && !isUnitPointwiseConv(conv) && s.OW % tile.rows != 0) {
    RegisterTile aligned = cheapestConvTile(s, r, strategy.packedWeights, opts, s.OW);
    if (s.OW % aligned.rows == 0 && aligned.vecs >= tile.vecs &&
        convTileCost(aligned, s, r, opts.vectorLanes) <=
            kRowTileSlack * convTileCost(tile, s, r, opts.vectorLanes))
      tile = aligned;
  }
  if (!r.panels) {
    tile.block = cacheBlock(tile, s, r, opts.vectorLanes);
    return tile;
  }
  // A block of panels is whole tiles, except for a last one of fewer
  // pixels; the strategy's block has room for at least one tile.
  tile.block = strategy.tile >= r.rowLen
                   ? r.rowLen
                   : std::max<int64_t>(tile.rows, strategy.tile / tile.rows * tile.rows);
  const int64_t kBlock =
      std::max<int64_t>(kConvUnrolledChannels,
                        kPanelKBytes / (int64_t(tile.vecs) * opts.vectorLanes *
                                        int64_t(sizeof(float))));
  tile.kBlock = kBlock < s.reduction() ? kBlock : 0;
  return tile;
}

RegisterTile winogradRegisterTile(const Node &conv, const WinogradTile &tile,
                                  const LIROptions &opts) {
  WinogradLayout l = winogradLayout(conv, tile);
  ConvShape s = ConvShape::of(conv);
  return cheapestProductTile(s.OC, l.blockRows * l.tilesW, s.C, opts);
}

RegisterTile matMulRegisterTile(const Node &matmul, const LIROptions &opts) {
  MatMulView v(matmul);
  std::optional<MatMulDims> d = matMulDims(v.a()->getType().shape, v.b()->getType().shape);
  if (!d)
    return {};
  const int64_t rows = matMulGemmRows(*d);
  if (rows == 1) {
    const int64_t vectors = (d->n + opts.vectorLanes - 1) / opts.vectorLanes;
    return {false, 1, static_cast<unsigned>(std::min<int64_t>(vectors, kGemvVecs))};
  }
  RegisterTile tile = cheapestProductTile(rows, d->n, d->k, opts);
  // B (K x N) larger than A (rows x K).
  tile.columnsOuter = d->n > rows;
  return tile;
}

} // namespace lir
} // namespace kiln
