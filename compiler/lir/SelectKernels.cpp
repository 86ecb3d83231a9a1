//===- SelectKernels.cpp - Choosing each instruction's kernel -------------===//

#include "compiler/lir/SelectKernels.h"
#include "compiler/lir/SelectInt8Kernels.h"
#include "compiler/lir/ConvShape.h"
#include "compiler/lir/RegisterTiles.h"
#include "compiler/lir/Winograd.h"
#include "compiler/ops/OpGeometry.h"
#include "compiler/ops/OpViews.h"
#include "compiler/ops/QuantizedTypes.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <optional>

namespace kiln {
namespace lir {

namespace {

/// Output rows narrower than this run depthwise with channels on the lanes:
/// a row of the widest vectors' 16 lanes, or two, still fills them well.
constexpr int64_t kNarrowRow = 32;

/// The fewest columns of a constant MatMul B that it is packed in strips
/// for (Packing::MatMulStrips): rows 1 KB apart or more.
constexpr int64_t kMatMulStripMinColumns = 256;


/// Whether `w` is constant f32 Conv weights that only Convs reading them as
/// weights use, each of them one that `packs`.
bool packableWeights(const Graph &g, const Value *w,
                     llvm::function_ref<bool(const Node &)> packs) {
  if (w->getType().dtype != DType::F32 || w->getType().rank() != 4)
    return false;
  return packableConstant(g, w, [&](const Node &u) {
    if (!u.is(OpKind::Conv))
      return false;
    ConvView conv(u);
    return conv.weights() == w && conv.input() != w && conv.bias() != w && packs(u);
  });
}

/// Whether every use of `w` is as the weights of a convolution the kernels
/// read tap-major, all of one group count.
bool packableConvWeights(const Graph &g, const Value *w) {
  return packableWeights(g, w, [&](const Node &u) {
    return !isDepthwiseConv(u) && ConvView(u).group() == ConvView(*g.getUsers(w).front()).group();
  });
}

/// Whether depthwise `conv` can run with a block of kConvPackBlock channels
/// on the vector lanes instead of one image row: when rows are too narrow to
/// fill vectors (and one output channel per input channel).
bool channelBlockFits(const Node &conv) {
  const TensorType &in = ConvView(conv).input()->getType();
  const TensorType &out = conv.getOutput()->getType();
  return out.rank() == 4 && out.shape[1] == in.shape[1] && out.shape[3] < kNarrowRow;
}

/// Whether depthwise `conv` has rows too narrow for the lanes of a vector
/// target (channelBlockFits): it takes flat planes or channel blocks, not
/// output rows on the lanes.
bool narrowOnVectors(const Node &conv, const LIROptions &opts) {
  return opts.vectorLanes > 1 && channelBlockFits(conv);
}

/// Where the flat-plane kernel beats the channel blocks: on targets of 16
/// lanes or more, whose channel blocks transpose 16 x 16 (four stages of
/// zmm shuffles in and out), and windows of up to 9 taps. A tap's vector is
/// lanes of two aligned ones (a shuffle): no loads that span two cache
/// lines. On Zen 5 (znver5), KWS's 3x3 layers 2.7 -> 1.2 us (unaligned
/// loads of 8 lanes before; 16 such lanes were slower still), the model
/// 33.5 -> 28.4 us; summing each kernel column over rows before shifting
/// (4 shuffles a vector for 3x3, not 8), 7x7 planes 28% and 25x5 ones 8%
/// faster again. Past 9 taps the weights no longer stay in registers:
/// mnasnet1_0's 5x5 layers ran up to 1.9x slower flat than as channel
/// blocks.
constexpr int64_t kFlatPlaneTargetLanes = 16;
constexpr int64_t kFlatPlaneLanes = 16;
constexpr int64_t kMaxFlatPlaneTaps = 9;

/// Whether depthwise `conv`, whose rows are too narrow for the lanes, runs
/// on flat planes instead of channel blocks (KernelStrategy::DepthwisePlane):
/// unit strides, output rows as long as the input's, small windows. No
/// transposes in or out; lanes are wasted only at the end of a plane.
bool takesFlatPlanes(const Node &conv, const LIROptions &opts) {
  if (!narrowOnVectors(conv, opts) || opts.vectorLanes < kFlatPlaneTargetLanes)
    return false;
  ConvShape s = ConvShape::of(conv);
  return flatPlaneFits(s) && s.taps() <= kMaxFlatPlaneTaps;
}

/// Whether depthwise `conv` takes the channel-block strategy: narrow rows
/// on a vector target, where flat planes do not serve.
bool takesChannelBlocks(const Node &conv, const LIROptions &opts) {
  return narrowOnVectors(conv, opts) && !takesFlatPlanes(conv, opts);
}

/// Whether every use of `w` is as the weights of a channel-block depthwise
/// Conv: packed tap-major over all its channels (one group), a block's
/// weights for one tap are then one vector, instead of a gather of 16 floats
/// `taps` apart.
bool packableDepthwiseWeights(const Graph &g, const Value *w, const LIROptions &opts) {
  return packableWeights(g, w, [&](const Node &u) {
    return isDepthwiseConv(u) && takesChannelBlocks(u, opts);
  });
}

/// Window taps the plane-wise pooling kernel unrolls at most (16 x 16).
constexpr int64_t kMaxPlanePoolTaps = 256;

/// The strategy of `pool` (MaxPool, AveragePool): the plane-wise vector
/// kernel for f32 over two spatial dimensions, separable where that reads
/// fewer taps an output (the rows of a window: KH taps read, one written, for
/// each of the column stride's inputs an output spans; then KW), if the taps
/// it unrolls are at most kMaxPlanePoolTaps (a huge window would be gigabytes
/// of IR; a global pool loops instead); else the generic kernel.
KernelStrategy poolStrategy(const Node &pool) {
  if (!pool.is(OpKind::MaxPool) && !pool.is(OpKind::AveragePool))
    return KernelStrategy::genericPool();
  WindowView window(pool);
  const TensorType &in = window.input()->getType();
  if (in.dtype != DType::F32 || in.rank() != 4)
    return KernelStrategy::genericPool();
  if (isGlobalPool(pool))
    return KernelStrategy::planePool();
  int64_t kh = window.kernelShape(0), kw = window.kernelShape(1), sw = window.strides(1);
  bool separable = kh > 1 && kw > 1 && sw * (kh + 1) + kw < kh * kw;
  int64_t taps = separable ? kh + kw : kh * kw;
  return taps <= kMaxPlanePoolTaps ? KernelStrategy::planePool(separable)
                                   : KernelStrategy::genericPool();
}

/// The packing of Conv weights `w`, which every user reads (see
/// packableConvWeights).
WeightsPacking choosePacking(const Graph &g, const Value *w, const LIROptions &opts) {
  std::vector<Node *> users = g.getUsers(w);
  if (!opts.winograd ||
      !llvm::all_of(users, [](const Node *u) { return isWinogradConv(*u); }))
    return {Packing::ConvTapMajor, ConvView(*users.front()).group()};
  // Weights shared by convolutions that want different tiles (rare) take the
  // smaller tile.
  int64_t m = opts.winogradTile;
  if (!m) {
    m = 4;
    for (const Node *u : users)
      m = std::min(m, chooseWinogradTile(*u, opts.vectorLanes));
  }
  return {winogradPacking(m, winogradTileFor(w->getType().shape, m).isLine()), 1};
}

/// Bytes of a block of a Conv's packed panels at most (lir::convPanelBytes):
/// 7x7 pixels of K = 4608 (512 channels, 3x3) in one block.
constexpr int64_t kPanelBlockBytes = 1024 * 1024;

/// Weights of a strided Conv from which it reads packed panels (panelPixels):
/// more than fit a 1 MiB L2 beside its input.
constexpr int64_t kStridedPanelWeightBytes = 1024 * 1024;

/// Output planes of at most this many pixels read packed panels.
constexpr int64_t kPanelPixels = 64;

/// Pixels per block of `conv`'s packed panels (KernelStrategy::Direct and
/// Pointwise), or 0 when it reads its input in place or from a padded copy.
/// Panels put the output channels on the lanes, and a tile's K loop then
/// reads one run of its pixels instead of a cache line per input channel
/// (and tap): on small planes (7x7) that is faster; on 14x14 and larger
/// planes it measured no faster than the input read in place, and on 28x28
/// and larger, pixels on the lanes are faster still. A strided Conv's panel
/// copies each tap of a pixel apart, 2.25 floats per input float for a 3x3
/// of stride 2: read in place, or from the padded copy split into column
/// phases, resnet8_cifar was 5-6% faster and resnet18's strided layers
/// 2-15% (Zen 5, with AVX-512 and AVX2), before panels prefetched weights.
/// Strided Convs with more weights than kStridedPanelWeightBytes are the
/// exception, on planes of any size: read in place, every channel tile
/// streams its weights (for K = 4608, 590 KB) from memory through L2 once
/// per pixel tile, while panels run K in blocks that stay in L1 and
/// prefetch the next block (ConvKernel.cpp). resnet50's two strided layers
/// to 7x7 took 1537 and 1383 us in place and 1296 and 1258 with panels,
/// resnet18's 3x3 of stride 2 695 and 584; Inception-v3's 3x3 of stride 2
/// from 288 to 384 channels, 35x35 to 17x17, 3.9 ms and 3.6.
/// A Conv of one input channel reads one plane, a few lines per tile, and
/// its panel would copy every tap of every pixel: ds_cnn_kws' first Conv
/// (10x4, stride 2, 49x10 -> 25x5) made the model 10% slower with one.
int64_t panelPixels(const Node &conv, const LIROptions &opts) {
  ConvView v(conv);
  const TensorType &w = v.weights()->getType(), &y = conv.getOutput()->getType();
  int64_t pixels = y.shape[2] * y.shape[3];
  bool strided = v.strides(0) > 1 || v.strides(1) > 1;
  int64_t reduction = w.shape[1] * w.shape[2] * w.shape[3];
  int64_t weightBytes = w.shape[0] * reduction * int64_t(sizeof(float));
  if (opts.vectorLanes == 1 ||
      (strided ? weightBytes < kStridedPanelWeightBytes : pixels > kPanelPixels))
    return 0;
  if (w.shape[1] == 1)
    return 0;
  return std::min(pixels, std::max(kMinPanelPixels,
                                   kPanelBlockBytes / (reduction * int64_t(sizeof(float)))));
}

/// Output pixels (over the batch) from which a Conv whose weights are not
/// packed at compile time runs as Winograd all the same, transforming them
/// each call: per pair of channels the transform costs about what the
/// products of 16 pixels do.
constexpr int64_t kRunTimeWinogradPixels = 256;

/// Whether Conv `conv`, whose weights are not packed at compile time, runs
/// as Winograd of run-time weights: where Winograd fits, on vector targets
/// (on a scalar core U in the temp would cost a microcontroller RAM), over
/// outputs large enough that the transform is cheap next to the products it
/// saves.
bool transformsWinogradWeights(const Node &conv, const LIROptions &opts) {
  const TensorType &y = conv.getOutput()->getType();
  return opts.winograd && opts.vectorLanes > 1 && isWinogradConv(conv) &&
         y.shape[0] * y.shape[2] * y.shape[3] >= kRunTimeWinogradPixels;
}

/// The strategy of a non-depthwise Conv whose weights are stored `weights`.
KernelStrategy convStrategy(const Node &conv, Packing weights, const LIROptions &opts) {
  llvm::ArrayRef<int64_t> wShape = ConvView(conv).weights()->getType().shape;
  if (int64_t m = winogradTileOf(weights))
    return KernelStrategy::winogradConv(winogradTileFor(wShape, m));
  if (weights == Packing::None && transformsWinogradWeights(conv, opts)) {
    // The tile choosePacking would take for constant weights.
    int64_t m = opts.winogradTile ? opts.winogradTile : chooseWinogradTile(conv, opts.vectorLanes);
    m = winogradTileOf(winogradPacking(m, winogradTileFor(wShape, m).isLine()));
    return KernelStrategy::winogradConv(winogradTileFor(wShape, m), /*transformsWeights=*/true);
  }
  if (weights != Packing::ConvTapMajor)
    return KernelStrategy::direct(false);
  ConvView v(conv);
  const TensorType &w = v.weights()->getType();
  if (v.group() > 1)
    return KernelStrategy::grouped();
  bool unpadded = true;
  for (int i = 0; i < 4; ++i)
    unpadded &= !v.pads(i);
  if (unpadded && w.shape[2] == 1 && w.shape[3] == 1)
    return KernelStrategy::pointwise(panelPixels(conv, opts));
  return KernelStrategy::direct(true, panelPixels(conv, opts));
}

/// The share of the (output index, kernel index) pairs of one axis of a
/// Conv (`out` outputs, `taps` taps, of an input of `in`) whose tap reads
/// padding.
double paddingShare(int64_t out, int64_t taps, int64_t stride, int64_t padBegin,
                    int64_t dilation, int64_t in) {
  int64_t padding = 0;
  for (int64_t o = 0; o < out; ++o)
    for (int64_t k = 0; k < taps; ++k)
      padding += !tapReadsInput(o, k, stride, padBegin, dilation, in);
  return double(padding) / double(out * taps);
}

/// `s` with the register tile of Conv `conv` (convStrategy). A Conv that is
/// not 2-D keeps none: its kernel reports it.
KernelStrategy withRegisterTile(const Node &conv, KernelStrategy s, const LIROptions &opts) {
  ConvView v(conv);
  if (v.input()->getType().rank() != 4 || v.weights()->getType().rank() != 4 ||
      conv.getOutput()->getType().rank() != 4)
    return s;
  if (s.is(KernelStrategy::Kind::Winograd)) {
    s.registerTile = winogradRegisterTile(conv, s.winograd, opts);
    return s;
  }
  std::optional<PaddedInput> padded = paddedInput(conv, s);
  s.registerTile = convRegisterTile(conv, s, padded ? &*padded : nullptr, opts);
  // Tiles of one output row of a padded copy can skip rows: not panels, not
  // a plane walked as one row, not a span of rows.
  using Kind = KernelStrategy::Kind;
  const ConvShape shape = ConvShape::of(conv);
  const ConvRows walk = convRows(shape, padded ? &*padded : nullptr, s);
  const bool rowTiles = (s.is(Kind::Direct) || s.is(Kind::Grouped)) && padded &&
                        !walk.panels && walk.rowLen == shape.OW && !s.registerTile.span;
  s.skipsPaddingRows =
      rowTiles && paddingShare(shape.OH, shape.KH, shape.sh, shape.pt, shape.dh, shape.H) >=
                      kPaddingTapsShare;
  // Columns: tiles of output channels on the lanes, at constant columns (not
  // a row cut into pixel blocks).
  const RegisterTile &tile = s.registerTile;
  s.skipsPaddingColumns =
      rowTiles && tile.channelsOnLanes && !(tile.block && walk.numRows == 1) &&
      (shape.OW + tile.rows - 1) / tile.rows <= kMaxClippedRowTiles &&
      paddingShare(shape.OW, shape.KW, shape.sw, shape.pl, shape.dw, shape.W) >=
          kPaddingTapsShare;
  return s;
}

/// Whether `n` is a MatMul of f32 matrices, vectors or batches of them (the
/// Gemm kernel's); its kernel reports the others.
bool f32MatMul(const Node &n) {
  if (!n.is(OpKind::MatMul))
    return false;
  MatMulView m(n);
  return llvm::all_of(llvm::ArrayRef<const Value *>{m.a(), m.b()}, [](const Value *v) {
    return v->getType().dtype == DType::F32 && v->getType().rank() >= 1;
  });
}

/// Whether the B of f32 MatMul `n` is a constant matrix that only f32
/// MatMuls read, each once and as B, in strips of `n`'s width: a tied weight
/// is packed once for all its readers.
bool packableMatMulB(const Graph &g, const Node &n, const RegisterTile &tile,
                     const LIROptions &opts) {
  const Value *b = MatMulView(n).b();
  return b->getType().rank() == 2 && packableConstant(g, b, [&](const Node &u) {
           if (!f32MatMul(u) || MatMulView(u).b() != b || llvm::count(u.getInputs(), b) != 1)
             return false;
           if (&u == &n)
             return true;
           RegisterTile t = matMulRegisterTile(u, opts);
           return t.rows && t.vecs == tile.vecs;
         });
}

} // namespace

bool packableConstant(const Graph &g, const Value *w,
                      llvm::function_ref<bool(const Node &)> readsPacked) {
  if (!w->isConstant() ||
      llvm::any_of(g.getOutputs(), [&](const GraphOutput &o) { return o.value == w; }))
    return false;
  std::vector<Node *> users = g.getUsers(w);
  return !users.empty() &&
         llvm::all_of(users, [&](const Node *u) { return readsPacked(*u); });
}

bool isUnitPointwiseConv(const Node &n) {
  if (!n.is(OpKind::Conv))
    return false;
  ConvView conv(n);
  const TensorType &x = conv.input()->getType(), &w = conv.weights()->getType();
  if (x.rank() != 4 || w.rank() != 4 || w.shape[2] != 1 || w.shape[3] != 1)
    return false;
  auto geom = resolveConvGeometry(n, llvm::ArrayRef(x.shape).drop_front(2),
                                  llvm::ArrayRef(w.shape).drop_front(2));
  if (!geom) {
    llvm::consumeError(geom.takeError());
    return false;
  }
  return llvm::all_of(geom->strides, [](int64_t s) { return s == 1; }) &&
         llvm::all_of(geom->padsBegin, [](int64_t p) { return p == 0; }) &&
         llvm::all_of(geom->padsEnd, [](int64_t p) { return p == 0; });
}

KernelSelection selectKernels(const Graph &g, const LIROptions &opts) {
  KernelSelection sel;
  for (const Node *n : g.getNodes()) {
    // An op with an integer kernel computes TFLite's integer semantics when
    // it takes or makes quantized int8 tensors (or uint8 ones: kiln.Quantize
    // and kiln.Dequantize at a uint8 model's edges); the other ops on int8
    // only move bytes, which their kernels for any dtype do.
    auto quantizedInt8 = [](const Value *v) {
      return v && (v->getType().dtype == DType::I8 || v->getType().dtype == DType::U8) &&
             v->getType().quant.isQuantized();
    };
    if (n->getDef().hasTrait(kInt8KernelTrait) &&
        ((n->getNumInputs() && quantizedInt8(n->getInput(0))) ||
         quantizedInt8(n->getOutput()))) {
      selectInt8Kernel(g, *n, opts, sel);
      continue;
    }
    if (getOpDef(n->getKind()).kernel == KernelFamily::Pool) {
      sel.strategies[n] = poolStrategy(*n);
      continue;
    }
    if (f32MatMul(*n)) {
      RegisterTile tile = matMulRegisterTile(*n, opts);
      int64_t strip = int64_t(tile.vecs) * opts.vectorLanes;
      const Value *b = MatMulView(*n).b();
      bool packed = tile.rows && packableMatMulB(g, *n, tile, opts) &&
                    b->getType().shape[1] >= kMatMulStripMinColumns;
      if (packed)
        sel.weights[b] = {Packing::MatMulStrips, 1, strip};
      KernelStrategy gemm = KernelStrategy::gemm(packed ? strip : 0);
      gemm.registerTile = tile;
      sel.strategies[n] = gemm;
      continue;
    }
    if (!n->is(OpKind::Conv))
      continue;
    if (isDepthwiseConv(*n)) {
      // On a scalar core the channel block is several times the code for no
      // speed.
      if (!narrowOnVectors(*n, opts)) {
        sel.strategies[n] = KernelStrategy::depthwiseRows();
        continue;
      }
      if (takesFlatPlanes(*n, opts)) {
        sel.strategies[n] = KernelStrategy::depthwisePlane(kFlatPlaneLanes);
        continue;
      }
      const Value *w = ConvView(*n).weights();
      bool packed = packableDepthwiseWeights(g, w, opts);
      if (packed)
        sel.weights[w] = {Packing::ConvTapMajor, 1};
      sel.strategies[n] = KernelStrategy::depthwiseChannelBlock(kConvPackBlock, packed);
      continue;
    }
    const Value *w = ConvView(*n).weights();
    Packing packing = Packing::None;
    if (packableConvWeights(g, w)) {
      auto it = sel.weights.find(w);
      if (it == sel.weights.end())
        it = sel.weights.insert({w, choosePacking(g, w, opts)}).first;
      packing = it->second.packing;
    }
    sel.strategies[n] = withRegisterTile(*n, convStrategy(*n, packing, opts), opts);
  }
  unpackSharedInt8Weights(g, sel);
  return sel;
}

} // namespace lir
} // namespace kiln
