//===- Int8DepthwiseKernel.cpp - int8 depthwise Conv over a padded plane --===//
//
// lir::KernelStrategy::Int8Depthwise: each input channel is copied once into
// the temp, a plane of int16 values with the input offset added whose border
// (the padding) is 0, written once per run. Every window then lies inside
// the plane, so each output is its bias plus KH x KW products with no bounds
// tests; the channel's weights are loaded into registers once. With the Arm
// DSP, each SMLAD multiplies two neighbouring taps of a window row, read as
// one word, by a pair of weights packed once per channel (an odd row's last
// pair has weight 0). A 3x3 window (strategy tileCols 2) computes two
// neighbouring outputs per step: they share each row's loaded words and its
// two weight pairs, and the odd tap of each row is one SMLAxy of a half
// word, not a pair with a zero weight. The weights and the bias are packed
// doubled where the requantizer takes doubled sums. With x86 AVX2 (strategy
// tile), blocks of channels on the vector lanes over a pixel-major plane
// instead. The sums and the requantization are the interpreter's
// (ops/Int8Conv.cpp), so the results are bit-exact with it.
//
//===----------------------------------------------------------------------===//
#include "compiler/codegen/Kernels.h"
#include "compiler/codegen/kernels/Int8Params.h"
#include "compiler/codegen/kernels/IntegerIR.h"
#include "compiler/codegen/kernels/RegisterTile.h"
#include "compiler/ops/Int8Eval.h"
#include "compiler/ops/OpGeometry.h"
#include "compiler/ops/OpViews.h"

#include "llvm/IR/IntrinsicsARM.h"
#include "llvm/IR/IntrinsicsX86.h"

namespace kiln {
namespace codegen {

/// An int8 depthwise Conv's sizes, strides, dilations and leading pads, as
/// its kernels below walk them: input N x C x H x W, O output channels of
/// OH x OW, windows of KH x KW.
struct DepthwiseDims {
  int64_t N, C, H, W, O, KH, KW, OH, OW, sh, sw, dh, dw, ph, pw;

  static DepthwiseDims of(llvm::ArrayRef<int64_t> x, llvm::ArrayRef<int64_t> w,
                          llvm::ArrayRef<int64_t> y, const ConvGeometry &geom) {
    // clang-format off
    return {x[0], x[1], x[2], x[3], w[0], w[2], w[3], y[2], y[3],
            geom.strides[0], geom.strides[1], geom.dilations[0], geom.dilations[1],
            geom.padsBegin[0], geom.padsBegin[1]};
    // clang-format on
  }
};

/// Windows of more taps than 7x7 read their weights in a loop instead of
/// holding them in registers (and in code: one multiply-add per tap).
constexpr int64_t kUnrolledTaps = 49;

/// The Arm DSP 3x3 kernel's rows of at least this many output pairs stay
/// rolled: VWW's rows of 24 and 48 outputs took 1-11% fewer instructions so (more
/// on the M7), its rows of 6 and 12 and KWS's of 5 up to 16% more.
constexpr int64_t kRolledPairs = 12;

/// Runs of L consecutive pixels of an NCHW plane of H x W, for L x L
/// transposes between L channels' runs and L pixels' vectors of channels:
/// along each row where rows are L wide or more (the last run of a row
/// overlaps the one before), else across rows, each pixel's place read
/// from a table; a plane of fewer than L pixels is not tiled. `place(h, w)`
/// is where pixel (h, w) goes in the pixel-major buffer.
class TiledPlane {
public:
  TiledPlane(KernelBuilder &kb, IntegerIR &ir, int64_t H, int64_t W, int64_t L,
             llvm::function_ref<int64_t(int64_t, int64_t)> place)
      : kb(kb), H(H), W(W), L(L) {
    if (W >= L) {
      base = place(0, 0);
      colStride = place(0, 1) - base;
      rowStride = place(1, 0) - base;
    } else if (H * W >= L) {
      std::vector<int32_t> places;
      for (int64_t p = 0; p < H * W; ++p)
        places.push_back(int32_t(place(p / W, p % W)));
      table = ir.table(places, "int8.dw.places");
    }
  }
  bool tiled() const { return W >= L || table; }
  /// body(first pixel's index in the plane, each pixel's place) per run.
  void forEachTile(llvm::function_ref<void(llvm::Value *, llvm::ArrayRef<llvm::Value *>)> body) {
    auto &b = kb.b;
    // The first of run `i` of `extent` pixels.
    auto start = [&](llvm::Value *i, int64_t extent) {
      llvm::Value *p0 = b.CreateMul(i, kb.idx(L));
      return b.CreateSelect(b.CreateICmpULT(p0, kb.idx(extent - L)), p0, kb.idx(extent - L));
    };
    llvm::SmallVector<llvm::Value *, 16> at;
    if (table) {
      kb.loop(llvm::divideCeil(H * W, L), [&](llvm::Value *i) {
        llvm::Value *p0 = start(i, H * W);
        at.clear();
        for (int64_t p = 0; p < L; ++p)
          at.push_back(b.CreateSExt(kb.load(b.getInt32Ty(), table, b.CreateAdd(p0, kb.idx(p))),
                                    kb.idxTy));
        body(p0, at);
      });
      return;
    }
    kb.nest({H, int64_t(llvm::divideCeil(W, L))}, [&](llvm::ArrayRef<llvm::Value *> hi) {
      llvm::Value *w0 = start(hi[1], W);
      llvm::Value *first = kb.linear({hi[0], w0}, {rowStride, colStride}, kb.idx(base));
      at.clear();
      for (int64_t p = 0; p < L; ++p)
        at.push_back(b.CreateAdd(first, kb.idx(p * colStride)));
      body(b.CreateAdd(b.CreateMul(hi[0], kb.idx(W)), w0), at);
    });
  }

private:
  KernelBuilder &kb;
  int64_t H, W, L;
  /// Rows of L or more: pixel (h, w)'s place is base + h rowStride + w
  /// colStride.
  int64_t base = 0, rowStride = 0, colStride = 0;
  /// Narrower rows: every pixel's place.
  llvm::Value *table = nullptr;
};

/// Strategy tile L (x86 AVX2; AVX-512 for L 16): a block of L channels on
/// the vector lanes, over a pixel-major plane of the block ([row][col][L]
/// int16, the offset added, a zero border), so that each tap of a window is
/// one vector load whatever the row width or stride (KWS's rows are 5
/// outputs wide). The
/// weights are a compile-time table [tap][channel] read a block at a time;
/// LLVM multiplies the sign-extended int16 inputs by them with VPMADDWD. A
/// channel count that is not a multiple of L ends with a block that
/// overlaps the one before (its outputs are written twice, alike). The
/// copy into the plane and the stores of the results go L pixels at a time
/// through L x L transposes (TiledPlane); a lane at a time, KWS's int8
/// model took 40 us on Zen 5, against 29 so. With tap pairs (strategy
/// tileCols 2), each block's plane is copied once more as pixel pairs
/// (each column with the next, channel by channel) and a window row's taps
/// kw and kw + 1 are one VPMADDWD of a pair by the weights (w[kw],
/// w[kw + 1]) interleaved per channel, an odd row's last by (w, 0): 6
/// multiplies a 3x3 window instead of 9 VPMULLDs of sign-extended int16s.
static void emitChannelBlocks(KernelBuilder &kb, const KernelArgs &args, IntegerIR &ir,
                              const DepthwiseDims &s, lir::Int8PaddedPlane plane,
                              llvm::Value *biasTable, Requantizer &requant,
                              tfl::ActivationRange range) {
  const Node &n = args.node;
  auto &b = kb.b;
  ConvView conv(n);
  const TensorType &xt = conv.input()->getType();
  const int64_t L = args.strategy.tile, PC = plane.cols;
  const bool tapPairs = args.strategy.tileCols == 2;
  // KP: a window row's pairs of taps; PL: int16s per pixel of what the
  // windows read (the plane, or its pixel pairs).
  const int64_t KP = (s.KW + 1) / 2, PL = tapPairs ? 2 * L : L;
  llvm::Type *i8 = b.getInt8Ty(), *i16 = b.getInt16Ty(), *i32 = b.getInt32Ty();
  auto *lanesI8 = llvm::FixedVectorType::get(i8, L);
  auto *lanesI16 = llvm::FixedVectorType::get(i16, L);
  auto *lanesI32 = llvm::FixedVectorType::get(i32, L);
  // The weights [tap][channel]; with tap pairs, [row][pair][channel][2]
  // int16: (w[2p], w[2p + 1] or 0).
  const int8_t *w = conv.weights()->getConstant().data<int8_t>();
  Tensor taps(tapPairs ? TensorType(DType::I16, {s.KH * KP * s.C * 2})
                       : TensorType(DType::I8, {s.KH * s.KW * s.C}));
  for (int64_t c = 0; c < s.C; ++c)
    for (int64_t kh = 0; kh < s.KH; ++kh)
      for (int64_t kw = 0; kw < s.KW; ++kw) {
        const int8_t v = w[(c * s.KH + kh) * s.KW + kw];
        if (tapPairs)
          taps.data<int16_t>()[((kh * KP + kw / 2) * s.C + c) * 2 + kw % 2] = v;
        else
          taps.data<int8_t>()[(kh * s.KW + kw) * s.C + c] = v;
      }
  llvm::Value *weights = ir.table(taps, tapPairs ? "int8.dw.tap_pairs" : "int8.dw.taps");
  llvm::Value *x = args.inputs[0], *y = args.outputs[0], *planes = args.temp;
  // What the windows read: the plane, or its pixel pairs after it.
  llvm::Value *windows = tapPairs ? kb.gep(i16, planes, kb.idx(plane.pairsOffset(L))) : planes;
  auto *pairLanesI16 = llvm::FixedVectorType::get(i16, 2 * L);
  const int32_t inOffset = -xt.quant.zeroPoints[0];

  kb.loop(plane.rows * PC * L, [&](llvm::Value *i) { kb.store(b.getInt16(0), planes, i); });
  // Runs of L pixels go through L x L transposes in registers (TiledPlane),
  // not a lane at a time.
  TiledPlane in(kb, ir, s.H, s.W, L,
                [&](int64_t h, int64_t w) { return ((h + s.ph) * PC + w + s.pw) * L; });
  TiledPlane out(kb, ir, s.OH, s.OW, L,
                 [&](int64_t h, int64_t w) { return (h * s.sh * PC + w * s.sw) * PL; });
  llvm::Value *offset = b.CreateVectorSplat(L, b.getInt16(uint16_t(inOffset)));
  kb.nest({s.N, int64_t(llvm::divideCeil(s.C, L))}, [&](llvm::ArrayRef<llvm::Value *> nb) {
    llvm::Value *c0 = b.CreateMul(nb[1], kb.idx(L));
    c0 = b.CreateSelect(b.CreateICmpULT(c0, kb.idx(s.C - L)), c0, kb.idx(s.C - L));
    // Channel c's plane of the input and of the output.
    auto inPlane = [&](int64_t c) {
      return kb.linear({nb[0], b.CreateAdd(c0, kb.idx(c))}, {s.C * s.H * s.W, s.H * s.W});
    };
    auto outPlane = [&](int64_t c) {
      return kb.linear({nb[0], b.CreateAdd(c0, kb.idx(c))}, {s.C * s.OH * s.OW, s.OH * s.OW});
    };
    if (in.tiled()) {
      in.forEachTile([&](llvm::Value *p0, llvm::ArrayRef<llvm::Value *> at) {
        llvm::SmallVector<llvm::Value *, 16> rows;
        for (int64_t c = 0; c < L; ++c)
          rows.push_back(b.CreateAdd(
              b.CreateSExt(b.CreateAlignedLoad(lanesI8, kb.gep(i8, x, b.CreateAdd(inPlane(c), p0)),
                                               llvm::Align(1)),
                           lanesI16),
              offset));
        auto pixels = transposeVectors(kb, rows, L);
        for (int64_t p = 0; p < L; ++p)
          b.CreateAlignedStore(pixels[p], kb.gep(i16, planes, at[p]), llvm::Align(2));
      });
    } else {
      kb.nest({L, s.H, s.W}, [&](llvm::ArrayRef<llvm::Value *> lhw) {
        llvm::Value *v =
            ir.widen(kb.load(i8, x,
                             kb.linear({nb[0], b.CreateAdd(c0, lhw[0]), lhw[1], lhw[2]},
                                       {s.C * s.H * s.W, s.H * s.W, s.W, 1})));
        kb.store(
            b.CreateTrunc(b.CreateAdd(v, ir.i32(inOffset)), i16), planes,
            kb.linear({lhw[1], lhw[2], lhw[0]}, {PC * L, L, 1}, kb.idx((s.ph * PC + s.pw) * L)));
      });
    }
    auto lanes = [&](llvm::Type *ty, llvm::Value *table, llvm::Value *at) {
      return b.CreateAlignedLoad(ty, kb.gep(ty->getScalarType(), table, at), llvm::Align(1));
    };
    if (tapPairs) {
      // Pixel (r, q) of the pairs: its L channels interleaved with those
      // of (r, q + 1), or with 0 in the last column.
      llvm::SmallVector<int, 32> interleave;
      for (int64_t l = 0; l < L; ++l)
        interleave.append({int(l), int(L + l)});
      auto pairPixel = [&](llvm::Value *r, llvm::Value *q, bool lastColumn) {
        llvm::Value *at = kb.linear({r, q}, {PC * L, L});
        llvm::Value *next = llvm::Constant::getNullValue(lanesI16);
        if (!lastColumn)
          next = lanes(lanesI16, planes, b.CreateAdd(at, kb.idx(L)));
        llvm::Value *pair = b.CreateShuffleVector(lanes(lanesI16, planes, at), next, interleave);
        b.CreateAlignedStore(pair, kb.gep(i16, windows, b.CreateShl(at, kb.idx(1))),
                             llvm::Align(2));
      };
      kb.loop(plane.rows, [&](llvm::Value *r) {
        kb.loop(PC - 1, [&](llvm::Value *q) { pairPixel(r, q, false); });
        pairPixel(r, kb.idx(PC - 1), true);
      });
    }
    llvm::Value *bias = lanes(lanesI32, biasTable, c0);
    // The block's L outputs of the pixel whose window starts at `corner`.
    auto pixel = [&](llvm::Value *corner) {
      // Taps (kh, 2p) and (kh, 2p + 1).
      auto tapPair = [&](llvm::Value *kh, llvm::Value *p, llvm::Value *acc) {
        llvm::Value *xv = lanes(pairLanesI16, windows,
                                b.CreateAdd(corner, kb.linear({kh, p}, {s.dh * PC * PL, 2 * PL})));
        llvm::Value *wv = lanes(
            pairLanesI16, weights,
            b.CreateAdd(kb.linear({kh, p}, {KP * s.C * 2, s.C * 2}), b.CreateShl(c0, kb.idx(1))));
        return b.CreateAdd(acc, b.CreateIntrinsic(L == lir::kVnni512PixelLanes
                                                      ? llvm::Intrinsic::x86_avx512_pmaddw_d_512
                                                      : llvm::Intrinsic::x86_avx2_pmadd_wd,
                                                  {}, {xv, wv}));
      };
      auto tap = [&](llvm::Value *kh, llvm::Value *kw, llvm::Value *acc) {
        llvm::Value *xv = lanes(
            lanesI16, planes, b.CreateAdd(corner, kb.linear({kh, kw}, {s.dh * PC * L, s.dw * L})));
        llvm::Value *wv =
            lanes(lanesI8, weights, b.CreateAdd(kb.linear({kh, kw}, {s.KW * s.C, s.C}), c0));
        return b.CreateAdd(acc, b.CreateMul(b.CreateSExt(xv, lanesI32), b.CreateSExt(wv, lanesI32)));
      };
      // Window row kh's step k: taps 2k and 2k + 1 with tap pairs, else tap k.
      const int64_t rowSteps = tapPairs ? KP : s.KW;
      auto step = [&](llvm::Value *kh, llvm::Value *k, llvm::Value *acc) {
        return tapPairs ? tapPair(kh, k, acc) : tap(kh, k, acc);
      };
      llvm::Value *acc = bias;
      if (s.KH * s.KW <= kUnrolledTaps) {
        for (int64_t kh = 0; kh < s.KH; ++kh)
          for (int64_t k = 0; k < rowSteps; ++k)
            acc = step(kb.idx(kh), kb.idx(k), acc);
      } else {
        acc = kb.loopCarried(
            s.KH * rowSteps, {acc}, [&](llvm::Value *t, llvm::ArrayRef<llvm::Value *> a) {
              return llvm::SmallVector<llvm::Value *, 32>{
                  step(b.CreateUDiv(t, kb.idx(rowSteps)), b.CreateURem(t, kb.idx(rowSteps)), a[0])};
            })[0];
      }
      return ir.clampToI8(requant.applyLanes(acc, c0), range.min, range.max);
    };
    if (out.tiled()) {
      out.forEachTile([&](llvm::Value *p0, llvm::ArrayRef<llvm::Value *> corners) {
        llvm::SmallVector<llvm::Value *, 16> results;
        for (int64_t p = 0; p < L; ++p)
          results.push_back(pixel(corners[p]));
        auto channels = transposeVectors(kb, results, L);
        for (int64_t c = 0; c < L; ++c)
          b.CreateAlignedStore(channels[c], kb.gep(i8, y, b.CreateAdd(outPlane(c), p0)),
                               llvm::Align(1));
      });
      return;
    }
    kb.nest({s.OH, s.OW}, [&](llvm::ArrayRef<llvm::Value *> hw) {
      llvm::Value *q = pixel(kb.linear({hw[0], hw[1]}, {s.sh * PC * PL, s.sw * PL}));
      for (int64_t l = 0; l < L; ++l)
        kb.store(b.CreateExtractElement(q, uint64_t(l)), y,
                 kb.linear({nb[0], b.CreateAdd(c0, kb.idx(l)), hw[0], hw[1]},
                           {s.C * s.OH * s.OW, s.OH * s.OW, s.OW, 1}));
    });
  });
}

/// Strategy tileCols L without `tile` (x86; int8DepthwiseRowLanes): one
/// channel at a time, its plane copied a vector of L at a time into the
/// temp as int16 with the offset added (the border, zeroed once, stays 0),
/// then a row's outputs on the L i32 lanes. A window row's taps 2k and
/// 2k + 1 are one VPMADDWD of the plane's words (col, col + 1), read as L
/// words from an int16 element, by the pair (w[2k], w[2k + 1] or 0). At
/// column stride 2 the words from 2 ow are those of the outputs ow.. of a
/// step; at stride 1 they are every other output's, so a step of 2L
/// outputs sums the even ones from ow and the odd ones from ow + 1 and
/// interleaves them. No transposes: VWW's rows of 48 and 24 outputs, whose
/// channel blocks went through L x L transposes in and out per pixel.
static void emitRowLanes(KernelBuilder &kb, const KernelArgs &args, IntegerIR &ir,
                         const DepthwiseDims &s, lir::Int8PaddedPlane plane, llvm::Value *biasTable,
                         Requantizer &requant, tfl::ActivationRange range) {
  const Node &n = args.node;
  auto &b = kb.b;
  ConvView conv(n);
  const TensorType &xt = conv.input()->getType();
  const int64_t L = args.strategy.tileCols, PW = plane.cols, KP = (s.KW + 1) / 2;
  // Outputs of a row per step.
  const int64_t step = s.sw == 1 ? 2 * L : L;
  llvm::Type *i8 = b.getInt8Ty(), *i16 = b.getInt16Ty(), *i32 = b.getInt32Ty();
  auto *lanesI8 = llvm::FixedVectorType::get(i8, L);
  auto *lanesI16 = llvm::FixedVectorType::get(i16, L);
  auto *lanesI32 = llvm::FixedVectorType::get(i32, L);
  auto *pairsI16 = llvm::FixedVectorType::get(i16, 2 * L);
  const llvm::Intrinsic::ID pmaddwd = L == lir::kVnni512PixelLanes
                                          ? llvm::Intrinsic::x86_avx512_pmaddw_d_512
                                          : llvm::Intrinsic::x86_avx2_pmadd_wd;
  // The weight pairs [channel][kh][k] as words (w[2k], w[2k + 1] or 0).
  const int8_t *w = conv.weights()->getConstant().data<int8_t>();
  std::vector<int32_t> pairs;
  for (int64_t c = 0; c < s.C; ++c)
    for (int64_t kh = 0; kh < s.KH; ++kh)
      for (int64_t k = 0; k < KP; ++k) {
        const int8_t lo = w[(c * s.KH + kh) * s.KW + 2 * k];
        const int8_t hi = 2 * k + 1 < s.KW ? w[(c * s.KH + kh) * s.KW + 2 * k + 1] : 0;
        pairs.push_back(int32_t(uint32_t(uint16_t(lo)) | uint32_t(uint16_t(hi)) << 16));
      }
  llvm::Value *weightPairs = ir.table(pairs, "int8.dw.row_pairs");
  llvm::Value *x = args.inputs[0], *y = args.outputs[0], *planeBuf = args.temp;
  const int64_t planeElems = int64_t(plane.rowLanesBytes(L, s.KW) / sizeof(int16_t));
  llvm::Value *offset = b.CreateVectorSplat(L, b.getInt16(uint16_t(-xt.quant.zeroPoints[0])));

  // `count` (< L: masked) lanes of type `ty` at element `at` of `base`.
  auto loadLanes = [&](llvm::FixedVectorType *ty, llvm::Value *base, llvm::Value *at,
                       int64_t count) -> llvm::Value * {
    llvm::Value *ptr = kb.gep(ty->getElementType(), base, at);
    if (count >= int64_t(ty->getNumElements()))
      return b.CreateAlignedLoad(ty, ptr, llvm::Align(1));
    return b.CreateMaskedLoad(ty, ptr, llvm::Align(1),
                              kb.laneMask(ty->getNumElements(), unsigned(count)),
                              llvm::Constant::getNullValue(ty));
  };
  auto storeLanes = [&](llvm::Value *v, llvm::Value *base, llvm::Value *at, int64_t count) {
    auto *ty = llvm::cast<llvm::FixedVectorType>(v->getType());
    llvm::Value *ptr = kb.gep(ty->getElementType(), base, at);
    if (count >= int64_t(ty->getNumElements()))
      b.CreateAlignedStore(v, ptr, llvm::Align(1));
    else
      b.CreateMaskedStore(v, ptr, llvm::Align(1),
                          kb.laneMask(ty->getNumElements(), unsigned(count)));
  };
  // Runs of `extent` in steps of `size`, a last partial one overlapping the
  // one before (its outputs are written twice, alike): byte-masked stores
  // are scalar on AVX2. Only an extent under one step is masked.
  auto forRuns = [&](int64_t extent, int64_t size,
                     llvm::function_ref<void(llvm::Value *, int64_t)> body) {
    if (extent < size)
      return body(kb.idx(0), extent);
    kb.loop(extent / size, [&](llvm::Value *i) { body(b.CreateMul(i, kb.idx(size)), size); });
    if (extent % size)
      body(kb.idx(extent - size), size);
  };

  kb.loop(planeElems, [&](llvm::Value *i) { kb.store(b.getInt16(0), planeBuf, i); });
  kb.nest({s.N, s.C}, [&](llvm::ArrayRef<llvm::Value *> nc) {
    llvm::Value *channel = kb.linear(nc, {s.C, 1});
    kb.loop(s.H, [&](llvm::Value *h) {
      forRuns(s.W, L, [&](llvm::Value *w0, int64_t count) {
        llvm::Value *in =
            loadLanes(lanesI8, x, kb.linear({channel, h, w0}, {s.H * s.W, s.W, 1}), count);
        llvm::Value *v = b.CreateAdd(b.CreateSExt(in, lanesI16), offset);
        storeLanes(v, planeBuf, kb.linear({h, w0}, {PW, 1}, kb.idx(s.ph * PW + s.pw)), count);
      });
    });
    llvm::Value *bias = b.CreateVectorSplat(L, kb.load(i32, biasTable, nc[1]));
    llvm::SmallVector<llvm::Value *, 32> weights;
    for (int64_t t = 0; t < s.KH * KP; ++t)
      weights.push_back(b.CreateBitCast(
          b.CreateVectorSplat(
              L, kb.load(i32, weightPairs, kb.linear({nc[1]}, {s.KH * KP}, kb.idx(t)))),
          pairsI16));
    // The L outputs whose windows start at int16 element `corner` and
    // every other element after it, requantized.
    auto outputs = [&](llvm::Value *corner) {
      llvm::Value *acc = bias;
      for (int64_t kh = 0; kh < s.KH; ++kh)
        for (int64_t k = 0; k < KP; ++k) {
          llvm::Value *at = b.CreateAdd(corner, kb.idx(kh * s.dh * PW + 2 * k));
          llvm::Value *words =
              b.CreateAlignedLoad(lanesI32, kb.gep(i16, planeBuf, at), llvm::Align(2));
          acc = b.CreateAdd(acc, b.CreateIntrinsic(pmaddwd, {},
                                                   {b.CreateBitCast(words, pairsI16),
                                                    weights[kh * KP + k]}));
        }
      return ir.clampToI8(requant.apply(acc, nc[1]), range.min, range.max);
    };
    llvm::SmallVector<int, 32> interleave;
    for (int64_t l = 0; l < L; ++l)
      interleave.append({int(l), int(L + l)});
    kb.loop(s.OH, [&](llvm::Value *oh) {
      forRuns(s.OW, step, [&](llvm::Value *ow0, int64_t count) {
        llvm::Value *corner = kb.linear({oh, ow0}, {s.sh * PW, s.sw});
        llvm::Value *q =
            s.sw == 1 ? b.CreateShuffleVector(outputs(corner),
                                              outputs(b.CreateAdd(corner, kb.idx(1))), interleave)
                      : outputs(corner);
        storeLanes(q, y, kb.linear({channel, oh, ow0}, {s.OH * s.OW, s.OW, 1}), count);
      });
    });
  });
}

llvm::Error emitInt8Depthwise(KernelBuilder &kb, const KernelArgs &args) {
  const Node &n = args.node;
  IntegerIR ir(kb);
  auto &b = kb.b;
  ConvView conv(n);
  const TensorType &xt = conv.input()->getType(), &wt = conv.weights()->getType(),
                   &yt = n.getOutput()->getType();
  auto range = weightedInt8Range(n);
  if (!range)
    return range.takeError();
  auto geom = resolveConvGeometry(n, llvm::ArrayRef(xt.shape).drop_front(2),
                                  llvm::ArrayRef(wt.shape).drop_front(2));
  if (!geom)
    return geom.takeError();
  auto plane = lir::int8PaddedPlane(n);
  if (!plane)
    return plane.takeError();
  if (!args.temp)
    return nodeError(n, "the int8 depthwise kernel needs its plane buffer");
  const DepthwiseDims s = DepthwiseDims::of(xt.shape, wt.shape, yt.shape, *geom);
  const int64_t multiplier = s.O / s.C, PW = plane->cols;
  Int8Channels channels = int8Channels(n, s.O, false, *range);
  llvm::Value *biasTable = ir.table(channels.bias, "int8.bias");
  Requantizer requant(ir, channels.multipliers, channels.sumBounds, yt.quant.zeroPoints[0]);
  if (args.strategy.tile) {
    emitChannelBlocks(kb, args, ir, s, *plane, biasTable, requant, *range);
    return llvm::Error::success();
  }
  if (args.strategy.int8DepthwiseRowLanes()) {
    if (multiplier != 1 || s.dw != 1 || s.sw > 2)
      return nodeError(n, "int8 depthwise rows on the lanes need one output per channel, "
                          "unit column dilation and column stride 1 or 2");
    emitRowLanes(kb, args, ir, s, *plane, biasTable, requant, *range);
    return llvm::Error::success();
  }
  llvm::Type *i8 = b.getInt8Ty(), *i16 = b.getInt16Ty(), *i32 = b.getInt32Ty();
  llvm::Value *x = args.inputs[0], *w = args.inputs[1], *y = args.outputs[0];
  llvm::Value *planeBuf = args.temp;
  const int32_t inOffset = -xt.quant.zeroPoints[0];

  // The border stays 0 for every channel: only the interior is rewritten.
  kb.loop(plane->rows * PW, [&](llvm::Value *i) { kb.store(b.getInt16(0), planeBuf, i); });
  kb.nest({s.N, s.C}, [&](llvm::ArrayRef<llvm::Value *> nc) {
    emitInt8PlaneInterior(ir, x, xt.shape, nc[0], nc[1], inOffset, planeBuf, PW, s.ph, s.pw,
                          args.strategy.dot == lir::Int8Dot::ArmDsp);
    forEachIndex(kb, multiplier, [&](llvm::Value *m) {
      llvm::Value *o = b.CreateAdd(b.CreateMul(nc[1], kb.idx(multiplier)), m);
      llvm::Value *bias = kb.load(i32, biasTable, o);
      const bool unrolled = s.KH * s.KW <= kUnrolledTaps;
      const bool armDsp = unrolled && args.strategy.dot == lir::Int8Dot::ArmDsp;
      const bool pairs = armDsp && s.dw == 1 && !args.strategy.tileCols;
      // The Arm DSP's packed weights and the bias doubled: the sums are then
      // twice the sums, which the requantizer takes without a shift.
      const bool doubled = armDsp && (pairs || args.strategy.tileCols == 2) &&
                           requant.takesDoubledSums();
      if (doubled)
        bias = b.CreateShl(bias, ir.i32(1));
      llvm::SmallVector<llvm::Value *, kUnrolledTaps> weights;
      if (unrolled)
        for (int64_t t = 0; t < s.KH * s.KW; ++t) {
          llvm::Value *wt =
              ir.widen(kb.load(i8, w, b.CreateAdd(b.CreateMul(o, kb.idx(s.KH * s.KW)), kb.idx(t))));
          weights.push_back(doubled ? b.CreateShl(wt, ir.i32(1)) : wt);
        }
      // (lo, hi) as the low and high int16 of a word.
      auto pairOf = [&](llvm::Value *lo, llvm::Value *hi) {
        return b.CreateOr(b.CreateAnd(lo, ir.i32(0xFFFF)), b.CreateShl(hi, ir.i32(16)));
      };
      // (w[kw], w[kw + 1]) per row.
      llvm::SmallVector<llvm::Value *, kUnrolledTaps> weightPairs;
      if (pairs)
        for (int64_t kh = 0; kh < s.KH; ++kh)
          for (int64_t kw = 0; kw < s.KW; kw += 2)
            weightPairs.push_back(pairOf(weights[kh * s.KW + kw],
                                         kw + 1 < s.KW ? weights[kh * s.KW + kw + 1] : ir.i32(0)));
      auto word = [&](llvm::Value *at) {
        return b.CreateAlignedLoad(i32, kb.gep(i16, planeBuf, at), llvm::Align(2));
      };
      auto dsp = [&](llvm::Intrinsic::ID id, llvm::Value *x, llvm::Value *w, llvm::Value *acc) {
        return b.CreateIntrinsic(id, {}, {x, w, acc});
      };
      auto store = [&](llvm::Value *acc, llvm::Value *oh, llvm::Value *ow) {
        kb.store(ir.clampToI8(requant.apply(acc, o, doubled), range->min, range->max), y,
                 kb.linear({nc[0], o, oh, ow}, {s.O * s.OH * s.OW, s.OH * s.OW, s.OW, 1}));
      };
      if (args.strategy.tileCols == 2) {
        // A 3x3 window row (x0, x1, x2) times (w0, w1, w2) is SMLAD of
        // (x0, x1) by (w0, w1) and SMLABT of x2 by the high half of (w1, w2).
        // Its neighbour at stride 1 takes x1 * w0 (SMLATB) and (x2, x3) by
        // (w1, w2); at stride 2, the same two as its own row at x2.
        using namespace llvm::Intrinsic;
        llvm::Value *front[3], *back[3];
        for (int64_t kh = 0; kh < 3; ++kh) {
          front[kh] = pairOf(weights[kh * 3], weights[kh * 3 + 1]);
          back[kh] = pairOf(weights[kh * 3 + 1], weights[kh * 3 + 2]);
        }
        auto window = [&](llvm::Value *corner, int64_t kh, llvm::Value *acc) {
          llvm::Value *at = b.CreateAdd(corner, kb.idx(kh * PW));
          acc = dsp(arm_smlad, word(at), front[kh], acc);
          return dsp(arm_smlabt, word(b.CreateAdd(at, kb.idx(2))), back[kh], acc);
        };
        if (s.OW / 2)
          kb.loop(s.OH, [&](llvm::Value *oh) {
            kb.loop(s.OW / 2, [&](llvm::Value *pair) {
              llvm::Value *ow = b.CreateMul(pair, kb.idx(2));
              llvm::Value *corner = kb.linear({oh, ow}, {s.sh * PW, s.sw});
              llvm::Value *acc0 = bias, *acc1 = bias;
              for (int64_t kh = 0; kh < 3; ++kh) {
                acc0 = window(corner, kh, acc0);
                llvm::Value *at = b.CreateAdd(corner, kb.idx(kh * PW));
                if (s.sw == 1) {
                  acc1 = dsp(arm_smlatb, word(at), front[kh], acc1);
                  acc1 = dsp(arm_smlad, word(b.CreateAdd(at, kb.idx(2))), back[kh], acc1);
                } else {
                  acc1 = window(b.CreateAdd(corner, kb.idx(2)), kh, acc1);
                }
              }
              store(acc0, oh, ow);
              store(acc1, oh, b.CreateAdd(ow, kb.idx(1)));
            });
            // A long row stays rolled: LLVM's own unroll by 2 (4 outputs a
            // step) spilled the weight pairs and the requantizer's constants
            // on both cores, more on the M7. A short one it unrolls whole,
            // which saves more than the spills cost.
            if (s.OW / 2 >= kRolledPairs)
              kb.unrollLoop(1);
          });
        if (s.OW / 2 >= kRolledPairs)
          kb.unrollLoop(1);
        if (s.OW % 2)
          kb.loop(s.OH, [&](llvm::Value *oh) {
            llvm::Value *corner = kb.linear({oh, kb.idx(s.OW - 1)}, {s.sh * PW, s.sw});
            llvm::Value *acc = bias;
            for (int64_t kh = 0; kh < 3; ++kh)
              acc = window(corner, kh, acc);
            store(acc, oh, kb.idx(s.OW - 1));
          });
        return;
      }
      auto pixel = [&](llvm::ArrayRef<llvm::Value *> hw) {
        llvm::Value *corner = kb.linear({hw[0], hw[1]}, {s.sh * PW, s.sw});
        auto tap = [&](llvm::Value *kh, llvm::Value *kw) {
          return b.CreateSExt(
              kb.load(i16, planeBuf, b.CreateAdd(corner, kb.linear({kh, kw}, {s.dh * PW, s.dw}))),
              i32);
        };
        llvm::Value *acc = bias;
        if (pairs) {
          for (int64_t kh = 0; kh < s.KH; ++kh)
            for (int64_t kw = 0; kw < s.KW; kw += 2) {
              // Taps kw and kw + 1: one (unaligned) 32-bit load.
              llvm::Value *at = b.CreateAdd(corner, kb.idx(kh * s.dh * PW + kw));
              acc = dsp(llvm::Intrinsic::arm_smlad, weightPairs[kh * ((s.KW + 1) / 2) + kw / 2],
                        word(at), acc);
            }
        } else if (unrolled) {
          for (int64_t kh = 0; kh < s.KH; ++kh)
            for (int64_t kw = 0; kw < s.KW; ++kw)
              acc = b.CreateAdd(acc,
                                b.CreateMul(weights[kh * s.KW + kw], tap(kb.idx(kh), kb.idx(kw))));
        } else {
          acc = kb.loopCarried(
              s.KH * s.KW, {acc}, [&](llvm::Value *t, llvm::ArrayRef<llvm::Value *> a) {
                llvm::Value *wv =
                    ir.widen(kb.load(i8, w, b.CreateAdd(b.CreateMul(o, kb.idx(s.KH * s.KW)), t)));
                llvm::Value *x = tap(b.CreateUDiv(t, kb.idx(s.KW)), b.CreateURem(t, kb.idx(s.KW)));
                return llvm::SmallVector<llvm::Value *, 32>{b.CreateAdd(a[0], b.CreateMul(wv, x))};
              })[0];
        }
        store(acc, hw[0], hw[1]);
      };
      kb.nest({s.OH, s.OW}, pixel);
    });
  });
  return llvm::Error::success();
}

} // namespace codegen
} // namespace kiln
