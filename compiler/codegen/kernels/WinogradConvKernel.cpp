//===- WinogradConvKernel.cpp - 3x3 convolution as Winograd F(2x2, 3x3) ---===//
//
// lir/Winograd.h has the arithmetic and the layout. Per image, the input is
// copied padded into the temp with its columns split in two phases, so the
// 4x4 patches of consecutive tiles of a tile row start at consecutive floats.
// Then per block of tile rows:
//  1. input transform: per input channel and tile row, the 16 values
//     V = B^T d B of `lanes` tiles at a time (a vector per patch element,
//     adds only), into V [16][C][tiles of the block];
//  2. 16 matrix products M[k] = U[k] (OC x C, packed at compile time) times
//     V[k] (C x tiles), on register tiles with output channels as broadcast
//     rows and tiles on the vector lanes, as the direct kernel's pixel tiles;
//  3. output transform: per output channel and tile row, Y = A^T m A for
//     `lanes` tiles, plus bias, the two columns of each tile interleaved
//     into one vector and stored through the convolution's epilogue.
// A block's tiles are consecutive in V and M across its tile rows, so the
// products see whole vectors even when a tile row is shorter than one.
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/kernels/ConvInput.h"
#include "compiler/codegen/kernels/RegisterTile.h"
#include "compiler/lir/Winograd.h"

#include <array>
#include <limits>

namespace kiln {
namespace codegen {

namespace {

/// Widest product tile, in vectors, as for the direct convolution.
constexpr unsigned kMaxTileVecs = 4;

/// Input channels per iteration of a product's K loop.
constexpr int64_t kUnrolledChannels = 4;

using Patch = std::array<llvm::Value *, 16>;

/// Estimated cycles of the products of one transform point with `rows` x
/// `vecs` tiles: their K loops, stores and a fixed overhead per tile.
double productCost(int64_t OC, int64_t C, int64_t elems, unsigned rows, unsigned vecs,
                   unsigned lanes) {
  int64_t vectors = (elems + lanes - 1) / lanes;
  double cost = 0;
  for (auto [nr, r] : {std::pair<int64_t, int64_t>{OC / rows, rows}, {1, OC % rows}})
    for (auto [nv, v] : {std::pair<int64_t, int64_t>{vectors / vecs, vecs}, {1, vectors % vecs}})
      if (nr && r && nv && v)
        cost += nr * nv * (C * tileStepCycles(r, v) + r * v + 10);
  return cost;
}

struct WinogradEmitter {
  KernelBuilder &kb;
  const ConvShape &s;
  const lir::WinogradLayout &l;
  llvm::Value *u, *bias, *y, *temp;
  const ConvEpilogue &epilogue;
  TileShape plan; ///< rows (output channels) x vecs of the products

  llvm::IRBuilder<> &b() { return kb.b; }
  llvm::Value *add(llvm::Value *a, int64_t c) { return kb.b.CreateAdd(a, kb.idx(c)); }
  llvm::Value *add(llvm::Value *a, llvm::Value *c) { return kb.b.CreateAdd(a, c); }
  llvm::Value *mul(llvm::Value *a, int64_t c) { return kb.b.CreateMul(a, kb.idx(c)); }
  llvm::Value *fadd(llvm::Value *a, llvm::Value *c) { return kb.b.CreateFAdd(a, c); }
  llvm::Value *fsub(llvm::Value *a, llvm::Value *c) { return kb.b.CreateFSub(a, c); }

  /// 1. V of tile rows th0 .. th0 + rows - 1.
  void transformInput(llvm::Value *th0, int64_t rows) {
    const unsigned lanes = kb.vec.lanes;
    const int64_t rowStride = l.padded.rowStride();
    kb.loop(s.C, [&](llvm::Value *c) {
      kb.loop(rows, [&](llvm::Value *r) {
        llvm::Value *rowBase =
            add(mul(c, l.padded.planeStride()), mul(add(th0, r), 2 * rowStride));
        llvm::Value *vBase = add(add(mul(c, l.blockTiles), mul(r, l.tilesW)), l.vOffset);
        forTiles(kb, l.tilesW, lanes, [&](llvm::Value *t0, int64_t count) {
          unsigned valid = static_cast<unsigned>(count);
          Patch d;
          for (int64_t i = 0; i < 4; ++i)
            for (int64_t j = 0; j < 4; ++j)
              d[i * 4 + j] = kb.loadVec(
                  temp, add(add(rowBase, t0), i * rowStride + j % 2 * l.padded.phaseWidth + j / 2),
                  lanes, valid);
          // B^T d: rows d0 - d2, d1 + d2, d2 - d1, d1 - d3; then the same on
          // the columns.
          Patch t, v;
          for (int64_t j = 0; j < 4; ++j) {
            t[0 + j] = fsub(d[0 + j], d[8 + j]);
            t[4 + j] = fadd(d[4 + j], d[8 + j]);
            t[8 + j] = fsub(d[8 + j], d[4 + j]);
            t[12 + j] = fsub(d[4 + j], d[12 + j]);
          }
          for (int64_t i = 0; i < 4; ++i) {
            v[i * 4 + 0] = fsub(t[i * 4 + 0], t[i * 4 + 2]);
            v[i * 4 + 1] = fadd(t[i * 4 + 1], t[i * 4 + 2]);
            v[i * 4 + 2] = fsub(t[i * 4 + 2], t[i * 4 + 1]);
            v[i * 4 + 3] = fsub(t[i * 4 + 1], t[i * 4 + 3]);
          }
          for (int64_t k = 0; k < 16; ++k)
            kb.storeVec(v[k], temp, add(add(vBase, t0), k * l.vPointStride), valid);
        });
      });
    });
  }

  /// 2. M[k] = U[k] V[k] over the block's `tiles` tiles, for every k.
  void multiply(int64_t tiles) {
    const unsigned lanes = kb.vec.lanes;
    kb.loop(lir::kWinogradPoints, [&](llvm::Value *k) {
      llvm::Value *uPoint = mul(k, s.C * s.OC);
      llvm::Value *vPoint = add(mul(k, l.vPointStride), l.vOffset);
      llvm::Value *mPoint = add(mul(k, l.mPointStride), l.mOffset);
      forTiles(kb, s.OC, plan.rows, [&](llvm::Value *oc0, int64_t ocs) {
        forTiles(kb, tiles, int64_t(plan.vecs) * lanes, [&](llvm::Value *t0, int64_t count) {
          TileShape t = tileFor(static_cast<unsigned>(ocs), count, lanes);
          llvm::SmallVector<int64_t, 32> aRows = stridedRows(t.rows, 1);
          llvm::SmallVector<int64_t, 32> bVecs = stridedRows(t.vecs, lanes);
          Tile acc(t.rows * t.vecs, kb.splat(kb.f32(0), lanes));
          llvm::Value *uTile = add(uPoint, oc0), *vTile = add(vPoint, t0);
          auto step = [&](Tile sums, llvm::Value *c) {
            return tileStep(kb, t, std::move(sums), u, add(uTile, mul(c, s.OC)), aRows, temp,
                            add(vTile, mul(c, l.blockTiles)), bVecs);
          };
          int64_t chunks = s.C / kUnrolledChannels, rest = s.C % kUnrolledChannels;
          acc = kb.loopCarried(chunks, acc, [&](llvm::Value *ch, llvm::ArrayRef<llvm::Value *> in) {
            Tile x(in.begin(), in.end());
            for (int64_t i = 0; i < kUnrolledChannels; ++i)
              x = step(std::move(x), add(mul(ch, kUnrolledChannels), i));
            return x;
          });
          for (int64_t i = 0; i < rest; ++i)
            acc = step(std::move(acc), kb.idx(chunks * kUnrolledChannels + i));
          llvm::Value *mTile = add(mPoint, add(mul(oc0, l.blockTiles), t0));
          for (unsigned i = 0; i < t.rows; ++i)
            for (unsigned j = 0; j < t.vecs; ++j)
              kb.storeVec(acc[i * t.vecs + j], temp,
                          add(mTile, int64_t(i) * l.blockTiles + int64_t(j) * lanes), t.valid(j));
        });
      });
    });
  }

  /// 3. The outputs of tile rows th0 .. th0 + rows - 1 of image `image`.
  void transformOutput(llvm::Value *image, llvm::Value *th0, int64_t rows) {
    const unsigned lanes = kb.vec.lanes;
    kb.loop(s.OC, [&](llvm::Value *oc) {
      llvm::Value *init =
          kb.splat(bias ? kb.load(kb.b.getFloatTy(), bias, oc) : kb.f32(0), lanes);
      llvm::Value *plane = mul(add(mul(image, s.OC), oc), s.OH * s.OW);
      kb.loop(rows, [&](llvm::Value *r) {
        llvm::Value *th = add(th0, r);
        llvm::Value *mBase = add(add(mul(oc, l.blockTiles), mul(r, l.tilesW)), l.mOffset);
        llvm::Value *row0 = add(plane, mul(th, 2 * s.OW));
        llvm::Value *row1 = add(row0, s.OW);
        // With an odd output height the last tile row's second row is past
        // the image: it is stored over the first, which is stored after it.
        if (s.OH % 2)
          row1 = b().CreateSelect(b().CreateICmpULT(add(mul(th, 2), 1), kb.idx(s.OH)), row1,
                                  row0);
        // Whole runs of `lanes` tiles (2 * lanes output columns), then the
        // columns left, an odd one included.
        auto columns = [&](llvm::Value *t0, int64_t cols) {
          unsigned tiles = static_cast<unsigned>((cols + 1) / 2);
          Patch m;
          for (int64_t k = 0; k < 16; ++k)
            m[k] = kb.loadVec(temp, add(add(mBase, t0), k * l.mPointStride), lanes, tiles);
          // A^T m: rows m0 + m1 + m2, m1 - m2 - m3; then the columns.
          std::array<llvm::Value *, 8> t;
          for (int64_t j = 0; j < 4; ++j) {
            t[j] = fadd(fadd(m[j], m[4 + j]), m[8 + j]);
            t[4 + j] = fsub(fsub(m[4 + j], m[8 + j]), m[12 + j]);
          }
          std::array<llvm::Value *, 4> out;
          for (int64_t i = 0; i < 2; ++i) {
            llvm::Value *const *ti = &t[i * 4];
            out[i * 2] = fadd(fadd(fadd(ti[0], ti[1]), ti[2]), init);
            out[i * 2 + 1] = fadd(fsub(fsub(ti[1], ti[2]), ti[3]), init);
          }
          llvm::Value *col = mul(t0, 2);
          unsigned valid = static_cast<unsigned>(cols);
          for (int64_t i : {1, 0}) {
            llvm::Value *at = add(i ? row1 : row0, col);
            if (lanes == 1) {
              epilogue.store(kb, out[i * 2], y, at, 1);
              if (cols > 1)
                epilogue.store(kb, out[i * 2 + 1], y, add(at, 1), 1);
              continue;
            }
            llvm::SmallVector<int, 32> interleave;
            for (unsigned q = 0; q < lanes; ++q)
              interleave.append({static_cast<int>(q), static_cast<int>(lanes + q)});
            epilogue.store(kb, b().CreateShuffleVector(out[i * 2], out[i * 2 + 1], interleave), y,
                           at, valid);
          }
        };
        int64_t run = 2 * int64_t(lanes);
        int64_t fullRuns = s.OW / run, rest = s.OW % run;
        if (fullRuns)
          forEachIndex(kb, fullRuns, [&](llvm::Value *i) { columns(mul(i, lanes), run); });
        if (rest)
          columns(kb.idx(fullRuns * lanes), rest);
      });
    });
  }
};

} // namespace

llvm::Error emitWinogradConv(KernelBuilder &kb, const KernelArgs &args) {
  const Node &n = args.node;
  if (!lir::isWinogradConv(n) || !args.temp)
    return nodeError(n, "Winograd weights on a convolution the Winograd kernel cannot run");
  ConvShape s = ConvShape::of(n);
  lir::WinogradLayout l = lir::winogradLayout(n);
  const unsigned lanes = kb.vec.lanes;

  // The product tile: output channels x vectors of tiles, by estimated cost
  // over a full block.
  int64_t blockTiles = l.blockRows * l.tilesW;
  int64_t vectors = (blockTiles + lanes - 1) / lanes;
  TileShape plan;
  double best = std::numeric_limits<double>::infinity();
  for (unsigned vecs = 1; vecs <= kMaxTileVecs && vecs <= vectors; ++vecs)
    for (unsigned rows = 1; rows <= maxTileRows(kb.vec, vecs) && rows <= s.OC; ++rows) {
      double cost = productCost(s.OC, s.C, blockTiles, rows, vecs, lanes);
      if (cost < best) {
        best = cost;
        plan = tileFor(rows, int64_t(vecs) * lanes, lanes);
      }
    }
  llvm::Function *fn = kb.b.GetInsertBlock()->getParent();
  fn->setName(fn->getName() + ".wino" + plan.str());

  ConvEpilogue epilogue = ConvEpilogue::of(args);
  llvm::Value *bias = n.getNumInputs() > 2 ? args.inputs[2] : nullptr;
  WinogradEmitter e{kb, s, l, args.inputs[1], bias, args.outputs[0], args.temp, epilogue, plan};
  forEachIndex(kb, s.N, [&](llvm::Value *image) {
    emitPaddedCopy(kb, l.padded, args.inputs[0], e.mul(image, s.C * s.H * s.W), s.C, s.H, s.W,
                   s.pt, s.pl, args.temp, kb.f32(0));
    forTiles(kb, l.tilesH, l.blockRows, [&](llvm::Value *th0, int64_t rows) {
      e.transformInput(th0, rows);
      e.multiply(rows * l.tilesW);
      e.transformOutput(image, th0, rows);
    });
  });
  return llvm::Error::success();
}

} // namespace codegen
} // namespace kiln
