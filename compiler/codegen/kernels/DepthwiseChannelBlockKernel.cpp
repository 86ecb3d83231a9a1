//===- DepthwiseChannelBlockKernel.cpp - Depthwise conv, channels on lanes ===//
//
// Depthwise convolution of images whose rows are too narrow to fill vector
// lanes (lir::KernelStrategy::DepthwiseChannelBlock: 25x5 keyword spotting
// features, MobileNet's 14x14 and 7x7 stages; on targets of 16 lanes only
// the strided ones and larger windows, the others run as flat planes,
// DepthwisePlaneKernel.cpp), with a block of the strategy's tile (16)
// channels on the lanes instead. Per block:
//  1. the block's input is copied pixel-major, with its padding, into the
//     temp (lir::PaddedInput): `lanes` channels' rows are
//     loaded and transposed in registers, so a pixel's 16 channels become
//     consecutive floats;
//  2. every output pixel is its taps' pixel vectors times the taps' weight
//     vectors, any stride alike: one load and one FMA per tap and vector;
//  3. a row's results are transposed back to channel rows and stored NCHW.
// The copy and the transposes cost a few shuffles per element; in exchange
// no lane is wasted and per-channel loop overheads are shared by 16
// channels. The padding is written once per call: blocks only overwrite the
// interior.
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/kernels/ConvInput.h"
#include "compiler/codegen/kernels/IRAlgebra.h"
#include "compiler/codegen/kernels/RegisterTile.h"
#include "compiler/ops/ActivationOps.h"

namespace kiln {
namespace codegen {

llvm::Error emitDepthwiseChannelBlock(KernelBuilder &kb, const KernelArgs &args) {
  const Node &n = args.node;
  ConvShape s = ConvShape::of(n);
  const lir::PaddedInput *layout = args.padded;
  if (!layout || !args.temp)
    return nodeError(n, "channel-block depthwise convolution without its temp");
  auto &b = kb.b;
  llvm::Type *f32 = b.getFloatTy();
  const unsigned lanes = kb.vec.lanes;
  const int64_t block = args.strategy.tile, subs = block / lanes;
  const int64_t Wp = layout->phaseWidth, Hp = layout->rows;
  const bool packed = args.strategy.packedWeights;
  llvm::Function *fn = b.GetInsertBlock()->getParent();
  fn->setName(fn->getName() + ".dwc" + std::to_string(block) + "v" + std::to_string(lanes));

  const Activation &act = fusedActivation(n);
  llvm::Value *x = args.inputs[0], *w = args.inputs[1], *y = args.outputs[0];
  llvm::Value *bias = n.getNumInputs() > 2 ? args.inputs[2] : nullptr;
  llvm::Value *temp = args.temp;
  auto add = [&](llvm::Value *a, int64_t c) { return b.CreateAdd(a, kb.idx(c)); };
  auto mul = [&](llvm::Value *a, int64_t c) { return b.CreateMul(a, kb.idx(c)); };
  llvm::Value *zero = kb.splat(kb.f32(0), lanes);

  // The padding: rows above and below, columns left and right.
  auto zeroPixels = [&](llvm::Value *first, int64_t count) {
    kb.loop(count * subs, [&](llvm::Value *i) {
      kb.storeVec(zero, temp, b.CreateAdd(mul(first, block), mul(i, lanes)), lanes);
    });
  };
  zeroPixels(kb.idx(0), s.pt * Wp);
  zeroPixels(kb.idx((s.pt + s.H) * Wp), (Hp - s.pt - s.H) * Wp);
  kb.loop(s.H, [&](llvm::Value *ih) {
    llvm::Value *row = mul(add(ih, s.pt), Wp);
    zeroPixels(row, s.pl);
    zeroPixels(add(row, s.pl + s.W), Wp - s.pl - s.W);
  });

  auto blockBody = [&](llvm::Value *image, llvm::Value *c0, int64_t channels) {
    // Element index of channel c0 + c's plane, input and output.
    auto inPlane = [&](int64_t c) {
      return mul(add(b.CreateAdd(mul(image, s.C), c0), c), s.H * s.W);
    };
    auto outPlane = [&](int64_t c) {
      return mul(add(b.CreateAdd(mul(image, s.OC), c0), c), s.OH * s.OW);
    };
    // 1. In: per input row, `lanes` pixels x `lanes` channels at a time.
    kb.loop(s.H, [&](llvm::Value *ih) {
      llvm::Value *dstRow = mul(add(ih, s.pt), Wp);
      for (int64_t iw = 0; iw < s.W; iw += lanes) {
        unsigned pixels = static_cast<unsigned>(std::min<int64_t>(lanes, s.W - iw));
        for (int64_t sub = 0; sub < subs && sub * lanes < channels; ++sub) {
          llvm::SmallVector<llvm::Value *, 16> rows;
          for (int64_t c = sub * lanes; c < (sub + 1) * int64_t(lanes); ++c)
            rows.push_back(c < channels
                               ? kb.loadVec(x, add(b.CreateAdd(inPlane(c), mul(ih, s.W)), iw),
                                            lanes, pixels)
                               : zero);
          auto cols = transposeVectors(kb, rows, lanes);
          for (unsigned p = 0; p < pixels; ++p)
            kb.storeVec(cols[p], temp, add(mul(add(dstRow, s.pl + iw + p), block), sub * lanes),
                        lanes);
        }
      }
    });
    // 2. and 3. Per output row, `lanes` pixels at a time.
    auto loadChannels = [&](llvm::Value *base, int64_t stride, int64_t sub) {
      llvm::Value *v = llvm::PoisonValue::get(kb.vecType(lanes));
      if (lanes == 1)
        return sub < channels ? kb.load(f32, base, b.CreateAdd(mul(c0, stride), kb.idx(sub * stride)))
                              : kb.f32(0);
      for (unsigned l = 0; l < lanes; ++l) {
        int64_t c = sub * lanes + l;
        llvm::Value *e = c < channels ? kb.load(f32, base, add(mul(c0, stride), c * stride))
                                      : kb.f32(0);
        v = b.CreateInsertElement(v, e, uint64_t(l));
      }
      return v;
    };
    // Packed weights (lir::Packing::ConvTapMajor over one group, in blocks
    // of kConvPackBlock channels: the strategy's) hold a tap's channels of
    // the block side by side, zero past the last channel.
    llvm::SmallVector<llvm::SmallVector<llvm::Value *, 16>, 4> weights(subs);
    llvm::SmallVector<llvm::Value *, 4> biases;
    for (int64_t sub = 0; sub < subs; ++sub) {
      for (int64_t t = 0; t < s.taps(); ++t)
        weights[sub].push_back(
            packed ? kb.loadVec(w, add(mul(c0, s.taps()), t * block + sub * lanes), lanes, lanes)
                   : loadChannels(b.CreateGEP(f32, w, kb.idx(t)), s.taps(), sub));
      biases.push_back(bias ? loadChannels(bias, 1, sub) : zero);
    }
    kb.loop(s.OH, [&](llvm::Value *oh) {
      llvm::Value *inRow = mul(mul(oh, s.sh), Wp);
      for (int64_t ow = 0; ow < s.OW; ow += lanes) {
        unsigned pixels = static_cast<unsigned>(std::min<int64_t>(lanes, s.OW - ow));
        for (int64_t sub = 0; sub < subs && sub * lanes < channels; ++sub) {
          llvm::SmallVector<llvm::Value *, 16> acc(pixels, biases[sub]);
          for (int64_t kh = 0; kh < s.KH; ++kh)
            for (int64_t kw = 0; kw < s.KW; ++kw)
              for (unsigned p = 0; p < pixels; ++p) {
                int64_t col = (ow + p) * s.sw + kw * s.dw;
                llvm::Value *at = add(mul(add(inRow, kh * s.dh * Wp + col), block), sub * lanes);
                acc[p] = kb.fma(weights[sub][kh * s.KW + kw], kb.loadVec(temp, at, lanes, lanes),
                                acc[p]);
              }
          for (llvm::Value *&a : acc)
            a = emitActivation(kb, act, a);
          auto rows = transposeVectors(kb, acc, lanes);
          for (int64_t l = 0; l < lanes && sub * lanes + l < channels; ++l)
            kb.storeVec(rows[l], y, add(b.CreateAdd(outPlane(sub * lanes + l), mul(oh, s.OW)), ow),
                        pixels);
        }
      }
    });
  };

  int64_t fullBlocks = s.C / block, edge = s.C % block;
  forEachIndex(kb, s.N, [&](llvm::Value *image) {
    if (fullBlocks)
      forEachIndex(kb, fullBlocks, [&](llvm::Value *i) { blockBody(image, mul(i, block), block); });
    if (edge)
      blockBody(image, kb.idx(fullBlocks * block), edge);
  });
  return llvm::Error::success();
}

} // namespace codegen
} // namespace kiln
