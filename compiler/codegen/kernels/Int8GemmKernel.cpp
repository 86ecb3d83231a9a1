//===- Int8GemmKernel.cpp - int8 Conv and MatMul as blocked GEMMs ---------===//
//
// lir::KernelStrategy::Int8Gemm: an int8 Conv (not depthwise) or MatMul as a
// GEMM of weight rows by columns of int16 inputs with the input offset added.
// A Conv's columns are its im2col, `tileCols` pixels at a time in the
// instruction's temp; a MatMul's are its input rows. A block of `tile` rows x
// `tileCols` columns keeps its int32 sums in registers while it walks the
// taps, each weight shared by the block's columns. The weights are read
// packed, or as they are where other readers share them. `dot` chooses the
// multiply-adds:
// - the Arm DSP (Packing::Int8RowsPaired): SXTB16 widens a quad of weights
//   read as one word into two pairs, and SMLAD adds two products an
//   instruction, as CMSIS-NN's kernels do; the columns' taps are stored in
//   pairs and a block's two rows interleaved, so that one LDRD reads a pair
//   of taps of two columns, or a quad of two rows;
// - AArch64 SDOT (Packing::Int8Rows): a Conv's pixels on the lanes, each
//   lane adding a quad of the pixel's raw int8 taps times the row's quad,
//   broadcast, per instruction. The temp holds the block's taps as quads,
//   [quad][column][4], so that one 16-byte load is a quad of four pixels;
//   the input offset's share, offset x the row's sum, is in the bias, and a
//   tap in the padding is the zero point, whose product it cancels;
// - x86 VPDPBUSD (Packing::Int8RowsQuadChannels): as SDOT, over quads of
//   inputs + 128 (its unsigned operand), 8 pixels a ymm (Int8Dot::Vnni) or
//   16 a zmm (Vnni512), the quads interleaved from runs of the input or of
//   its planes;
// - AArch64 SMMLA (Packing::Int8RowsOctetPairs): blocks of 8 rows x 8
//   pixels as 4 x 4 SMMLAs, each multiplying a pair of rows' octets of taps
//   by a pair of pixels' octets of raw int8 taps into 2 x 2 sums; the temp
//   holds octets, [octet][column][8], interleaved from 8 runs of the input
//   or of its raw planes (Int8RowsOctetChannelPairs) where it can, else
//   gathered pixel by pixel; the offset's share is in the bias as for SDOT;
// - x86 AVX2 (Packing::Int8RowsWidened): a Conv's pixels on the vector lanes
//   and a pair of int16 weights broadcast to them, VPMADDWD adding two
//   products a lane an instruction. The columns are runs of the input (a
//   unit-stride 1x1 Conv) or of the group's zero-bordered int16 planes
//   (lir::Int8Columns), else the im2col;
// - a plain loop of products.
// The sums and the requantization are the interpreter's (ops/Int8Conv.cpp),
// so the results are bit-exact with it.
//
//===----------------------------------------------------------------------===//
#include "compiler/codegen/Kernels.h"
#include "compiler/codegen/kernels/Int8Binary.h"
#include "compiler/codegen/kernels/Int8Params.h"
#include "compiler/codegen/kernels/IntegerIR.h"
#include "compiler/lir/SelectKernels.h"
#include "compiler/ops/Int8Eval.h"
#include "compiler/ops/OpGeometry.h"
#include "compiler/ops/OpViews.h"

#include "llvm/IR/IntrinsicsAArch64.h"
#include "llvm/IR/IntrinsicsARM.h"
#include "llvm/IR/IntrinsicsX86.h"
#include "llvm/Support/MathExtras.h"

#include <array>

namespace kiln {
namespace codegen {
namespace {

using Values = llvm::SmallVector<llvm::Value *, 32>;

/// The parts every Int8Gemm instruction shares.
struct Int8Gemm {
  KernelBuilder &kb;
  IntegerIR ir;
  const lir::KernelStrategy &strategy;
  lir::Int8RowsShape rows;
  bool transposed; ///< a MatMul's [K][N] weights
  llvm::Value *weights, *columns;
  llvm::Value *biasTable;
  Requantizer requant;
  int32_t inOffset;
  tfl::ActivationRange range;
  /// A fused residual Add (lir::Instr::fused): its arithmetic, the
  /// residual, and which of the Add's operands the Conv's result is.
  std::optional<Int8Binary> residualAdd = std::nullopt;
  llvm::Value *residual = nullptr;
  unsigned convOperand = 0;

  /// Taps per column in the temp.
  int64_t rowStride() const { return rows.paddedTaps; }
  /// The columns are pixels on vector lanes (Int8Dot::Pmaddwd, Sdot, Vnni,
  /// Vnni512).
  bool pixelLanes() const { return lanes() > 1; }
  /// Pixels per vector of sums.
  int64_t lanes() const { return lir::int8GemmPixelLanes(strategy.dot); }
  bool pmaddwd() const { return strategy.dot == lir::Int8Dot::Pmaddwd; }
  /// The temp holds raw int8 taps in groups (Int8Dot::Sdot, Vnni: quads;
  /// Smmla: octets).
  bool rawColumns() const { return lir::int8GemmRawColumns(strategy.dot); }
  /// Taps per group of the temp's raw columns.
  int64_t tapGroup() const { return lir::int8GemmTapGroup(strategy.dot); }
  /// 2 x 2 blocks of sums by SMMLA (Int8Dot::Smmla).
  bool smmla() const { return strategy.dot == lir::Int8Dot::Smmla; }
  /// The quads hold x + 128, VPDPBUSD's unsigned operand (Int8Dot::Vnni,
  /// Vnni512).
  bool vnni() const { return lir::isVnni(strategy.dot); }
  /// Int8 input `x8` (a scalar or a vector) as the quads hold it.
  llvm::Value *quadInput(llvm::Value *x8) {
    return vnni() ? kb.b.CreateXor(x8, llvm::ConstantInt::get(x8->getType(), 0x80)) : x8;
  }

  /// The columns' pairs of taps are multiplied by SMLAD (Int8Dot::ArmDsp).
  bool armDsp() const { return strategy.dot == lir::Int8Dot::ArmDsp; }

  /// Whether the temp holds the columns' taps in pairs, [tap pair][column][2]:
  /// a pair of taps of consecutive columns is then one vector (pixels on
  /// lanes) or one word, two columns' words one LDRD (the Arm DSP).
  bool pairedColumns() const { return pmaddwd() || armDsp(); }

  /// Where column c's tap t is in the temp: the column's taps in order,
  /// paired (pairedColumns), or in groups, [group][column][tapGroup()].
  llvm::Value *columnIndex(int64_t c, llvm::Value *t) {
    auto &b = kb.b;
    if (rawColumns()) {
      const int64_t G = tapGroup();
      // One call a statement: the IR's order must not follow the C++
      // compiler's order of evaluating arguments.
      llvm::Value *inGroup = b.CreateAdd(kb.idx(G * c), b.CreateAnd(t, kb.idx(G - 1)));
      llvm::Value *group = b.CreateLShr(t, kb.idx(llvm::Log2_64(G)));
      return b.CreateAdd(b.CreateMul(group, kb.idx(G * strategy.tileCols)), inGroup);
    }
    if (!pairedColumns())
      return b.CreateAdd(kb.idx(c * rowStride()), t);
    llvm::Value *pair = b.CreateLShr(t, kb.idx(1));
    return b.CreateAdd(b.CreateMul(pair, kb.idx(2 * strategy.tileCols)),
                       b.CreateAdd(kb.idx(2 * c), b.CreateAnd(t, kb.idx(1))));
  }

  /// Weight (row, tap): packed rows, a Conv's [O][taps] or a MatMul's [K][N].
  llvm::Value *weightIndex(llvm::Value *row, llvm::Value *t) {
    auto &b = kb.b;
    if (strategy.packedWeights)
      return b.CreateAdd(b.CreateMul(row, kb.idx(rowStride())), t);
    if (transposed)
      return b.CreateAdd(b.CreateMul(t, kb.idx(rows.rows)), row);
    return b.CreateAdd(b.CreateMul(row, kb.idx(rows.taps)), t);
  }

  /// Column c's tap t in the temp: x + the input offset, as int16, or x
  /// itself in quads (x + 128 for Vnni).
  void storeTap(llvm::Value *x8, int64_t c, llvm::Value *t) {
    auto &b = kb.b;
    if (rawColumns()) {
      kb.store(quadInput(x8), columns, columnIndex(c, t));
      return;
    }
    llvm::Value *v = b.CreateAdd(ir.widen(x8), ir.i32(inOffset));
    kb.store(b.CreateTrunc(v, b.getInt16Ty()), columns, columnIndex(c, t));
  }

  /// The int32 sums of weight rows `rowIdx` by the temp's columns, from the
  /// rows' biases; result [r * tileCols + c], or for pixels on lanes
  /// [r * vectors + v], each a vector of lanes() columns. `rowPair`:
  /// the rows are 2i and 2i + 1 of Int8RowsPaired, their quads one LDRD.
  Values blockSums(llvm::ArrayRef<llvm::Value *> rowIdx, bool rowPair) {
    auto &b = kb.b;
    if (pmaddwd())
      return pmaddwdSums(rowIdx);
    if (smmla())
      return octetPairSums(rowIdx);
    if (rawColumns())
      return quadSums(rowIdx);
    const int64_t R = strategy.tile, C = strategy.tileCols;
    llvm::Type *i32 = b.getInt32Ty();
    Values init;
    for (int64_t r = 0; r < R; ++r)
      for (int64_t c = 0; c < C; ++c)
        init.push_back(kb.load(i32, biasTable, rowIdx[r]));
    if (strategy.dot == lir::Int8Dot::ArmDsp)
      return smladSums(rowIdx, init, rowPair);
    return scalarSums(rowIdx, init);
  }

  /// A quad of taps a step: SXTB16 widens a weight word into the pairs
  /// (t0, t1) and (t2, t3) (the Paired packing's order), and each SMLAD adds
  /// two products to a sum.
  Values smladSums(llvm::ArrayRef<llvm::Value *> rowIdx, llvm::ArrayRef<llvm::Value *> init,
                   bool rowPair) {
    auto &b = kb.b;
    const int64_t C = strategy.tileCols;
    llvm::Type *i32 = b.getInt32Ty();
    const int64_t wordsPerRow = rowStride() / lir::kInt8Quad;
    Values sums = kb.loopCarried(wordsPerRow, init, [&](llvm::Value *q, llvm::ArrayRef<llvm::Value *> acc) {
      Values next(acc.begin(), acc.end());
      llvm::SmallVector<llvm::Value *, 4> words;
      if (rowPair)
        llvm::append_range(
            words, loadWordPair(weights, kb.linear({rowIdx[0], q}, {wordsPerRow, 2})));
      else
        for (llvm::Value *row : rowIdx)
          words.push_back(kb.load(i32, weights, weightWord(row, q, wordsPerRow)));
      // Pair (t0, t1) of every row and column, then pair (t2, t3): a row's
      // widened pair is live across the columns only, which keeps a 2 x 2
      // block's sums in registers.
      for (int half = 0; half < 2; ++half) {
        Values x;
        for (int64_t c = 0; c < C; c += 2) {
          llvm::Value *word = kb.linear({q}, {2 * C}, kb.idx(half * C + c));
          if (c + 1 < C)
            llvm::append_range(x, loadWordPair(columns, word));
          else
            x.push_back(kb.load(i32, columns, word));
        }
        for (size_t r = 0; r < rowIdx.size(); ++r) {
          llvm::Value *w = half ? b.CreateIntrinsic(llvm::Intrinsic::fshr, {i32},
                                                    {words[r], words[r], ir.i32(8)})
                                : words[r];
          llvm::Value *pair = b.CreateIntrinsic(llvm::Intrinsic::arm_sxtb16, {}, {w});
          for (int64_t c = 0; c < C; ++c) {
            llvm::Value *&s = next[r * C + c];
            s = b.CreateIntrinsic(llvm::Intrinsic::arm_smlad, {}, {pair, x[c], s});
          }
        }
      }
      return next;
    });
    kb.unrollLoop(strategy.unroll);
    return sums;
  }

  /// Words `word` and `word` + 1 of `base`, read as one LDRD: the ARM back
  /// end makes an LDRD of an i64 load only when it is volatile
  /// (ARMTargetLowering::LowerLOAD); split into two loads, they pair only
  /// where its register-pressure estimate allows, which differs by core.
  std::array<llvm::Value *, 2> loadWordPair(llvm::Value *base, llvm::Value *word) {
    auto &b = kb.b;
    llvm::Type *i64 = b.getInt64Ty();
    llvm::LoadInst *pair = b.CreateAlignedLoad(
        i64, kb.gep(b.getInt32Ty(), base, word), llvm::Align(4), /*isVolatile=*/true);
    return {b.CreateTrunc(pair, b.getInt32Ty()),
            b.CreateTrunc(b.CreateLShr(pair, 32), b.getInt32Ty())};
  }

  /// The word of quad `q` of weight row `row` (packed for the Arm DSP).
  llvm::Value *weightWord(llvm::Value *row, llvm::Value *q, int64_t wordsPerRow) {
    auto &b = kb.b;
    if (!rows.rowPairs)
      return kb.linear({row, q}, {wordsPerRow, 1});
    llvm::Value *pair = b.CreateLShr(row, kb.idx(1));
    return b.CreateAdd(kb.linear({pair, q}, {2 * wordsPerRow, 2}), b.CreateAnd(row, kb.idx(1)));
  }

  /// A pair of taps a step: a vector of the pixels' int16 pairs, and each
  /// row's pair of int16 weights (Packing::Int8RowsWidened) broadcast as one
  /// word; VPMADDWD multiplies and adds the pairs lane by lane.
  Values pmaddwdSums(llvm::ArrayRef<llvm::Value *> rowIdx) {
    auto &b = kb.b;
    const int64_t lanes = lir::kInt8PixelLanes, V = strategy.tileCols / lanes;
    const int64_t pairsPerRow = rowStride() / 2;
    llvm::Type *i32 = b.getInt32Ty();
    auto *pairsTy = llvm::FixedVectorType::get(b.getInt16Ty(), 2 * lanes);
    Values init;
    for (llvm::Value *row : rowIdx) {
      llvm::Value *bias = b.CreateVectorSplat(lanes, kb.load(i32, biasTable, row));
      init.append(V, bias);
    }
    return kb.loopCarried(pairsPerRow, init, [&](llvm::Value *q, llvm::ArrayRef<llvm::Value *> acc) {
      Values next(acc.begin(), acc.end());
      Values x;
      for (int64_t v = 0; v < V; ++v)
        x.push_back(b.CreateAlignedLoad(
            pairsTy, kb.gep(b.getInt16Ty(), columns, columnIndex(v * lanes, b.CreateShl(q, kb.idx(1)))),
            llvm::Align(2)));
      for (size_t r = 0; r < rowIdx.size(); ++r) {
        llvm::Value *word =
            kb.load(i32, weights, b.CreateAdd(b.CreateMul(rowIdx[r], kb.idx(pairsPerRow)), q));
        llvm::Value *w = b.CreateBitCast(b.CreateVectorSplat(lanes, word), pairsTy);
        for (int64_t v = 0; v < V; ++v) {
          llvm::Value *&s = next[r * V + v];
          s = b.CreateAdd(s, b.CreateIntrinsic(llvm::Intrinsic::x86_avx2_pmadd_wd, {}, {x[v], w}));
        }
      }
      return next;
    });
  }

  /// A quad of taps a step: a vector of lanes() pixels' quads of int8
  /// taps, and each row's quad (Packing::Int8Rows) broadcast as one word;
  /// SDOT or VPDPBUSD (on ymm, or zmm for Vnni512's 16 lanes) adds the four
  /// products of each lane's quads to its sum.
  Values quadSums(llvm::ArrayRef<llvm::Value *> rowIdx) {
    auto &b = kb.b;
    const int64_t L = lanes(), V = strategy.tileCols / L;
    const int64_t quadsPerRow = rowStride() / lir::kInt8Quad;
    llvm::Type *i32 = b.getInt32Ty();
    auto *sumsTy = llvm::FixedVectorType::get(i32, L);
    auto *quadsTy = llvm::FixedVectorType::get(b.getInt8Ty(), L * lir::kInt8Quad);
    const llvm::Intrinsic::ID vpdpbusd = strategy.dot == lir::Int8Dot::Vnni512
                                             ? llvm::Intrinsic::x86_avx512_vpdpbusd_512
                                             : llvm::Intrinsic::x86_avx512_vpdpbusd_256;
    Values init;
    for (llvm::Value *row : rowIdx)
      init.append(V, b.CreateVectorSplat(L, kb.load(i32, biasTable, row)));
    return kb.loopCarried(quadsPerRow, init, [&](llvm::Value *q, llvm::ArrayRef<llvm::Value *> acc) {
      Values next(acc.begin(), acc.end());
      Values x;
      for (int64_t v = 0; v < V; ++v)
        x.push_back(b.CreateAlignedLoad(
            quadsTy, kb.gep(b.getInt8Ty(), columns, columnIndex(v * L, b.CreateShl(q, kb.idx(2)))),
            llvm::Align(4)));
      for (size_t r = 0; r < rowIdx.size(); ++r) {
        llvm::Value *word = kb.load(i32, weights, kb.linear({rowIdx[r], q}, {quadsPerRow, 1}));
        llvm::Value *w = b.CreateBitCast(b.CreateVectorSplat(L, word), quadsTy);
        for (int64_t v = 0; v < V; ++v) {
          llvm::Value *&s = next[r * V + v];
          s = vnni() ? b.CreateIntrinsic(vpdpbusd, {},
                                         {s, b.CreateBitCast(x[v], sumsTy), b.CreateBitCast(w, sumsTy)})
                     : b.CreateIntrinsic(llvm::Intrinsic::aarch64_neon_sdot, {sumsTy, quadsTy},
                                         {s, x[v], w});
        }
      }
      return next;
    });
  }

  /// An octet of taps a step: SMMLA multiplies a pair of rows' octets
  /// (Packing::Int8RowsOctetPairs, one 16-byte load) by a pair of pixels'
  /// (the temp's [octet][column][8]) into a 2 x 2 block of sums, lanes (row
  /// 0, pixel 0), (0, 1), (1, 0), (1, 1). `rowIdx` holds each packed
  /// pair's two rows in turn (smmlaRows). Returned as quadSums returns its
  /// sums: [r * V + v], a vector of 4 pixels of row r, its bias added.
  Values octetPairSums(llvm::ArrayRef<llvm::Value *> rowIdx) {
    auto &b = kb.b;
    const int64_t RP = strategy.tile / 2, CP = strategy.tileCols / 2;
    const int64_t octets = rowStride() / lir::kInt8Octet;
    llvm::Type *i8 = b.getInt8Ty(), *i32 = b.getInt32Ty();
    auto *sumsTy = llvm::FixedVectorType::get(i32, 4);
    auto *octetsTy = llvm::FixedVectorType::get(i8, 2 * lir::kInt8Octet);
    Values init(RP * CP, llvm::Constant::getNullValue(sumsTy));
    Values blocks = kb.loopCarried(octets, init, [&](llvm::Value *k, llvm::ArrayRef<llvm::Value *> acc) {
      Values next(acc.begin(), acc.end());
      Values x, w;
      for (int64_t j = 0; j < CP; ++j) {
        llvm::Value *at =
            kb.linear({k}, {lir::kInt8Octet * strategy.tileCols}, kb.idx(2 * lir::kInt8Octet * j));
        x.push_back(b.CreateAlignedLoad(octetsTy, kb.gep(i8, columns, at), llvm::Align(1)));
      }
      for (int64_t i = 0; i < RP; ++i) {
        llvm::Value *pair = b.CreateLShr(rowIdx[2 * i], kb.idx(1));
        llvm::Value *at = kb.linear({pair, k}, {2 * rowStride(), 2 * lir::kInt8Octet});
        w.push_back(b.CreateAlignedLoad(octetsTy, kb.gep(i8, weights, at), llvm::Align(1)));
      }
      for (int64_t i = 0; i < RP; ++i)
        for (int64_t j = 0; j < CP; ++j) {
          llvm::Value *&s = next[i * CP + j];
          s = b.CreateIntrinsic(llvm::Intrinsic::aarch64_neon_smmla, {sumsTy, octetsTy},
                                {s, w[i], x[j]});
        }
      return next;
    });
    // Two blocks of neighbouring pixel pairs make a vector of 4 pixels of
    // each of their rows.
    const int64_t V = CP / 2;
    Values sums(strategy.tile * V);
    for (int64_t i = 0; i < RP; ++i)
      for (int64_t v = 0; v < V; ++v)
        for (int64_t half = 0; half < 2; ++half) {
          const int lane = int(2 * half);
          const int mask[] = {lane, lane + 1, lane + 4, lane + 5};
          llvm::Value *row =
              b.CreateShuffleVector(blocks[i * CP + 2 * v], blocks[i * CP + 2 * v + 1], mask);
          llvm::Value *bias = b.CreateVectorSplat(4, kb.load(i32, biasTable, rowIdx[2 * i + half]));
          sums[(2 * i + half) * V + v] = b.CreateAdd(row, bias);
        }
    return sums;
  }

  /// The rows of an Int8Dot::Smmla block `ob` of a group's `groupRows` rows
  /// from `first`: whole pairs of packed rows, pair min(4 ob + i, last
  /// pair) as rows 2i and 2i + 1 of the block. The second row of an odd
  /// count's last pair is its first again, as the packing repeats it.
  llvm::SmallVector<llvm::Value *, 8> smmlaRows(llvm::Value *first, llvm::Value *ob,
                                                int64_t groupRows) {
    auto &b = kb.b;
    llvm::SmallVector<llvm::Value *, 8> rowIdx;
    for (int64_t i = 0; i < strategy.tile / 2; ++i) {
      llvm::Value *pair = clampedIndex(ob, strategy.tile / 2, i, (groupRows + 1) / 2);
      llvm::Value *even = b.CreateShl(pair, kb.idx(1));
      llvm::Value *odd = b.CreateAdd(even, kb.idx(1));
      llvm::Value *last = kb.idx(groupRows - 1);
      odd = b.CreateSelect(b.CreateICmpULT(odd, last), odd, last);
      rowIdx.push_back(b.CreateAdd(first, even));
      rowIdx.push_back(b.CreateAdd(first, odd));
    }
    return rowIdx;
  }

  /// A tap a step, each sum a reduction of int8 x int16 products over the
  /// row's taps (not its padding): LLVM vectorizes it with the target's
  /// widening multiply-adds (x86 VPMADDWD, AArch64 SMLAL).
  Values scalarSums(llvm::ArrayRef<llvm::Value *> rowIdx, llvm::ArrayRef<llvm::Value *> init) {
    auto &b = kb.b;
    const int64_t C = strategy.tileCols;
    llvm::Type *i8 = b.getInt8Ty(), *i16 = b.getInt16Ty();
    return kb.loopCarried(rows.taps, init, [&](llvm::Value *t, llvm::ArrayRef<llvm::Value *> acc) {
      Values next(acc.begin(), acc.end());
      llvm::SmallVector<llvm::Value *, 2> x;
      for (int64_t c = 0; c < C; ++c)
        x.push_back(b.CreateSExt(kb.load(i16, columns, b.CreateAdd(kb.idx(c * rowStride()), t)),
                                 b.getInt32Ty()));
      for (size_t r = 0; r < rowIdx.size(); ++r) {
        llvm::Value *w = ir.widen(kb.load(i8, weights, weightIndex(rowIdx[r], t)));
        for (int64_t c = 0; c < C; ++c)
          next[r * C + c] = b.CreateAdd(next[r * C + c], b.CreateMul(w, x[c]));
      }
      return next;
    });
  }

  /// Requantizes the sum (or vector of sums) of weight row `row`, adds the
  /// residual at the same place through a fused Add, and stores the result
  /// at y[yIndex] on.
  void storeOutput(llvm::Value *sum, llvm::Value *row, llvm::Value *y, llvm::Value *yIndex) {
    auto &b = kb.b;
    llvm::Value *q = ir.clampToI8(requant.apply(sum, row), range.min, range.max);
    if (residualAdd) {
      llvm::Value *r = q->getType()->isVectorTy()
                           ? b.CreateAlignedLoad(q->getType(),
                                                 kb.gep(b.getInt8Ty(), residual, yIndex),
                                                 llvm::Align(1))
                           : kb.load(b.getInt8Ty(), residual, yIndex);
      llvm::Value *own = b.CreateSExt(q, ir.widened(q, 32));
      llvm::Value *other = b.CreateSExt(r, ir.widened(q, 32));
      q = convOperand == 0 ? residualAdd->apply(own, other) : residualAdd->apply(other, own);
    }
    if (q->getType()->isVectorTy())
      b.CreateAlignedStore(q, kb.gep(b.getInt8Ty(), y, yIndex), llvm::Align(1));
    else
      kb.store(q, y, yIndex);
  }

  /// Block index `block` of `size` along an extent of `extent`: min(block *
  /// size + i, extent - 1). A partial block repeats its last element, whose
  /// stores then write the same value again.
  llvm::Value *clampedIndex(llvm::Value *block, int64_t size, int64_t i, int64_t extent) {
    auto &b = kb.b;
    llvm::Value *v = b.CreateAdd(b.CreateMul(block, kb.idx(size)), kb.idx(i));
    llvm::Value *last = kb.idx(extent - 1);
    return b.CreateSelect(b.CreateICmpULT(v, last), v, last);
  }
};

llvm::Expected<Int8Gemm> makeGemm(KernelBuilder &kb, const KernelArgs &args,
                                  int64_t channels, bool fullyConnected) {
  const Node &n = args.node;
  const TensorType &xt = n.getInput(0)->getType(), &wt = n.getInput(1)->getType(),
                   &yt = n.getOutput()->getType();
  auto range = weightedInt8Range(n);
  if (!range)
    return range.takeError();
  if (!args.temp)
    return nodeError(n, "the int8 GEMM kernel needs its columns buffer");
  IntegerIR ir(kb);
  lir::Int8RowsShape rows =
      lir::int8RowsShape(wt.shape, lir::int8GemmPacking(n, args.strategy));
  Int8Channels params = int8Channels(n, channels, fullyConnected, *range);
  const int32_t inOffset = -xt.quant.zeroPoints[0];
  if (lir::int8GemmRawColumns(args.strategy.dot)) {
    // The kernel sums raw inputs (+128 for Vnni): (offset - 128) x the
    // row's weights joins the bias, in int32's wrapping arithmetic, which
    // gives the same total.
    const int64_t offset = lir::isVnni(args.strategy.dot) ? inOffset - 128 : inOffset;
    const int8_t *w = n.getInput(1)->getConstant().data<int8_t>();
    const int64_t taps = wt.numElements() / channels;
    for (int64_t c = 0; c < channels; ++c) {
      int64_t rowSum = 0;
      for (int64_t t = 0; t < taps; ++t)
        rowSum += w[c * taps + t];
      params.bias[c] = int32_t(uint32_t(params.bias[c]) + uint32_t(offset * rowSum));
    }
  }
  Requantizer requant(ir, params.multipliers, params.sumBounds, yt.quant.zeroPoints[0]);
  Int8Gemm g{kb,
             ir,
             args.strategy,
             rows,
             !n.is(OpKind::Conv),
             args.inputs[1],
             args.temp,
             ir.table(params.bias, "int8.bias"),
             requant,
             inOffset,
             *range};
  for (const Node *f : args.fused) {
    if (!f->is(OpKind::Add) || args.fused.size() != 1)
      return nodeError(n, "an int8 GEMM fuses one residual Add, not " + f->getOpName());
    auto add = Int8Binary::of(ir, *f);
    if (!add)
      return add.takeError();
    g.residualAdd.emplace(std::move(*add));
    g.residual = args.inputs[n.getNumInputs()];
    g.convOperand = f->getInput(0) == n.getOutput() ? 0 : 1;
  }
  return g;
}

llvm::Error emitConvInt8Gemm(KernelBuilder &kb, const KernelArgs &args) {
  const Node &n = args.node;
  auto &b = kb.b;
  const TensorType &xt = n.getInput(0)->getType(), &wt = n.getInput(1)->getType(),
                   &yt = n.getOutput()->getType();
  if (xt.rank() != 4)
    return nodeError(n, "int8 Conv is 2-D (N x C x H x W), got " + xt.str());
  auto geom = resolveConvGeometry(n, llvm::ArrayRef(xt.shape).drop_front(2),
                                  llvm::ArrayRef(wt.shape).drop_front(2));
  if (!geom)
    return geom.takeError();
  auto gemm = makeGemm(kb, args, wt.shape[0], false);
  if (!gemm)
    return gemm.takeError();
  Int8Gemm &g = *gemm;
  const int64_t N = xt.shape[0], C = xt.shape[1], H = xt.shape[2], W = xt.shape[3];
  const int64_t O = wt.shape[0], CG = wt.shape[1], KH = wt.shape[2], KW = wt.shape[3];
  const int64_t OW = yt.shape[3], P = yt.shape[2] * OW;
  const int64_t groups = ConvView(n).group(), OG = O / groups;
  const int64_t CGp = lir::int8WidenedChannels(CG), CGq = lir::int8QuadChannels(CG);
  const int64_t R = args.strategy.tile, CB = args.strategy.tileCols;
  const int64_t sh = geom->strides[0], sw = geom->strides[1];
  const int64_t dh = geom->dilations[0], dw = geom->dilations[1];
  const int64_t ph = geom->padsBegin[0], pw = geom->padsBegin[1];
  bool unpadded = true;
  for (size_t i = 0; i < 2; ++i)
    unpadded &= geom->padsBegin[i] == 0 && geom->padsEnd[i] == 0;
  llvm::Type *i8 = b.getInt8Ty();
  llvm::Value *x = args.inputs[0], *y = args.outputs[0];

  // Pixel p's window into column c: taps in (channel, row, column) order,
  // those in the padding 0 (the zero point plus the offset).
  auto im2col = [&](llvm::Value *bn, llvm::Value *c0, llvm::Value *p, int64_t c) {
    llvm::Value *ih0 = b.CreateSub(b.CreateMul(b.CreateUDiv(p, kb.idx(OW)), kb.idx(sh)), kb.idx(ph));
    llvm::Value *iw0 = b.CreateSub(b.CreateMul(b.CreateURem(p, kb.idx(OW)), kb.idx(sw)), kb.idx(pw));
    auto fill = [&](bool guarded) {
      kb.nest({CG, KH, KW}, [&](llvm::ArrayRef<llvm::Value *> t) {
        llvm::Value *ih = b.CreateAdd(ih0, b.CreateMul(t[1], kb.idx(dh)));
        llvm::Value *iw = b.CreateAdd(iw0, b.CreateMul(t[2], kb.idx(dw)));
        // The taps in the weights' order: VPMADDWD's pair channels,
        // VPDPBUSD's quads.
        llvm::Value *tap = g.pmaddwd() ? kb.linear({t[1], t[2], t[0]}, {KW * CGp, CGp, 1})
                           : g.vnni()  ? kb.linear({t[1], t[2], t[0]}, {KW * CGq, CGq, 1})
                                       : kb.linear(t, {KH * KW, KW, 1});
        llvm::Value *inside = nullptr;
        if (guarded) {
          inside = b.CreateAnd(
              b.CreateAnd(b.CreateICmpSGE(ih, kb.idx(0)), b.CreateICmpSLT(ih, kb.idx(H))),
              b.CreateAnd(b.CreateICmpSGE(iw, kb.idx(0)), b.CreateICmpSLT(iw, kb.idx(W))));
          // A tap in the padding reads a clamped, in-bounds address.
          ih = b.CreateSelect(inside, ih, kb.idx(0));
          iw = b.CreateSelect(inside, iw, kb.idx(0));
        }
        llvm::Value *xv = kb.load(
            i8, x, kb.linear({bn, b.CreateAdd(c0, t[0]), ih, iw}, {C * H * W, H * W, W, 1}));
        if (guarded)
          xv = b.CreateSelect(inside, xv, b.getInt8(int8_t(xt.quant.zeroPoints[0])));
        g.storeTap(xv, c, tap);
      });
    };
    if (unpadded) {
      fill(false);
      return;
    }
    llvm::Value *windowInside = b.CreateAnd(
        b.CreateAnd(b.CreateICmpSGE(ih0, kb.idx(0)),
                    b.CreateICmpSLT(b.CreateAdd(ih0, kb.idx((KH - 1) * dh)), kb.idx(H))),
        b.CreateAnd(b.CreateICmpSGE(iw0, kb.idx(0)),
                    b.CreateICmpSLT(b.CreateAdd(iw0, kb.idx((KW - 1) * dw)), kb.idx(W))));
    kb.ifElse(windowInside, [&] { fill(false); }, [&] { fill(true); });
  };

  // Pixels on lanes read a block's taps as runs when the windows of
  // consecutive pixels are consecutive: the input itself for a unit-stride
  // 1x1 Conv without padding, else the group's padded planes
  // (lir::Int8Columns), after the columns in the temp.
  const bool pointwise = args.strategy.columns == lir::Int8Columns::InputRuns;
  const bool readsPlane = args.strategy.columns == lir::Int8Columns::PlaneRuns;
  llvm::Type *i16 = b.getInt16Ty();
  // The planes' elements: int16 inputs with the offset added, or raw int8
  // inputs (+ 128 for Vnni).
  llvm::Type *planeTy = g.rawColumns() ? i8 : i16;
  int64_t PR = 0, PC = 0;
  llvm::Value *planes = nullptr;
  if (readsPlane) {
    auto plane = lir::int8PaddedPlane(n);
    if (!plane)
      return plane.takeError();
    PR = plane->rows;
    PC = plane->cols;
    planes = kb.gep(planeTy, g.columns, kb.idx(CB * g.rowStride()));
  }
  // The group's channels from c0 into the planes; the borders are the zero
  // point's (0 with the offset added).
  auto fillPlanes = [&](llvm::Value *bn, llvm::Value *c0) {
    if (g.rawColumns()) {
      llvm::Value *border = g.quadInput(b.getInt8(uint8_t(xt.quant.zeroPoints[0])));
      kb.loop(CG * PR * PC, [&](llvm::Value *i) { kb.store(border, planes, i); });
      kb.nest({CG, H, W}, [&](llvm::ArrayRef<llvm::Value *> chw) {
        llvm::Value *v = kb.load(
            i8, x, kb.linear({bn, b.CreateAdd(c0, chw[0]), chw[1], chw[2]}, {C * H * W, H * W, W, 1}));
        kb.store(g.quadInput(v), planes,
                 kb.linear(chw, {PR * PC, PC, 1}, kb.idx(ph * PC + pw)));
      });
      return;
    }
    kb.loop(CG * PR * PC, [&](llvm::Value *i) { kb.store(b.getInt16(0), planes, i); });
    kb.loop(CG, [&](llvm::Value *c) {
      emitInt8PlaneInterior(g.ir, x, xt.shape, bn, b.CreateAdd(c0, c), g.inOffset,
                            kb.gep(i16, planes, b.CreateMul(c, kb.idx(PR * PC))), PC, ph, pw);
    });
  };
  // The block from pixel `first` into the temp, a pair of channels at each
  // kernel position at a time: two runs of CB inputs interleaved into the
  // pairs (an odd channel count's last pair reads its last channel twice;
  // the second's weight is 0).
  auto im2colRuns = [&](llvm::Value *bn, llvm::Value *c0, llvm::Value *first) {
    llvm::SmallVector<int, 32> interleave, strided;
    for (int64_t c = 0; c < CB; ++c) {
      interleave.append({int(c), int(CB + c)});
      strided.push_back(int(c * sw));
    }
    auto *runTy = llvm::FixedVectorType::get(i16, CB);
    // A strided run: every sw-th of sw x CB; the planes' spare int16 covers
    // the load past the last one.
    auto *spanTy = llvm::FixedVectorType::get(i16, CB * sw);
    // The block's corner in the planes (padded coordinates).
    llvm::Value *corner =
        readsPlane ? kb.linear({b.CreateUDiv(first, kb.idx(OW)), b.CreateURem(first, kb.idx(OW))},
                               {sh * PC, sw})
                   : nullptr;
    llvm::Value *offset = b.CreateVectorSplat(CB, b.getInt16(uint16_t(g.inOffset)));
    kb.nest({KH, KW, CGp / 2}, [&](llvm::ArrayRef<llvm::Value *> k) {
      llvm::Value *run[2];
      for (int j = 0; j < 2; ++j) {
        llvm::Value *ic = b.CreateAdd(b.CreateShl(k[2], kb.idx(1)), kb.idx(j));
        if (CG % 2)
          ic = b.CreateSelect(b.CreateICmpULT(ic, kb.idx(CG)), ic, kb.idx(CG - 1));
        if (readsPlane) {
          llvm::Value *at = b.CreateAdd(corner, kb.linear({ic, k[0], k[1]}, {PR * PC, dh * PC, 1}));
          run[j] = b.CreateAlignedLoad(spanTy, kb.gep(i16, planes, at), llvm::Align(2));
          if (sw > 1)
            run[j] = b.CreateShuffleVector(run[j], strided);
        } else {
          llvm::Value *at = kb.linear({bn, b.CreateAdd(c0, ic), first}, {C * H * W, H * W, 1});
          llvm::Value *bytes = b.CreateAlignedLoad(llvm::FixedVectorType::get(i8, CB),
                                                   kb.gep(i8, x, at), llvm::Align(1));
          run[j] = b.CreateAdd(b.CreateSExt(bytes, runTy), offset);
        }
      }
      llvm::Value *pair = kb.linear(k, {KW * CGp / 2, CGp / 2, 1});
      b.CreateAlignedStore(b.CreateShuffleVector(run[0], run[1], interleave),
                           kb.gep(i16, g.columns, g.columnIndex(0, b.CreateShl(pair, kb.idx(1)))),
                           llvm::Align(2));
    });
  };

  // G runs of CB inputs, a group of G channels (a quad, or Smmla's octet),
  // interleaved into the CB pixels' groups; stored as group `group` of the
  // block's columns.
  // A power of two of vectors of one type joined in pairs until `parts`
  // are left.
  auto joinVectors = [&](llvm::ArrayRef<llvm::Value *> vectors, size_t parts) {
    Values joined(vectors.begin(), vectors.end());
    while (joined.size() > parts) {
      const int64_t n = llvm::cast<llvm::FixedVectorType>(joined[0]->getType())->getNumElements();
      llvm::SmallVector<int, 64> concat;
      for (int64_t c = 0; c < 2 * n; ++c)
        concat.push_back(int(c));
      Values halves;
      for (size_t j = 0; j < joined.size(); j += 2)
        halves.push_back(b.CreateShuffleVector(joined[j], joined[j + 1], concat));
      joined = halves;
    }
    return joined;
  };
  auto interleaveGroups = [&](llvm::ArrayRef<llvm::Value *> run) {
    const int64_t G = run.size();
    // Runs joined in pairs until two halves are left, then one shuffle
    // picks each pixel's taps out of the halves.
    Values joined = joinVectors(run, 2);
    llvm::SmallVector<int, 64> groups;
    for (int64_t c = 0; c < CB; ++c)
      for (int64_t j = 0; j < G; ++j)
        groups.push_back(int(j * CB + c));
    return b.CreateShuffleVector(joined[0], joined[1], groups);
  };
  auto storeGroups = [&](llvm::Value *block, llvm::Value *group, int64_t G) {
    b.CreateAlignedStore(block, kb.gep(i8, g.columns, b.CreateMul(group, kb.idx(G * CB))),
                         llvm::Align(4));
  };

  // The block from pixel `first` out of the planes of raw int8 inputs
  // (Vnni, Vnni512, Smmla), a group of G channels (a quad, an octet) at
  // each kernel position at a time: G runs of CB inputs interleaved into the
  // pixels' groups (channels past the group's read its last again; their
  // weights are 0). A block of whole output rows (Vnni512's 16 or 32 pixels
  // of rows of 8) joins a run of each row.
  auto planeGroupRuns = [&](llvm::Value *first) {
    const int64_t G = g.tapGroup(), groupsPerPosition = llvm::divideCeil(CG, G);
    const int64_t rowsPerBlock = CB > OW ? CB / OW : 1, runPixels = CB / rowsPerBlock;
    llvm::SmallVector<int, 32> strided;
    for (int64_t c = 0; c < runPixels; ++c)
      strided.push_back(int(c * sw));
    auto *spanTy = llvm::FixedVectorType::get(i8, runPixels * sw);
    llvm::Value *corner = kb.linear(
        {b.CreateUDiv(first, kb.idx(OW)), b.CreateURem(first, kb.idx(OW))}, {sh * PC, sw});
    kb.nest({KH, KW, groupsPerPosition}, [&](llvm::ArrayRef<llvm::Value *> k) {
      Values run;
      for (int64_t j = 0; j < G; ++j) {
        llvm::Value *ic = b.CreateAdd(b.CreateShl(k[2], kb.idx(llvm::Log2_64(G))), kb.idx(j));
        if (CG % G)
          ic = b.CreateSelect(b.CreateICmpULT(ic, kb.idx(CG)), ic, kb.idx(CG - 1));
        llvm::Value *at = b.CreateAdd(corner, kb.linear({ic, k[0], k[1]}, {PR * PC, dh * PC, 1}));
        Values rowRuns;
        for (int64_t r = 0; r < rowsPerBlock; ++r) {
          llvm::Value *span = b.CreateAlignedLoad(
              spanTy, kb.gep(i8, planes, b.CreateAdd(at, kb.idx(r * sh * PC))), llvm::Align(1));
          rowRuns.push_back(sw > 1 ? b.CreateShuffleVector(span, strided) : span);
        }
        run.push_back(joinVectors(rowRuns, 1)[0]);
      }
      storeGroups(interleaveGroups(run), kb.linear(k, {KW * groupsPerPosition, groupsPerPosition, 1}),
                  G);
    });
  };

  // The tap groups of a unit-stride 1x1 Conv's block from pixel `first`:
  // G runs of CB inputs, a group of channels, interleaved into the pixels'
  // groups (the last group reads the last channel again where the channels
  // run out; its weights are 0), + 128 for Vnni.
  auto tapGroupRuns = [&](llvm::Value *bn, llvm::Value *c0, llvm::Value *first) {
    const int64_t G = g.tapGroup();
    auto *runTy = llvm::FixedVectorType::get(i8, CB);
    kb.loop(llvm::divideCeil(CG, G), [&](llvm::Value *k) {
      Values run;
      for (int64_t j = 0; j < G; ++j) {
        llvm::Value *ic = b.CreateAdd(b.CreateShl(k, kb.idx(llvm::Log2_64(G))), kb.idx(j));
        if (CG % G)
          ic = b.CreateSelect(b.CreateICmpULT(ic, kb.idx(CG)), ic, kb.idx(CG - 1));
        llvm::Value *at = kb.linear({bn, b.CreateAdd(c0, ic), first}, {C * H * W, H * W, 1});
        run.push_back(b.CreateAlignedLoad(runTy, kb.gep(i8, x, at), llvm::Align(1)));
      }
      storeGroups(g.quadInput(interleaveGroups(run)), k, G);
    });
  };

  kb.nest({N, groups}, [&](llvm::ArrayRef<llvm::Value *> ng) {
    llvm::Value *bn = ng[0], *group = ng[1];
    llvm::Value *c0 = b.CreateMul(group, kb.idx(CG));
    if (readsPlane)
      fillPlanes(bn, c0);
    kb.loop(llvm::divideCeil(P, CB), [&](llvm::Value *pb) {
      llvm::SmallVector<llvm::Value *, 16> pixels;
      // Pixels on lanes: whole vectors, the last block overlapping the one
      // before (it writes the same values again). Otherwise a partial block
      // repeats its last pixel.
      llvm::Value *first = g.pixelLanes() ? g.clampedIndex(pb, CB, 0, P - CB + 1) : nullptr;
      for (int64_t c = 0; c < CB; ++c)
        pixels.push_back(first ? b.CreateAdd(first, kb.idx(c)) : g.clampedIndex(pb, CB, c, P));
      if (pointwise && g.rawColumns())
        tapGroupRuns(bn, c0, first);
      else if (readsPlane && g.rawColumns())
        planeGroupRuns(first);
      else if (readsPlane || pointwise)
        im2colRuns(bn, c0, first);
      else
        for (int64_t c = 0; c < CB; ++c)
          im2col(bn, c0, pixels[c], c);
      kb.loop(llvm::divideCeil(OG, R), [&](llvm::Value *ob) {
        llvm::SmallVector<llvm::Value *, 8> rows;
        if (g.smmla())
          rows = g.smmlaRows(b.CreateMul(group, kb.idx(OG)), ob, OG);
        else
          for (int64_t r = 0; r < R; ++r)
            rows.push_back(b.CreateAdd(b.CreateMul(group, kb.idx(OG)), g.clampedIndex(ob, R, r, OG)));
        // Blocks of two rows of an even count are pairs of Int8RowsPaired.
        Values sums = g.blockSums(rows, R == 2 && OG % 2 == 0 && g.rows.rowPairs);
        // A vector of sums covers lanes() consecutive pixels.
        const int64_t step = g.lanes();
        for (int64_t r = 0; r < R; ++r)
          for (int64_t c = 0; c < CB; c += step)
            g.storeOutput(sums[r * (CB / step) + c / step], rows[r], y,
                          kb.linear({bn, rows[r], pixels[c]}, {O * P, P, 1}));
      });
      if (g.armDsp() && CB > 1)
        kb.keepLoadsInLoop();
    });
  });
  return llvm::Error::success();
}

llvm::Error emitMatMulInt8Gemm(KernelBuilder &kb, const KernelArgs &args) {
  const Node &n = args.node;
  auto &b = kb.b;
  const TensorType &xt = n.getInput(0)->getType(), &wt = n.getInput(1)->getType();
  const int64_t M = xt.shape[0], K = xt.shape[1], N = wt.shape[1];
  auto gemm = makeGemm(kb, args, N, true);
  if (!gemm)
    return gemm.takeError();
  Int8Gemm &g = *gemm;
  if (g.pixelLanes())
    return nodeError(n, "int8 MatMul has no pixels to put on vector lanes");
  const int64_t R = args.strategy.tile, CB = args.strategy.tileCols;
  llvm::Type *i8 = b.getInt8Ty();
  llvm::Value *x = args.inputs[0], *y = args.outputs[0];
  forEachIndex(kb, llvm::divideCeil(M, CB), [&](llvm::Value *mb) {
    llvm::SmallVector<llvm::Value *, 2> inputRows;
    for (int64_t c = 0; c < CB; ++c) {
      llvm::Value *m = g.clampedIndex(mb, CB, c, M);
      inputRows.push_back(m);
      kb.loop(K, [&](llvm::Value *k) {
        g.storeTap(kb.load(i8, x, kb.linear({m, k}, {K, 1})), c, k);
      });
    }
    kb.loop(llvm::divideCeil(N, R), [&](llvm::Value *nb) {
      llvm::SmallVector<llvm::Value *, 4> rows;
      for (int64_t r = 0; r < R; ++r)
        rows.push_back(g.clampedIndex(nb, R, r, N));
      Values sums = g.blockSums(rows, false);
      for (int64_t r = 0; r < R; ++r)
        for (int64_t c = 0; c < CB; ++c)
          g.storeOutput(sums[r * CB + c], rows[r], y,
                        kb.linear({inputRows[c], rows[r]}, {N, 1}));
    });
  });
  return llvm::Error::success();
}

} // namespace

llvm::Error emitInt8Gemm(KernelBuilder &kb, const KernelArgs &args) {
  if (args.node.is(OpKind::Conv))
    return emitConvInt8Gemm(kb, args);
  if (args.node.is(OpKind::MatMul))
    return emitMatMulInt8Gemm(kb, args);
  return nodeError(args.node, "the int8 GEMM kernel runs only Conv and MatMul");
}

} // namespace codegen
} // namespace kiln
