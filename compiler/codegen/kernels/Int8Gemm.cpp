//===- Int8Gemm.cpp - int8 GEMM blocks: sums per dot product ------------===//
//
// lir::KernelStrategy::Int8Gemm: an int8 Conv (not depthwise) or MatMul as a
// GEMM of weight rows by columns of int16 inputs with the input offset added.
// A Conv's columns are its im2col, `tileCols` pixels at a time in the
// instruction's temp; a MatMul's are its input rows (Int8GemmKernel.cpp
// fills them). A block of `tile` rows x
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
// - AArch64 NEON (Int8Dot::Smlal): AVX2's pairs and packing on 4 lanes,
//   SMLAL and SMLAL2 adding each product into a lane of its own, a pixel's
//   two lanes added after the block's taps;
// - a plain loop of products.
// The sums and the requantization are the interpreter's (ops/Int8Conv.cpp),
// so the results are bit-exact with it.
//
//===----------------------------------------------------------------------===//
#include "compiler/codegen/kernels/Int8Gemm.h"
#include "compiler/graph/Rewrite.h"
#include "compiler/lir/SelectKernels.h"
#include "compiler/ops/Int8Eval.h"
#include "compiler/ops/OpViews.h"

#include "llvm/IR/IntrinsicsAArch64.h"
#include "llvm/IR/IntrinsicsARM.h"
#include "llvm/IR/IntrinsicsX86.h"
#include "llvm/Support/MathExtras.h"

namespace kiln {
namespace codegen {

llvm::Value *Int8Gemm::quadInput(llvm::Value *x8) {
  return vnni() ? kb.b.CreateXor(x8, llvm::ConstantInt::get(x8->getType(), 0x80)) : x8;
}

llvm::Value *Int8Gemm::columnIndex(int64_t c, llvm::Value *t) {
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

llvm::Value *Int8Gemm::weightIndex(llvm::Value *row, llvm::Value *t) {
  auto &b = kb.b;
  if (strategy.packedWeights)
    return b.CreateAdd(b.CreateMul(row, kb.idx(rowStride())), t);
  if (transposed)
    return b.CreateAdd(b.CreateMul(t, kb.idx(rows.rows)), row);
  return b.CreateAdd(b.CreateMul(row, kb.idx(rows.taps)), t);
}

void Int8Gemm::storeTap(llvm::Value *x8, int64_t c, llvm::Value *t) {
  auto &b = kb.b;
  if (rawColumns()) {
    kb.store(quadInput(x8), columns, columnIndex(c, t));
    return;
  }
  llvm::Value *v = doubledSums ? b.CreateAdd(b.CreateShl(ir.widen(x8), ir.i32(1)),
                                             ir.i32(2 * inOffset))
                              : b.CreateAdd(ir.widen(x8), ir.i32(inOffset));
  kb.store(b.CreateTrunc(v, b.getInt16Ty()), columns, columnIndex(c, t));
}

Int8Gemm::Values Int8Gemm::blockSums(llvm::ArrayRef<llvm::Value *> rowIdx, bool rowPair,
                                     llvm::ArrayRef<llvm::Value *> biases, int64_t firstColumn) {
  auto &b = kb.b;
  assert((firstColumn == 0 || armDsp()) && "only the Arm DSP's blocks skip columns");
  if (widenedPairs())
    return widenedPairSums(rowIdx);
  if (smmla())
    return octetPairSums(rowIdx);
  if (rawColumns())
    return quadSums(rowIdx);
  const int64_t R = strategy.tile, C = strategy.tileCols;
  llvm::Type *i32 = b.getInt32Ty();
  Values init;
  for (int64_t r = 0; r < R; ++r)
    for (int64_t c = firstColumn; c < C; ++c)
      init.push_back(biases.empty() ? kb.load(i32, biasTable, rowIdx[r]) : biases[r]);
  if (armDsp())
    return smladSums(rowIdx, init, rowPair, firstColumn);
  return scalarSums(rowIdx, init);
}

Int8Gemm::Values Int8Gemm::smladSums(llvm::ArrayRef<llvm::Value *> rowIdx,
                                     llvm::ArrayRef<llvm::Value *> init, bool rowPair,
                                     int64_t firstColumn) {
  auto &b = kb.b;
  const int64_t C = strategy.tileCols, computed = C - firstColumn;
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
      for (int64_t c = firstColumn; c < C; c += 2) {
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
        for (int64_t c = 0; c < computed; ++c) {
          llvm::Value *&s = next[r * computed + c];
          s = b.CreateIntrinsic(llvm::Intrinsic::arm_smlad, {}, {pair, x[c], s});
        }
      }
    }
    return next;
  });
  kb.unrollLoop(strategy.unroll);
  return sums;
}

std::array<llvm::Value *, 2> Int8Gemm::loadWordPair(llvm::Value *base, llvm::Value *word) {
  auto &b = kb.b;
  llvm::Type *i64 = b.getInt64Ty();
  llvm::LoadInst *pair = b.CreateAlignedLoad(
      i64, kb.gep(b.getInt32Ty(), base, word), llvm::Align(4), /*isVolatile=*/true);
  return {b.CreateTrunc(pair, b.getInt32Ty()),
          b.CreateTrunc(b.CreateLShr(pair, 32), b.getInt32Ty())};
}

llvm::Value *Int8Gemm::weightWord(llvm::Value *row, llvm::Value *q, int64_t wordsPerRow) {
  auto &b = kb.b;
  if (!rows.rowPairs)
    return kb.linear({row, q}, {wordsPerRow, 1});
  llvm::Value *pair = b.CreateLShr(row, kb.idx(1));
  return b.CreateAdd(kb.linear({pair, q}, {2 * wordsPerRow, 2}), b.CreateAnd(row, kb.idx(1)));
}

llvm::Value *Int8Gemm::pairAccumulator(llvm::Value *sums) {
  if (!smlal())
    return sums;
  // Each sum in an even lane, 0 in the odd one after it.
  llvm::SmallVector<int, 32> mask;
  for (int64_t l = 0; l < lanes(); ++l)
    mask.append({int(l), int(lanes() + l)});
  return kb.b.CreateShuffleVector(sums, llvm::Constant::getNullValue(sums->getType()), mask);
}

llvm::Value *Int8Gemm::addPairProducts(llvm::Value *acc, llvm::Value *x, llvm::Value *w) {
  auto &b = kb.b;
  if (pmaddwd())
    return b.CreateAdd(acc, b.CreateIntrinsic(llvm::Intrinsic::x86_avx2_pmadd_wd, {}, {x, w}));
  // A widening multiply-add of int16 vectors: SMLAL and SMLAL2.
  auto *wideTy = llvm::FixedVectorType::get(b.getInt32Ty(), 2 * lanes());
  return b.CreateAdd(acc, b.CreateMul(b.CreateSExt(x, wideTy), b.CreateSExt(w, wideTy)));
}

llvm::Value *Int8Gemm::pairTotals(llvm::Value *acc) {
  if (!smlal())
    return acc;
  llvm::SmallVector<int, 16> even, odd;
  for (int64_t l = 0; l < lanes(); ++l) {
    even.push_back(int(2 * l));
    odd.push_back(int(2 * l + 1));
  }
  return kb.b.CreateAdd(kb.b.CreateShuffleVector(acc, even), kb.b.CreateShuffleVector(acc, odd));
}

Int8Gemm::Values Int8Gemm::widenedPairSums(llvm::ArrayRef<llvm::Value *> rowIdx) {
  auto &b = kb.b;
  const int64_t lanes = this->lanes(), V = strategy.tileCols / lanes;
  const int64_t pairsPerRow = rowStride() / 2;
  llvm::Type *i32 = b.getInt32Ty();
  auto *pairsTy = llvm::FixedVectorType::get(b.getInt16Ty(), 2 * lanes);
  Values init;
  for (llvm::Value *row : rowIdx) {
    llvm::Value *bias = b.CreateVectorSplat(lanes, kb.load(i32, biasTable, row));
    init.append(V, pairAccumulator(bias));
  }
  Values sums = kb.loopCarried(pairsPerRow, init, [&](llvm::Value *q, llvm::ArrayRef<llvm::Value *> acc) {
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
      for (int64_t v = 0; v < V; ++v)
        next[r * V + v] = addPairProducts(next[r * V + v], x[v], w);
    }
    return next;
  });
  for (llvm::Value *&s : sums)
    s = pairTotals(s);
  return sums;
}

Int8Gemm::Values Int8Gemm::quadSums(llvm::ArrayRef<llvm::Value *> rowIdx) {
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

Int8Gemm::Values Int8Gemm::octetPairSums(llvm::ArrayRef<llvm::Value *> rowIdx) {
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

llvm::SmallVector<llvm::Value *, 8> Int8Gemm::smmlaRows(llvm::Value *first, llvm::Value *ob,
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

Int8Gemm::Values Int8Gemm::scalarSums(llvm::ArrayRef<llvm::Value *> rowIdx,
                                      llvm::ArrayRef<llvm::Value *> init) {
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

void Int8Gemm::storeOutput(llvm::Value *sum, llvm::Value *row, llvm::Value *y,
                           llvm::Value *yIndex, llvm::ArrayRef<llvm::Value *> constants,
                           llvm::Value *residualBase) {
  auto &b = kb.b;
  llvm::Value *requantized = constants.empty() ? requant.apply(sum, row, doubledSums)
                                               : requant.applyDoubled(sum, constants);
  llvm::Value *q = ir.clampToI8(requantized, range.min, range.max);
  if (residualAdd) {
    llvm::Value *rBase = residualBase ? residualBase : residual;
    llvm::Value *r = q->getType()->isVectorTy()
                         ? b.CreateAlignedLoad(q->getType(),
                                               kb.gep(b.getInt8Ty(), rBase, yIndex),
                                               llvm::Align(1))
                         : kb.load(b.getInt8Ty(), rBase, yIndex);
    llvm::Value *own = b.CreateSExt(q, ir.widened(q, 32));
    llvm::Value *other = b.CreateSExt(r, ir.widened(q, 32));
    q = convOperand == 0 ? residualAdd->apply(own, other) : residualAdd->apply(other, own);
  }
  if (q->getType()->isVectorTy())
    b.CreateAlignedStore(q, kb.gep(b.getInt8Ty(), y, yIndex), llvm::Align(1));
  else
    kb.store(q, y, yIndex);
}

llvm::Value *Int8Gemm::clampedIndex(llvm::Value *block, int64_t size, int64_t i, int64_t extent) {
  auto &b = kb.b;
  llvm::Value *v = b.CreateAdd(b.CreateMul(block, kb.idx(size)), kb.idx(i));
  llvm::Value *last = kb.idx(extent - 1);
  return b.CreateSelect(b.CreateICmpULT(v, last), v, last);
}

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
        rowSum += fullyConnected ? w[t * channels + c] : w[c * taps + t];
      params.bias[c] = int32_t(uint32_t(params.bias[c]) + uint32_t(offset * rowSum));
    }
  }
  if (args.strategy.columns == lir::Int8Columns::ChannelLanes) {
    // A vector past the last channel reads its lanes' constants too: the
    // last channel's again.
    const size_t padded = llvm::alignTo(channels, lir::int8GemmPixelLanes(args.strategy.dot));
    params.bias.resize(padded, params.bias.back());
    params.multipliers.resize(padded, params.multipliers.back());
    params.sumBounds.resize(padded, params.sumBounds.back());
  }
  Requantizer requant(ir, params.multipliers, params.sumBounds, yt.quant.zeroPoints[0]);
  const bool doubled =
      args.strategy.dot == lir::Int8Dot::ArmDsp && requant.takesDoubledSums();
  if (doubled)
    for (int32_t &bias : params.bias)
      bias *= 2;
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
    g.convOperand = isReshapeOf(f->getInput(0), n.getOutput()) ? 0 : 1;
  }
  g.doubledSums = doubled;
  if (doubled && n.is(OpKind::Conv) && args.strategy.tile == 2 &&
      channels / ConvView(n).group() % 2 == 0) {
    std::vector<int32_t> words;
    for (int64_t c = 0; c < channels; c += 2) {
      words.insert(words.end(), {params.bias[c], params.bias[c + 1]});
      for (int64_t r = 0; r < 2; ++r)
        llvm::append_range(words, requant.doubledSumConstants(c + r));
    }
    g.blockConstants = ir.table(words, "int8.block");
  }
  return g;
}

} // namespace codegen
} // namespace kiln
