//===- WinogradConvKernel.cpp - Convolution as Winograd F(mh x mw, rh x rw) ===//
//
// lir/Winograd.h has the arithmetic and the layout. Weights computed at run
// time are transformed first, into the temp (transformWeights). Per block of
// tile rows:
//  1. input transform: per input channel, the block's input is cut into its
//     patches (a run of the block's tiles per patch point, so that a point
//     of consecutive tiles, also of consecutive tile rows, is at
//     consecutive floats), then V = B^T d B of a vector of tiles at a time
//     (a vector per patch point; adds and FMAs by small constants), into V
//     [points][C][tiles of the block]; B^T is F(m x m, 3x3)'s factored by
//     hand, or a ToomCook's, applied entry by entry (1-D, where the
//     products dwarf it);
//  2. one matrix product per point, M[k] = U[k] (OC x C, packed at compile
//     time or transformed first) times V[k] (C x tiles), on register tiles
//     with output channels as broadcast rows and tiles on the vector lanes,
//     as the direct kernel's pixel tiles;
//  3. output transform: per output channel, Y = A^T m A for a vector of
//     tiles, plus bias; the m columns of each tile interleaved into one
//     vector per output row, cut per tile row and stored through the
//     convolution's epilogue.
// A block's tiles are consecutive in the cut, V and M across its tile rows,
// so every step sees whole vectors even when a tile row is shorter than
// one. The output vectors that span several tile rows are unrolled per
// block (which rows they cut is known at compile time).
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/kernels/ConvInput.h"
#include "compiler/codegen/kernels/RegisterTile.h"
#include "compiler/lir/ToomCook.h"
#include "compiler/lir/Winograd.h"

namespace kiln {
namespace codegen {

namespace {

/// Input channels per iteration of a product's K loop.
constexpr int64_t kUnrolledChannels = 4;

using Values = llvm::SmallVector<llvm::Value *, 36>;

struct WinogradEmitter {
  KernelBuilder &kb;
  const ConvShape &s;
  const lir::WinogradLayout &l;
  llvm::Value *x, *u, *bias, *y, *temp;
  const ConvEpilogue &epilogue;
  TileShape plan; ///< rows (output channels) x vecs of the products
  /// The 1-D transforms of the columns and of the rows: F(m, r) of each
  /// axis (F(1, 1), the identity, across a kernel of one row).
  lir::ToomCook colsF, rowsF;

  llvm::IRBuilder<> &b() { return kb.b; }
  llvm::Value *add(llvm::Value *a, int64_t c) { return kb.b.CreateAdd(a, kb.idx(c)); }
  llvm::Value *add(llvm::Value *a, llvm::Value *c) { return kb.b.CreateAdd(a, c); }
  llvm::Value *mul(llvm::Value *a, int64_t c) { return kb.b.CreateMul(a, kb.idx(c)); }
  llvm::Value *fadd(llvm::Value *a, llvm::Value *c) { return kb.b.CreateFAdd(a, c); }
  llvm::Value *fsub(llvm::Value *a, llvm::Value *c) { return kb.b.CreateFSub(a, c); }
  /// c * a + x, c a constant.
  llvm::Value *fmaC(double c, llvm::Value *a, llvm::Value *x) {
    return kb.fma(llvm::ConstantFP::get(a->getType(), c), a, x);
  }

  /// U = G g G^T of every (output, input channel) pair of weights `w`
  /// ([OC][C][rh][rw], read at run time) into `u` as [points][C][OC], the
  /// layout lir::packWinogradWeights writes at compile time: a vector of
  /// output channels at a time, their taps gathered lane by lane.
  void transformWeights(llvm::Value *w) {
    const unsigned lanes = kb.vec.lanes;
    const int64_t rh = l.tile.rh, rw = l.tile.rw, nh = l.tile.nh(), nw = l.tile.nw();
    const std::vector<double> gh = lir::winogradG(l.tile.mh, rh), gw = lir::winogradG(l.tile.mw, rw);
    llvm::Type *f32 = b().getFloatTy();
    auto channels = [&](llvm::Value *oc0, unsigned valid) {
      kb.loop(s.C, [&](llvm::Value *c) {
        Values g;
        for (int64_t k = 0; k < rh * rw; ++k) {
          llvm::Value *v = llvm::Constant::getNullValue(kb.vecType(lanes));
          for (unsigned lane = 0; lane < valid; ++lane) {
            llvm::Value *at = add(mul(add(mul(add(oc0, lane), s.C), c), rh * rw), k);
            llvm::Value *tap = kb.load(f32, w, at);
            v = lanes == 1 ? tap : b().CreateInsertElement(v, tap, uint64_t(lane));
          }
          g.push_back(v);
        }
        Values gg(nh * rw); // Gh g
        for (int64_t j = 0; j < rw; ++j) {
          Values column;
          for (int64_t k = 0; k < rh; ++k)
            column.push_back(g[k * rw + j]);
          Values t = applyMatrix(gh, nh, rh, column);
          for (int64_t i = 0; i < nh; ++i)
            gg[i * rw + j] = t[i];
        }
        for (int64_t i = 0; i < nh; ++i) {
          Values ui = applyMatrix(gw, nw, rw, llvm::ArrayRef(gg).slice(i * rw, rw));
          for (int64_t j = 0; j < nw; ++j)
            kb.storeVec(ui[j], u, add(mul(add(c, (i * nw + j) * s.C), s.OC), oc0), valid);
        }
      });
    };
    forEachIndex(kb, s.OC / lanes, [&](llvm::Value *v) { channels(mul(v, lanes), lanes); });
    if (s.OC % lanes)
      channels(kb.idx(s.OC / lanes * lanes), unsigned(s.OC % lanes));
  }

  /// `rows` x `cols` matrix `t` (row-major) times the `cols` values d,
  /// skipping zero entries.
  Values applyMatrix(llvm::ArrayRef<double> t, int64_t rows, int64_t cols,
                     llvm::ArrayRef<llvm::Value *> d) {
    Values out;
    for (int64_t i = 0; i < rows; ++i) {
      llvm::Value *acc = nullptr;
      for (int64_t j = 0; j < cols; ++j) {
        double c = t[i * cols + j];
        if (c == 0)
          continue;
        if (!acc)
          acc = c == 1 ? d[j] : b().CreateFMul(llvm::ConstantFP::get(d[j]->getType(), c), d[j]);
        else
          acc = c == 1 ? fadd(acc, d[j]) : c == -1 ? fsub(acc, d[j]) : fmaC(c, d[j], acc);
      }
      out.push_back(acc ? acc : llvm::Constant::getNullValue(d[0]->getType()));
    }
    return out;
  }

  /// B^T d of one column (or row) of n values, of transform `t`.
  Values inputTransform1D(const lir::ToomCook &t, llvm::ArrayRef<llvm::Value *> d) {
    if (t.r != 3)
      return applyMatrix(t.bt, t.n, t.n, d);
    if (t.m == 2)
      return {fsub(d[0], d[2]), fadd(d[1], d[2]), fsub(d[2], d[1]), fsub(d[1], d[3])};
    // Rows of B^T: 4 0 -5 0 1 0; 0 -4 -4 1 1 0; 0 4 -4 -1 1 0;
    // 0 -2 -1 2 1 0; 0 2 -1 -2 1 0; 0 4 0 -5 0 1.
    llvm::Value *a = fmaC(-4, d[2], d[4]), *c = fmaC(-4, d[1], d[3]);
    llvm::Value *e = fsub(d[4], d[2]), *f = fsub(d[3], d[1]);
    return {fmaC(4, d[0], fmaC(-5, d[2], d[4])), fadd(a, c), fsub(a, c),
            fmaC(2, f, e), fmaC(-2, f, e), fmaC(4, d[1], fmaC(-5, d[3], d[5]))};
  }

  /// A^T x of one column (or row) of n values, of transform `t`: m values.
  Values outputTransform1D(const lir::ToomCook &t, llvm::ArrayRef<llvm::Value *> x) {
    if (t.r != 3)
      return applyMatrix(t.at, t.m, t.n, x);
    if (t.m == 2)
      return {fadd(fadd(x[0], x[1]), x[2]), fsub(fsub(x[1], x[2]), x[3])};
    // Rows of A^T: 1 1 1 1 1 0; 0 1 -1 2 -2 0; 0 1 1 4 4 0; 0 1 -1 8 -8 1.
    llvm::Value *s12 = fadd(x[1], x[2]), *d12 = fsub(x[1], x[2]);
    llvm::Value *s34 = fadd(x[3], x[4]), *d34 = fsub(x[3], x[4]);
    return {fadd(fadd(x[0], s12), s34), fmaC(2, d34, d12), fmaC(4, s34, s12),
            fadd(fmaC(8, d34, d12), x[5])};
  }

  /// Tc p Tr^T of an nh x nw patch (row-major) for 1-D transforms Tc of
  /// the columns (nh to outsH values) and Tr of the rows (nw to outsW):
  /// the columns, then the rows.
  template <typename ColsTransform, typename RowsTransform>
  Values transform2D(llvm::ArrayRef<llvm::Value *> p, int64_t outsH, int64_t outsW,
                     ColsTransform cols1D, RowsTransform rows1D) {
    const int64_t nh = l.tile.nh(), nw = l.tile.nw();
    Values cols(outsH * nw), out(outsH * outsW);
    for (int64_t j = 0; j < nw; ++j) {
      Values column;
      for (int64_t i = 0; i < nh; ++i)
        column.push_back(p[i * nw + j]);
      Values r = cols1D(column);
      for (int64_t i = 0; i < outsH; ++i)
        cols[i * nw + j] = r[i];
    }
    for (int64_t i = 0; i < outsH; ++i) {
      Values r = rows1D(llvm::ArrayRef<llvm::Value *>(cols).slice(i * nw, nw));
      for (int64_t j = 0; j < outsW; ++j)
        out[i * outsW + j] = r[j];
    }
    return out;
  }

  /// The cut of input channel c of image `image` for tile rows th0 .. th0 +
  /// rows - 1 (lir::WinogradLayout): per tile row and patch row, the padded
  /// row's columns dealt to the n runs of the patch columns. With vectors,
  /// `lanes` tiles at a time: one masked load of the input columns under
  /// them (from the first row for a row of padding) and a shuffle per patch
  /// column that also puts in the zeros of the left and right padding, then
  /// zeros for a row of padding; no fills, no branches.
  void cutChannel(llvm::Value *image, llvm::Value *c, llvm::Value *th0, int64_t rows) {
    const unsigned lanes = kb.vec.lanes;
    const int64_t mh = l.tile.mh, m = l.tile.mw, nh = l.tile.nh(), n = l.tile.nw();
    llvm::Value *src = add(mul(image, s.C * s.H * s.W), mul(c, s.H * s.W));
    kb.loop(rows, [&](llvm::Value *r) {
      for (int64_t i = 0; i < nh; ++i) {
        // Padded row mh th + i is input row mh th + i - pt, or padding.
        llvm::Value *ih = b().CreateSub(add(mul(add(th0, r), mh), i), kb.idx(s.pt));
        llvm::Value *inRow = b().CreateICmpULT(ih, kb.idx(s.H));
        llvm::Value *srcRow = add(src, mul(b().CreateSelect(inRow, ih, kb.idx(0)), s.W));
        llvm::Value *dst = add(mul(r, l.tilesW), i * n * l.blockTiles);
        if (lanes == 1) {
          cutScalarRow(srcRow, inRow, dst);
          continue;
        }
        for (int64_t t0 = 0; t0 < l.tilesW; t0 += lanes) {
          int64_t tiles = std::min<int64_t>(lanes, l.tilesW - t0);
          // Point (i, j) of tile t0 + k is input column b0 + j + m k.
          int64_t b0 = m * t0 - s.pl, start = std::max<int64_t>(b0, 0);
          int64_t last = b0 + m * (tiles - 1) + n - 1;
          unsigned wide = static_cast<unsigned>(std::max(m * (lanes + 1), m * (lanes - 1) + n));
          llvm::SmallVector<llvm::Constant *, 64> bits;
          for (unsigned e = 0; e < wide; ++e)
            bits.push_back(b().getInt1(start + e < s.W && start + e <= last));
          llvm::Type *ty = kb.vecType(wide);
          llvm::Value *row = b().CreateMaskedLoad(
              ty, kb.gep(b().getFloatTy(), x, add(srcRow, start)), llvm::Align(4),
              llvm::ConstantVector::get(bits), llvm::Constant::getNullValue(ty));
          for (int64_t j = 0; j < n; ++j) {
            llvm::SmallVector<int, 16> pick;
            for (unsigned k = 0; k < lanes; ++k) {
              int64_t col = b0 + j + m * k;
              bool inside = k < tiles && col >= 0 && col < s.W;
              pick.push_back(static_cast<int>(inside ? col - start : wide));
            }
            llvm::Value *v = b().CreateShuffleVector(row, llvm::Constant::getNullValue(ty), pick);
            v = b().CreateSelect(inRow, v, llvm::Constant::getNullValue(v->getType()));
            kb.storeVec(v, temp, add(dst, j * l.blockTiles + t0), static_cast<unsigned>(tiles));
          }
        }
      }
    });
  }

  /// cutChannel's patch row on a scalar core: a loop over the tiles.
  void cutScalarRow(llvm::Value *srcRow, llvm::Value *inRow, llvm::Value *dst) {
    kb.loop(l.tilesW, [&](llvm::Value *t) {
      for (int64_t j = 0; j < l.tile.nw(); ++j) {
        llvm::Value *col = b().CreateSub(add(mul(t, l.tile.mw), j), kb.idx(s.pl));
        llvm::Value *inside = b().CreateAnd(inRow, b().CreateICmpULT(col, kb.idx(s.W)));
        llvm::Value *at = add(srcRow, b().CreateSelect(inside, col, kb.idx(0)));
        llvm::Value *v = b().CreateSelect(inside, kb.load(b().getFloatTy(), x, at), kb.f32(0));
        kb.store(v, temp, add(add(dst, j * l.blockTiles), t));
      }
    });
  }

  /// V of `count` block tiles from `tile`, of channel c, from its cut.
  void inputVector(llvm::Value *c, llvm::Value *tile, int64_t count) {
    const unsigned lanes = kb.vec.lanes;
    unsigned valid = static_cast<unsigned>(count);
    Values d;
    for (int64_t k = 0; k < l.points; ++k)
      d.push_back(kb.loadVec(temp, add(tile, k * l.blockTiles), lanes, valid));
    Values v = transform2D(
        d, l.tile.nh(), l.tile.nw(),
        [&](llvm::ArrayRef<llvm::Value *> col) { return inputTransform1D(colsF, col); },
        [&](llvm::ArrayRef<llvm::Value *> row) { return inputTransform1D(rowsF, row); });
    llvm::Value *vBase = add(add(mul(c, l.blockTiles), tile), l.vOffset);
    for (int64_t k = 0; k < l.points; ++k)
      kb.storeVec(v[k], temp, add(vBase, k * l.vPointStride), valid);
  }

  /// 1. V of tile rows th0 .. th0 + rows - 1 of image `image`, a channel
  /// at a time: its cut, then runs of `lanes` tiles across the rows.
  void transformInput(llvm::Value *image, llvm::Value *th0, int64_t rows) {
    const int64_t lanes = kb.vec.lanes, tiles = rows * l.tilesW;
    kb.loop(s.C, [&](llvm::Value *c) {
      cutChannel(image, c, th0, rows);
      forTiles(kb, tiles, lanes, [&](llvm::Value *t0, int64_t count) {
        inputVector(c, t0, count);
      });
    });
  }

  /// 2. M[k] = U[k] V[k] over the block's `tiles` tiles, for every k.
  void multiply(int64_t tiles) {
    const unsigned lanes = kb.vec.lanes;
    kb.loop(l.points, [&](llvm::Value *k) {
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
          acc = reduceSteps(kb, s.C, kUnrolledChannels, std::move(acc), step);
          llvm::Value *mTile = add(mPoint, add(mul(oc0, l.blockTiles), t0));
          for (unsigned i = 0; i < t.rows; ++i)
            for (unsigned j = 0; j < t.vecs; ++j)
              kb.storeVec(acc[i * t.vecs + j], temp,
                          add(mTile, int64_t(i) * l.blockTiles + int64_t(j) * lanes), t.valid(j));
        });
      });
    });
  }

  /// Lanes' values interleaved: lane q of vs[i] at q * vs.size() + i.
  llvm::Value *interleave(llvm::ArrayRef<llvm::Value *> vs) {
    if (vs.size() == 1)
      return vs[0];
    llvm::SmallVector<llvm::Value *, 2> halves[2];
    for (size_t i = 0; i < vs.size(); ++i)
      halves[i % 2].push_back(vs[i]);
    llvm::Value *even = interleave(halves[0]), *odd = interleave(halves[1]);
    unsigned lanes = llvm::cast<llvm::FixedVectorType>(even->getType())->getNumElements();
    llvm::SmallVector<int, 64> mask;
    for (unsigned q = 0; q < lanes; ++q)
      mask.append({static_cast<int>(q), static_cast<int>(lanes + q)});
    return b().CreateShuffleVector(even, odd, mask);
  }

  /// A run of `tiles` tiles of one tile row within an output vector.
  struct Segment {
    llvm::Value *row, *t0; ///< block tile row, first tile in it
    int64_t lane, tiles;   ///< first lane in the vector, tiles
    int64_t cols;          ///< output columns to store
  };

  /// The outputs of `count` tiles from block tile `tile` of output channel
  /// oc, stored per segment.
  void outputVector(llvm::Value *plane, llvm::Value *th0, llvm::Value *oc, llvm::Value *init,
                    llvm::Value *tile, int64_t count, llvm::ArrayRef<Segment> segments) {
    const unsigned lanes = kb.vec.lanes;
    const int64_t mh = l.tile.mh, m = l.tile.mw;
    Values mv;
    llvm::Value *mBase = add(add(mul(oc, l.blockTiles), tile), l.mOffset);
    for (int64_t k = 0; k < l.points; ++k)
      mv.push_back(kb.loadVec(temp, add(mBase, k * l.mPointStride), lanes,
                              static_cast<unsigned>(count)));
    Values out = transform2D(
        mv, mh, m,
        [&](llvm::ArrayRef<llvm::Value *> col) { return outputTransform1D(colsF, col); },
        [&](llvm::ArrayRef<llvm::Value *> row) { return outputTransform1D(rowsF, row); });
    for (llvm::Value *&v : out)
      v = fadd(v, init);
    for (const Segment &sg : segments) {
      llvm::Value *th = add(th0, sg.row);
      llvm::Value *row0 = add(plane, add(mul(th, mh * s.OW), mul(sg.t0, m)));
      // Output rows past the image (the last tile row of an odd height)
      // are stored over its first row, which is stored after them.
      for (int64_t a = mh - 1; a >= 0; --a) {
        llvm::Value *at = add(row0, a * s.OW);
        if (a && s.OH % mh)
          at = b().CreateSelect(b().CreateICmpULT(add(mul(th, mh), a), kb.idx(s.OH)), at, row0);
        if (lanes == 1) {
          for (int64_t j = 0; j < sg.cols; ++j)
            epilogue.store(kb, out[a * m + j], y, add(at, j), 1);
          continue;
        }
        llvm::Value *v = interleave(llvm::ArrayRef<llvm::Value *>(out).slice(a * m, m));
        if (sg.lane || sg.tiles < lanes) {
          llvm::SmallVector<int, 64> cut;
          for (int64_t e = 0; e < sg.tiles * m; ++e)
            cut.push_back(static_cast<int>(sg.lane * m + e));
          v = b().CreateShuffleVector(v, cut);
        }
        epilogue.store(kb, v, y, at, static_cast<unsigned>(sg.cols));
      }
    }
  }

  /// 3. The outputs of tile rows th0 .. th0 + rows - 1 of image `image`.
  void transformOutput(llvm::Value *image, llvm::Value *th0, int64_t rows) {
    const int64_t lanes = kb.vec.lanes, m = l.tile.mw;
    kb.loop(s.OC, [&](llvm::Value *oc) {
      llvm::Value *init =
          kb.splat(bias ? kb.load(kb.b.getFloatTy(), bias, oc) : kb.f32(0), kb.vec.lanes);
      llvm::Value *plane = mul(add(mul(image, s.OC), oc), s.OH * s.OW);
      int64_t tiles = rows * l.tilesW;
      if (lanes > 1 && llvm::divideCeil(tiles, lanes) <
                           uint64_t(rows) * llvm::divideCeil(l.tilesW, lanes)) {
        // Fewer vectors when they run across tile rows: each cut per row.
        for (int64_t q0 = 0; q0 < tiles; q0 += lanes) {
          int64_t count = std::min(lanes, tiles - q0);
          llvm::SmallVector<Segment, 4> segments;
          for (int64_t q = q0; q < q0 + count;) {
            int64_t r = q / l.tilesW, t = q % l.tilesW;
            int64_t n = std::min(q0 + count - q, l.tilesW - t);
            segments.push_back({kb.idx(r), kb.idx(t), q - q0, n, std::min(n * m, s.OW - t * m)});
            q += n;
          }
          outputVector(plane, th0, oc, init, kb.idx(q0), count, segments);
        }
        return;
      }
      // Per tile row: whole runs of `lanes` tiles (mw * lanes output
      // columns), then the columns left, a partial tile included.
      kb.loop(rows, [&](llvm::Value *r) {
        llvm::Value *rowTile = mul(r, l.tilesW);
        int64_t run = m * lanes;
        int64_t fullRuns = s.OW / run, rest = s.OW % run;
        auto columns = [&](llvm::Value *t0, int64_t cols) {
          int64_t tiles = (cols + m - 1) / m;
          Segment sg{r, t0, 0, tiles, cols};
          outputVector(plane, th0, oc, init, add(rowTile, t0), tiles, sg);
        };
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
  if (!args.temp)
    return nodeError(n, "Winograd convolution without its transform buffer");
  ConvShape s = ConvShape::of(n);
  lir::WinogradLayout l = lir::winogradLayout(n, args.strategy.winograd);
  const unsigned lanes = kb.vec.lanes;

  // The product tile: output channels x vectors of a block's tiles.
  const lir::RegisterTile &tile = args.strategy.registerTile;
  if (!tile.rows)
    return nodeError(n, "a Winograd convolution without a register tile");
  TileShape plan = tileFor(tile.rows, int64_t(tile.vecs) * lanes, lanes);
  llvm::Function *fn = kb.b.GetInsertBlock()->getParent();
  fn->setName(fn->getName() + ".wino" + std::to_string(l.tile.mh) + "x" +
              std::to_string(l.tile.mw) + "." + plan.str());

  ConvEpilogue epilogue = ConvEpilogue::of(args);
  llvm::Value *bias = n.getNumInputs() > 2 ? args.inputs[2] : nullptr;
  // Weights read at run time: U at the temp's start, the layout after it.
  llvm::Value *u = args.inputs[1], *temp = args.temp;
  if (uint64_t uBytes = lir::runTimeWinogradWeightsBytes(n, args.strategy)) {
    u = temp;
    temp = kb.gep(kb.b.getFloatTy(), temp, kb.idx(uBytes / sizeof(float)));
  }
  WinogradEmitter e{kb,
                    s,
                    l,
                    args.inputs[0],
                    u,
                    bias,
                    args.outputs[0],
                    temp,
                    epilogue,
                    plan,
                    lir::toomCook(l.tile.mh, l.tile.rh),
                    lir::toomCook(l.tile.mw, l.tile.rw)};
  if (args.strategy.transformsWeights)
    e.transformWeights(args.inputs[1]);
  forEachIndex(kb, s.N, [&](llvm::Value *image) {
    forTiles(kb, l.tilesH, l.blockRows, [&](llvm::Value *th0, int64_t rows) {
      e.transformInput(image, th0, rows);
      e.multiply(rows * l.tilesW);
      e.transformOutput(image, th0, rows);
    });
  });
  return llvm::Error::success();
}

} // namespace codegen
} // namespace kiln
