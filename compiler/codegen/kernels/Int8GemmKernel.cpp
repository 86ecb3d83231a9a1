//===- Int8GemmKernel.cpp - int8 Conv and MatMul as blocked GEMMs ---------===//
//
// lir::KernelStrategy::Int8Gemm: an int8 Conv (not depthwise) or MatMul as a
// GEMM of weight rows by columns of inputs, block by block of `tile` rows x
// `tileCols` columns, whose int32 sums stay in registers while they walk the
// taps (Int8Gemm.h, one kind of block per `dot`). The kernels here fill the
// columns in the temp:
// - a Conv's: its im2col, `tileCols` pixels at a time, int16 with the input
//   offset added, or raw int8 taps in quads or octets interleaved from runs
//   of the input (a unit-stride 1x1 Conv) or of the group's padded planes
//   (lir::Int8Columns), else gathered pixel by pixel;
// - a MatMul's: its input rows.
// Each block's sums are requantized as the interpreter's (ops/Int8Conv.cpp)
// and stored, through a fused residual Add where there is one.
//
//===----------------------------------------------------------------------===//
#include "compiler/codegen/kernels/Int8Gemm.h"
#include "compiler/lir/SelectKernels.h"
#include "compiler/ops/OpGeometry.h"
#include "compiler/ops/OpViews.h"

#include "llvm/IR/IntrinsicsAArch64.h"
#include "llvm/IR/IntrinsicsARM.h"
#include "llvm/IR/IntrinsicsX86.h"
#include "llvm/Support/MathExtras.h"

namespace kiln {
namespace codegen {
namespace {

using Values = Int8Gemm::Values;

/// The Arm DSP's 1x1 GEMM over fewer pixel pairs than this ends an odd
/// pixel count with a block of its last pixel alone (a second copy of the
/// block loop, 0.7 KB of code); over more, the last block overlaps the one
/// before. VWW's 3x3 planes (4 pairs) saved 4% of their layers so; KWS's
/// 25x5 (62 pairs) 1.2% on the M4 and -0.5% on the M7, for 17% more code.
constexpr int64_t kPairsWithTailBlock = 16;

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

  // One channel's gathered taps pair consecutive kernel positions.
  const bool positionPairs =
      lir::int8GemmPacking(n, args.strategy) == lir::Packing::Int8RowsWidenedPositionPairs;
  // Where input element (n, c, h, w) is: NCHW, or NHWC when the Conv reads
  // the tensor a Transpose before it would have read (foldInputTransposes).
  const Shape inputStrides = args.strategy.columns == lir::Int8Columns::GatheredChannelsLast
                                 ? Shape{H * W * C, 1, W * C, C}
                                 : Shape{C * H * W, H * W, W, 1};
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
        llvm::Value *tap = positionPairs ? kb.linear({t[1], t[2]}, {KW, 1})
                           : g.widenedPairs() ? kb.linear({t[1], t[2], t[0]}, {KW * CGp, CGp, 1})
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
        llvm::Value *xv =
            kb.load(i8, x, kb.linear({bn, b.CreateAdd(c0, t[0]), ih, iw}, inputStrides));
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
  const bool planeWords = args.strategy.columns == lir::Int8Columns::PlaneWords;
  llvm::Type *i16 = b.getInt16Ty();
  // The planes' elements: int16 inputs with the offset added, or raw int8
  // inputs (+ 128 for Vnni).
  llvm::Type *planeTy = g.rawColumns() ? i8 : i16;
  int64_t PR = 0, PC = 0;
  llvm::Value *planes = nullptr;
  if (readsPlane || planeWords) {
    auto plane = lir::int8PaddedPlane(n);
    if (!plane)
      return plane.takeError();
    PR = plane->rows;
    PC = plane->cols;
    planes = kb.gep(planeTy, g.columns, kb.idx(CB * g.rowStride()));
  }
  // Where the window of pixel `p` starts in a plane (padded coordinates).
  auto planeCorner = [&](llvm::Value *p) {
    return kb.linear({b.CreateUDiv(p, kb.idx(OW)), b.CreateURem(p, kb.idx(OW))}, {sh * PC, sw});
  };
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
    llvm::Value *corner = readsPlane ? planeCorner(first) : nullptr;
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

  // The Arm DSP's block of two consecutive pixels of a unit-stride 1x1 Conv
  // from `first`, a pair of channels at a time: the two channels' runs of
  // two inputs, one halfword each, side by side are the bytes (c, p0),
  // (c, p1), (c + 1, p0), (c + 1, p1); SXTAB16 of the word and of the word
  // rotated by a byte adds them to the offset pair as the two pixels' tap
  // pairs (and SADD16 doubles them for doubledSums). The group's channels
  // are pairs (int8Columns).
  auto pixelPairRuns = [&](llvm::Value *bn, llvm::Value *c0, llvm::Value *first) {
    llvm::Type *i32 = b.getInt32Ty();
    auto run = [&](llvm::Value *ic) {
      llvm::Value *at = kb.linear({bn, b.CreateAdd(c0, ic), first}, {C * H * W, H * W, 1});
      llvm::Value *half = b.CreateAlignedLoad(i16, kb.gep(i8, x, at), llvm::Align(1));
      return b.CreateZExt(half, i32);
    };
    kb.loop(CG / 2, [&](llvm::Value *k) {
      llvm::Value *ic = b.CreateShl(k, kb.idx(1));
      llvm::Value *next = b.CreateAdd(ic, kb.idx(1));
      llvm::Value *word = b.CreateOr(run(ic), b.CreateShl(run(next), b.getInt32(16)));
      auto pairs = g.ir.widenedBytePairs(word, g.inOffset);
      for (int64_t c = 0; c < 2; ++c) {
        llvm::Value *pair = pairs[c];
        if (g.doubledSums)
          pair = b.CreateIntrinsic(llvm::Intrinsic::arm_sadd16, {}, {pair, pair});
        b.CreateAlignedStore(pair, kb.gep(i16, g.columns, g.columnIndex(c, ic)), llvm::Align(4));
      }
    });
  };

  // The tap groups of the block's pixels out of the one channel's plane
  // (lir::Int8Columns::PlaneWords): a word of a window row's neighbouring
  // inputs each (raw quads, or pairs of int16), in the temp's [group]
  // [column] words; a row's groups past the window (KW to its group's end)
  // meet weights of 0.
  auto planeRowWords = [&](llvm::ArrayRef<llvm::Value *> pixels) {
    llvm::Type *i32 = b.getInt32Ty();
    const int64_t G = lir::int8PlaneWordTaps(g.strategy.dot);
    const int64_t groupsPerRow = llvm::divideCeil(KW, G);
    for (int64_t c = 0; c < CB; ++c) {
      llvm::Value *corner = planeCorner(pixels[c]);
      for (int64_t kh = 0; kh < KH; ++kh)
        for (int64_t q = 0; q < groupsPerRow; ++q) {
          llvm::Value *at = b.CreateAdd(corner, kb.idx(kh * dh * PC + q * G));
          llvm::Value *word = b.CreateAlignedLoad(i32, kb.gep(planeTy, planes, at),
                                                  llvm::Align(planeTy == i8 ? 1 : 2));
          const int64_t to = (kh * groupsPerRow + q) * CB + c;
          b.CreateAlignedStore(word, kb.gep(i32, g.columns, kb.idx(to)), llvm::Align(4));
        }
    }
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
    llvm::Value *corner = planeCorner(first);
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
    if (readsPlane || planeWords)
      fillPlanes(bn, c0);
    // Pixels on lanes (and the Arm DSP's runs of pixel pairs): whole
    // blocks, the last overlapping the one before, which writes the same
    // values again; or for a few pixel pairs a tail block that sums only
    // its new columns (from firstColumn). Otherwise a partial block repeats
    // its last pixel.
    const bool pairRuns = pointwise && g.armDsp();
    const bool tailBlock = pairRuns && P % CB && P / CB < kPairsWithTailBlock;
    const int64_t fullBlocks = tailBlock ? P / CB : llvm::divideCeil(P, CB);
    auto block = [&](llvm::Value *pb, llvm::Value *first, int64_t firstColumn) {
      llvm::SmallVector<llvm::Value *, 16> pixels;
      for (int64_t c = 0; c < CB; ++c)
        pixels.push_back(first ? b.CreateAdd(first, kb.idx(c)) : g.clampedIndex(pb, CB, c, P));
      if (pairRuns)
        pixelPairRuns(bn, c0, first);
      else if (pointwise && g.rawColumns())
        tapGroupRuns(bn, c0, first);
      else if (planeWords)
        planeRowWords(pixels);
      else if (readsPlane && g.rawColumns())
        planeGroupRuns(first);
      else if (readsPlane || pointwise)
        im2colRuns(bn, c0, first);
      else
        for (int64_t c = 0; c < CB; ++c)
          im2col(bn, c0, pixels[c], c);
      if (g.blockConstants) {
        // Pairs of rows with their constants at a running pointer, and
        // their outputs at another: the epilogue reads fixed offsets from
        // them, and only the two pointers live across the block's loop.
        llvm::Type *i32 = b.getInt32Ty();
        const int64_t W = Int8Gemm::kBlockConstantWords;
        llvm::Value *group0 = b.CreateMul(group, kb.idx(OG));
        llvm::Value *constants0 =
            kb.gep(i32, g.blockConstants, b.CreateMul(group, kb.idx(OG / 2 * W)));
        llvm::Value *offset0 = kb.linear({bn, group0}, {O * P, P});
        Values start{constants0, kb.gep(i8, y, offset0)};
        if (g.residualAdd)
          start.push_back(kb.gep(i8, g.residual, offset0));
        kb.loopCarried(OG / 2, start, [&](llvm::Value *ob, llvm::ArrayRef<llvm::Value *> at) {
          // Volatile, so that the scheduler keeps the epilogue's loads after
          // the block's sums (hoisted with the biases, they spilled).
          auto word = [&](int64_t k) {
            return b.CreateAlignedLoad(i32, kb.gep(i32, at[0], kb.idx(k)), llvm::Align(4),
                                       /*isVolatile=*/true);
          };
          llvm::Value *first = b.CreateAdd(group0, b.CreateShl(ob, kb.idx(1)));
          llvm::Value *rows[2] = {first, b.CreateAdd(first, kb.idx(1))};
          llvm::Value *biases[2] = {kb.load(i32, at[0], kb.idx(0)), kb.load(i32, at[0], kb.idx(1))};
          // Every sum before the first requantization (computedHere).
          auto sums = kb.computedHere(g.blockSums(rows, g.rows.rowPairs, biases, firstColumn));
          const int64_t computed = CB - firstColumn;
          for (int64_t r = 0; r < 2; ++r) {
            llvm::Value *constants[3] = {word(2 + 3 * r), word(3 + 3 * r), word(4 + 3 * r)};
            for (int64_t c = firstColumn; c < CB; ++c)
              g.storeOutput(sums[r * computed + c - firstColumn], rows[r], at[1],
                            b.CreateAdd(kb.idx(r * P), pixels[c]), constants,
                            g.residualAdd ? at[2] : nullptr);
          }
          Values next{kb.gep(i32, at[0], kb.idx(W))};
          for (size_t k = 1; k < at.size(); ++k)
            next.push_back(kb.gep(i8, at[k], kb.idx(2 * P)));
          return next;
        });
      } else {
        kb.loop(llvm::divideCeil(OG, R), [&](llvm::Value *ob) {
          llvm::SmallVector<llvm::Value *, 8> rows;
          if (g.smmla())
            rows = g.smmlaRows(b.CreateMul(group, kb.idx(OG)), ob, OG);
          else
            for (int64_t r = 0; r < R; ++r)
              rows.push_back(
                  b.CreateAdd(b.CreateMul(group, kb.idx(OG)), g.clampedIndex(ob, R, r, OG)));
          // Blocks of two rows of an even count are pairs of Int8RowsPaired.
          Values sums =
              g.blockSums(rows, R == 2 && OG % 2 == 0 && g.rows.rowPairs, {}, firstColumn);
          // A vector of sums covers lanes() consecutive pixels.
          const int64_t step = g.lanes(), computed = (CB - firstColumn) / step;
          for (int64_t r = 0; r < R; ++r)
            for (int64_t c = firstColumn; c < CB; c += step)
              g.storeOutput(sums[r * computed + (c - firstColumn) / step], rows[r], y,
                            kb.linear({bn, rows[r], pixels[c]}, {O * P, P, 1}));
        });
      }
      if (g.armDsp() && CB > 1)
        kb.keepLoadsInLoop();
    };
    kb.loop(fullBlocks, [&](llvm::Value *pb) {
      llvm::Value *first =
          g.pixelLanes() || pairRuns ? g.clampedIndex(pb, CB, 0, P - CB + 1) : nullptr;
      block(pb, first, 0);
    });
    // The last CB pixels, of which the blocks before computed all but the
    // last P % CB.
    if (tailBlock)
      block(nullptr, kb.idx(P - CB), CB - P % CB);
  });
  return llvm::Error::success();
}

/// Copies the `tileCols` input rows of MatMul input `x` [M][K] of row
/// block `mb` into the temp as the GEMM's columns (a partial block repeats
/// the last row), the padding taps of each 0; returns the rows.
llvm::SmallVector<llvm::Value *, 4> copyInputRows(KernelBuilder &kb, Int8Gemm &g, llvm::Value *x,
                                                  llvm::Value *mb, int64_t M, int64_t K) {
  auto &b = kb.b;
  llvm::SmallVector<llvm::Value *, 4> rows;
  for (int64_t c = 0; c < g.strategy.tileCols; ++c) {
    llvm::Value *m = g.clampedIndex(mb, g.strategy.tileCols, c, M);
    rows.push_back(m);
    kb.loop(K, [&](llvm::Value *k) {
      g.storeTap(kb.load(b.getInt8Ty(), x, kb.linear({m, k}, {K, 1})), c, k);
    });
    // Taps past K meet weights of 0.
    for (int64_t k = K; k < g.rowStride(); ++k)
      g.storeTap(b.getInt8(0), c, kb.idx(k));
  }
  return rows;
}

/// A MatMul with its output channels on the lanes (Int8Columns::
/// ChannelLanes): blocks of `tile` vectors of channels x `tileCols` input
/// rows. The rows' taps are copied into the temp in groups, [group][row]
/// [taps]: raw int8 quads (+ 128 for Vnni), or pairs of int16 with the
/// offset added (Pmaddwd, Smlal); each group, one word, is broadcast to the lanes
/// in turn. The weights are Int8ChannelBlockQuads (Pairs), one vector load
/// per vector of channels and group. The last vector's lanes past the
/// channels store nothing.
llvm::Error emitMatMulChannelLanes(KernelBuilder &kb, const KernelArgs &args, Int8Gemm &g) {
  const Node &n = args.node;
  auto &b = kb.b;
  const TensorType &xt = n.getInput(0)->getType(), &wt = n.getInput(1)->getType();
  const int64_t M = xt.shape[0], K = xt.shape[1], N = wt.shape[1];
  const int64_t L = g.lanes(), vectors = llvm::divideCeil(N, L);
  const int64_t R = args.strategy.tile, CB = args.strategy.tileCols;
  // Taps per group; a group is 4 bytes of weights either way.
  const int64_t G = g.rawColumns() ? lir::kInt8Quad : 2, groupBytes = 4;
  const int64_t groups = g.rowStride() / G;
  const int64_t vectorsPerBlock = lir::kInt8ChannelBlock / L;
  if (g.residualAdd)
    return nodeError(n, "an int8 MatMul fuses no residual Add");
  llvm::Type *i8 = b.getInt8Ty(), *i32 = b.getInt32Ty();
  auto *sumsTy = llvm::FixedVectorType::get(i32, L);
  // A vector of the lanes' groups of weights, and a group broadcast.
  auto *groupsTy = g.rawColumns() ? llvm::FixedVectorType::get(i8, L * G)
                                  : llvm::FixedVectorType::get(b.getInt16Ty(), L * G);
  const llvm::Intrinsic::ID vpdpbusd = args.strategy.dot == lir::Int8Dot::Vnni512
                                           ? llvm::Intrinsic::x86_avx512_vpdpbusd_512
                                           : llvm::Intrinsic::x86_avx512_vpdpbusd_256;
  llvm::Value *x = args.inputs[0], *y = args.outputs[0];
  forEachIndex(kb, llvm::divideCeil(M, CB), [&](llvm::Value *mb) {
    auto inputRows = copyInputRows(kb, g, x, mb, M, K);
    kb.loop(llvm::divideCeil(vectors, R), [&](llvm::Value *vb) {
      llvm::SmallVector<llvm::Value *, 16> vector, channel;
      Int8Gemm::Values init;
      for (int64_t v = 0; v < R; ++v) {
        vector.push_back(g.clampedIndex(vb, R, v, vectors));
        channel.push_back(b.CreateMul(vector.back(), kb.idx(L)));
        llvm::Value *bias = b.CreateAlignedLoad(sumsTy, kb.gep(i32, g.biasTable, channel.back()),
                                                llvm::Align(4));
        init.append(CB, g.pairAccumulator(bias));
      }
      Int8Gemm::Values sums =
          kb.loopCarried(groups, init, [&](llvm::Value *q, llvm::ArrayRef<llvm::Value *> acc) {
            Int8Gemm::Values next(acc.begin(), acc.end());
            llvm::SmallVector<llvm::Value *, 4> rowGroups;
            for (int64_t c = 0; c < CB; ++c) {
              llvm::Value *word = kb.load(i32, g.columns, kb.linear({q}, {CB}, kb.idx(c)));
              rowGroups.push_back(b.CreateBitCast(b.CreateVectorSplat(L, word), groupsTy));
            }
            for (int64_t v = 0; v < R; ++v) {
              // Vector v's group q: [block][q][16][G], the vector's lanes
              // within its block.
              llvm::Value *at = kb.linear(
                  {b.CreateUDiv(vector[v], kb.idx(vectorsPerBlock)), q,
                   b.CreateURem(vector[v], kb.idx(vectorsPerBlock))},
                  {groups * lir::kInt8ChannelBlock * groupBytes,
                   lir::kInt8ChannelBlock * groupBytes, L * groupBytes});
              llvm::Value *w =
                  b.CreateAlignedLoad(groupsTy, kb.gep(i8, g.weights, at), llvm::Align(4));
              for (int64_t c = 0; c < CB; ++c) {
                llvm::Value *&s = next[v * CB + c];
                if (g.vnni())
                  s = b.CreateIntrinsic(vpdpbusd, {},
                                        {s, b.CreateBitCast(rowGroups[c], sumsTy),
                                         b.CreateBitCast(w, sumsTy)});
                else if (g.widenedPairs())
                  s = g.addPairProducts(s, w, rowGroups[c]);
                else
                  s = b.CreateIntrinsic(llvm::Intrinsic::aarch64_neon_sdot, {sumsTy, groupsTy},
                                        {s, w, rowGroups[c]});
              }
            }
            return next;
          });
      for (llvm::Value *&s : sums)
        s = g.pairTotals(s);
      for (int64_t v = 0; v < R; ++v)
        for (int64_t c = 0; c < CB; ++c) {
          llvm::Value *q = g.ir.clampToI8(g.requant.applyLanes(sums[v * CB + c], channel[v]),
                                          g.range.min, g.range.max);
          llvm::Value *at = kb.linear({inputRows[c], channel[v]}, {N, 1});
          auto whole = [&] {
            b.CreateAlignedStore(q, kb.gep(i8, y, at), llvm::Align(1));
          };
          if (N % L == 0) {
            whole();
            continue;
          }
          kb.ifElse(
              b.CreateICmpEQ(vector[v], kb.idx(vectors - 1)),
              [&] {
                for (int64_t l = 0; l < N % L; ++l)
                  kb.store(b.CreateExtractElement(q, uint64_t(l)), y,
                           b.CreateAdd(at, kb.idx(l)));
              },
              whole);
        }
    });
  });
  return llvm::Error::success();
}

llvm::Error emitMatMulInt8Gemm(KernelBuilder &kb, const KernelArgs &args) {
  const Node &n = args.node;
  const TensorType &xt = n.getInput(0)->getType(), &wt = n.getInput(1)->getType();
  const int64_t M = xt.shape[0], K = xt.shape[1], N = wt.shape[1];
  auto gemm = makeGemm(kb, args, N, true);
  if (!gemm)
    return gemm.takeError();
  Int8Gemm &g = *gemm;
  if (args.strategy.columns == lir::Int8Columns::ChannelLanes)
    return emitMatMulChannelLanes(kb, args, g);
  if (g.pixelLanes())
    return nodeError(n, "int8 MatMul has no pixels to put on vector lanes");
  const int64_t R = args.strategy.tile, CB = args.strategy.tileCols;
  llvm::Value *x = args.inputs[0], *y = args.outputs[0];
  forEachIndex(kb, llvm::divideCeil(M, CB), [&](llvm::Value *mb) {
    auto inputRows = copyInputRows(kb, g, x, mb, M, K);
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
