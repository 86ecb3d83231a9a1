//===- SelectKernels.cpp - Choosing each instruction's kernel -------------===//

#include "compiler/lir/SelectKernels.h"
#include "compiler/lir/ConvShape.h"
#include "compiler/lir/RegisterTiles.h"
#include "compiler/lir/Winograd.h"
#include "compiler/ops/OpGeometry.h"
#include "compiler/ops/OpViews.h"
#include "compiler/ops/QuantizedTypes.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"

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

/// Whether constant `w` may be stored in a kernel's layout: no graph output
/// shows its bytes, and every node reading it reads it packed (`readsPacked`),
/// so that packing cannot surprise another reader.
bool packableConstant(const Graph &g, const Value *w,
                      llvm::function_ref<bool(const Node &)> readsPacked) {
  if (!w->isConstant() ||
      llvm::any_of(g.getOutputs(), [&](const GraphOutput &o) { return o.value == w; }))
    return false;
  std::vector<Node *> users = g.getUsers(w);
  return !users.empty() &&
         llvm::all_of(users, [&](const Node *u) { return readsPacked(*u); });
}

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
/// zmm shuffles in and out), in vectors of 8 lanes, and windows of up to 9
/// taps. Its taps read the plane at every offset, and a 64-byte vector
/// that does not start on a multiple of 16 floats spans two cache lines (a
/// 32-byte one less than half the time); past 9 taps the channel blocks'
/// aligned loads win. On Zen 4 (znver4): KWS's 3x3 layers 2.8-3.2 us as
/// channel blocks, 2.5-2.6 flat in 16 lanes, 2.3-2.5 in 8; mnasnet1_0's
/// 3x3 layers 25-40% faster flat, its 5x5 ones 10-60% slower. With AVX2
/// (8 lanes, 8 x 8 transposes) the two are even on KWS (2.3-2.7 us flat,
/// 2.4-2.5 as channel blocks), and the channel blocks stay.
constexpr int64_t kFlatPlaneTargetLanes = 16;
constexpr int64_t kFlatPlaneLanes = 8;
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

/// Whether `pool` (MaxPool, AveragePool) can run on the plane-wise vector
/// kernel: f32 over two spatial dimensions, and for AveragePool a divisor
/// that is the same for every window (no padding, or padding counted, and no
/// ceil_mode window past the padded input).
bool planePoolFits(const Node &pool) {
  if (!pool.is(OpKind::MaxPool) && !pool.is(OpKind::AveragePool))
    return false;
  WindowView window(pool);
  const TensorType &in = window.input()->getType();
  const TensorType &out = pool.getOutput()->getType();
  if (in.dtype != DType::F32 || in.rank() != 4)
    return false;
  // The kernel unrolls every tap of a window (a global pool loops instead):
  // a huge window would be gigabytes of IR.
  int64_t kh = window.kernelShape(0), kw = window.kernelShape(1);
  bool global = out.shape[2] == 1 && out.shape[3] == 1 && kh == in.shape[2] && kw == in.shape[3];
  if (!global && (kh > kMaxPlanePoolTaps || kw > kMaxPlanePoolTaps ||
                  kh * kw > kMaxPlanePoolTaps))
    return false;
  if (pool.is(OpKind::MaxPool))
    return true;
  bool padded = false, past = false;
  for (int d = 0; d < 2; ++d) {
    int64_t pb = window.pads(d), pe = window.pads(d + 2);
    padded |= pb || pe;
    past |= paddedExtent(in.shape[2 + d], pb, pe, out.shape[2 + d], window.strides(d),
                         window.kernelShape(d), 1) > in.shape[2 + d] + pb + pe;
  }
  return !past && (!padded || AveragePoolView(pool).countIncludePad() != 0);
}

/// Whether `n` is an int8 Conv that is not depthwise or an int8 MatMul.
bool int8GemmOp(const Node &n) {
  return (n.is(OpKind::Conv) && !isDepthwiseConv(n)) || n.is(OpKind::MatMul);
}

/// Whether int8 `n` is a 2-D Conv or a MatMul of matrices, the shapes the
/// GEMM kernel runs; the others have no int8 kernel.
bool int8GemmShapes(const Node &n) {
  size_t rank = n.is(OpKind::Conv) ? 4 : n.is(OpKind::MatMul) ? 2 : 0;
  return rank && n.getInput(0)->getType().rank() == rank &&
         n.getInput(1)->getType().rank() == rank;
}

/// Whether int8 GEMM `n`'s weights can be packed: constant int8 weights that
/// every reader reads as the weights of the same kind of op, so that one
/// packing serves them all.
bool int8WeightsPackable(const Graph &g, const Node &n) {
  const Value *w = n.getInput(1);
  if (w->getType().dtype != DType::I8 || w->getType().rank() != (n.is(OpKind::Conv) ? 4 : 2))
    return false;
  return packableConstant(g, w, [&](const Node &u) {
    return int8GemmOp(u) && u.getKind() == n.getKind() && u.getInput(0) != w &&
           (u.getNumInputs() < 3 || u.getInput(2) != w);
  });
}

/// The Arm DSP GEMM's unrolled loop over a row: at most this many SMLADs a
/// step (8 quads of a 2 x 2 or a 4 x 1 block), as many as a Cortex-M's
/// registers serve without spills.
constexpr int64_t kMaxUnrolledSmlads = 64;

/// Instructions a step of a rolled loop spends on the loop itself: the
/// counter's add, the compare and the branch, and the addresses' adds that
/// an unrolled body folds into its loads' offsets.
constexpr int64_t kLoopStepInstructions = 4;

/// The price of code: an unroll doubles only where the doubling saves at
/// least this many instructions per inference per byte of code it adds.
/// Then the 1x1 and 3x3 Convs of the MLPerf Tiny models keep 8 quads (their
/// layers are steps enough), while a layer whose row loop runs a few
/// thousand steps in all unrolls less or not at all, which keeps the
/// Cortex-M code within 2x of the portable kernels' (benchmarks/device).
constexpr int64_t kInstructionsPerCodeByte = 4;

/// Quads per step of int8 GEMM `n`'s loop over a row with the Arm DSP
/// (KernelStrategy::unroll), a block of `rows` x `cols`: doubled from 1
/// while each doubling saves, over all the layer's steps, at least
/// kInstructionsPerCodeByte instructions per byte of the quads it copies
/// (a quad: its SMLADs, SXTB16s and loads, 4 bytes each), up to
/// kMaxUnrolledSmlads and no further than the row's quads.
int64_t armDspUnroll(const Node &n, int64_t rows, int64_t cols) {
  const TensorType &w = n.getInput(1)->getType();
  int64_t taps = 1;
  if (n.is(OpKind::MatMul))
    taps = w.shape[0];
  else
    for (int64_t d : llvm::ArrayRef(w.shape).drop_front())
      taps *= d;
  const int64_t quads = llvm::divideCeil(taps, kInt8Quad);
  const int64_t steps =
      llvm::divideCeil(n.getOutput()->getType().numElements(), rows * cols) * quads;
  const int64_t quadBytes = 4 * (2 * rows * cols + 2 * rows + rows + cols);
  int64_t unroll = 1;
  while (2 * unroll * 2 * rows * cols <= kMaxUnrolledSmlads && unroll < quads &&
         steps * kLoopStepInstructions / (2 * unroll) >=
             kInstructionsPerCodeByte * unroll * quadBytes)
    unroll *= 2;
  return unroll;
}

/// Whether int8 Conv `n` suits SMMLA's blocks of 8 rows x 8 pixels, 16
/// accumulators of 2 x 2 sums (the 8 other vector registers hold a step's
/// row pairs and pixel pairs): 8 pixels or more, and whole pairs of a
/// group's rows (Int8RowsOctetPairs pairs the rows of all groups).
bool smmlaFits(const Node &n) {
  const TensorType &y = n.getOutput()->getType();
  const int64_t groups = ConvView(n).group();
  return y.rank() == 4 && y.shape[2] * y.shape[3] >= kSmmlaBlock &&
         (groups == 1 || n.getInput(1)->getType().shape[0] / groups % 2 == 0);
}

/// Where int8 GEMM `n` of strategy `s` reads its blocks' taps (Int8Columns):
/// for the Arm DSP's pixel pairs, runs of the input of a unit-stride 1x1
/// Conv without padding (two pixels or more, channels in pairs); with pixels
/// on the lanes, runs of the input of such a Conv, or of the padded planes
/// where every block's pixels are runs of them (column stride at most
/// kInt8RunStride, unit column dilation, whole blocks in one output row, or
/// for Vnni512 blocks of whole rows, a run of each, none overlapping the one
/// before; for Smmla, whole octets of channels: a group's channels padded to
/// an octet would multiply its taps); else gathered.
Int8Columns int8Columns(const Node &n, const KernelStrategy &s) {
  if (s.dot == Int8Dot::ArmDsp && s.tileCols == 2 && isUnitPointwiseConv(n)) {
    const TensorType &y = n.getOutput()->getType();
    const bool pairs =
        y.shape[2] * y.shape[3] >= 2 && n.getInput(1)->getType().shape[1] % 2 == 0;
    return pairs ? Int8Columns::InputRuns : Int8Columns::Gathered;
  }
  if (int8GemmPixelLanes(s.dot) == 1 || !n.is(OpKind::Conv))
    return Int8Columns::Gathered;
  if (isUnitPointwiseConv(n))
    return Int8Columns::InputRuns;
  if (s.dot == Int8Dot::Sdot)
    return Int8Columns::Gathered;
  ConvView v(n);
  const TensorType &x = v.input()->getType(), &w = v.weights()->getType(),
                   &y = n.getOutput()->getType();
  auto geom = resolveConvGeometry(n, llvm::ArrayRef(x.shape).drop_front(2),
                                  llvm::ArrayRef(w.shape).drop_front(2));
  if (!geom) {
    llvm::consumeError(geom.takeError());
    return Int8Columns::Gathered;
  }
  if (s.dot == Int8Dot::Smmla && w.shape[1] % kInt8Octet != 0)
    return Int8Columns::Gathered;
  const int64_t width = y.shape[3], pixels = y.shape[2] * width;
  const bool rowsOfBlocks = width % s.tileCols == 0;
  const bool blocksOfRows =
      s.dot == Int8Dot::Vnni512 && s.tileCols % width == 0 && pixels % s.tileCols == 0;
  bool runs = geom->strides[1] <= kInt8RunStride && geom->dilations[1] == 1 &&
              (rowsOfBlocks || blocksOfRows);
  return runs ? Int8Columns::PlaneRuns : Int8Columns::Gathered;
}

/// `s` with its columns for `n` (int8Columns).
KernelStrategy withColumns(const Node &n, KernelStrategy s) {
  s.columns = int8Columns(n, s);
  return s;
}

/// The portable int8 GEMM of `n`: the Arm DSP's pairs or scalar
/// multiply-adds, over packed weights or the weights as they are.
KernelStrategy portableInt8Gemm(const Node &n, Int8Dot dot, bool packed) {
  // One row of inputs (a fully connected layer) shares each weight by
  // nothing: four weight rows share the column instead.
  bool oneRow = n.is(OpKind::MatMul) && n.getInput(0)->getType().shape[0] == 1;
  const int64_t rows = oneRow ? 4 : 2, cols = oneRow ? 1 : 2;
  const int64_t unroll = dot == Int8Dot::ArmDsp ? armDspUnroll(n, rows, cols) : 0;
  return withColumns(n, KernelStrategy::int8Gemm(rows, cols, dot, packed, unroll));
}

/// Blocks of whole vectors of `lanes` pixels of Conv `n`'s output, the last
/// block overlapping the one before, `accumulators` vectors of sums (half
/// the vector registers): rows x 2 vectors, or rows x 1 where blocks of two
/// vectors would split an output row of an odd count of vectors (blocks in
/// one output row read runs) or would compute a quarter more pixels than
/// single vectors, which take a quarter more instructions a pixel (AArch64
/// Smlal: VWW's 3x3 planes, 16 pixels for 9 against 12, 7% fewer
/// instructions as 8 x 4; its 6x6 ones, 40 for 36, 13% more); none under a
/// vector of pixels.
std::optional<KernelStrategy> pixelLaneBlocks(const Node &n, int64_t lanes, int64_t accumulators,
                                              Int8Dot dot) {
  const TensorType &y = n.getOutput()->getType();
  int64_t width = y.rank() == 4 ? y.shape[3] : 0, pixels = width ? y.shape[2] * width : 0;
  auto computed = [&](int64_t block) { return llvm::alignTo(pixels, block); };
  bool singles = (width % (2 * lanes) != 0 && width % lanes == 0) ||
                 4 * computed(2 * lanes) > 5 * computed(lanes);
  if (pixels >= 2 * lanes && !singles)
    return withColumns(n, KernelStrategy::int8Gemm(accumulators / 2, 2 * lanes, dot, true));
  if (pixels >= lanes)
    return withColumns(n, KernelStrategy::int8Gemm(accumulators, lanes, dot, true));
  return std::nullopt;
}

/// Blocks of int8 MatMul `n` with its output channels on the lanes of
/// `dot` (Pmaddwd, Sdot, Vnni, Vnni512, Smlal; Int8Columns::ChannelLanes):
/// vectors of channels x input rows, at most half the vector registers of
/// sums (Smlal's sums of pair products take two registers a vector), the
/// vectors and rows split evenly into blocks (a block past the end repeats
/// the last vector or row); none where the channels fill no vector.
std::optional<KernelStrategy> channelLaneBlocks(const Node &n, Int8Dot dot,
                                                const LIROptions &opts) {
  const int64_t lanes = int8GemmPixelLanes(dot);
  const int64_t rows = n.getInput(0)->getType().shape[0];
  const int64_t channels = n.getInput(1)->getType().shape[1];
  if (channels < lanes)
    return std::nullopt;
  const int64_t accumulators =
      std::max<int64_t>(opts.vectorRegisters / (dot == Int8Dot::Smlal ? 4 : 2), 4);
  auto evenBlocks = [](int64_t extent, int64_t most) {
    return llvm::divideCeil(extent, llvm::divideCeil(extent, most));
  };
  // Rows share each vector of weights; up to 4 keep as many vectors of
  // channels sharing each row's broadcast quad.
  const int64_t blockRows = evenBlocks(rows, std::min<int64_t>(4, accumulators / 4));
  const int64_t vectors =
      evenBlocks(llvm::divideCeil(channels, lanes), accumulators / blockRows);
  KernelStrategy s = KernelStrategy::int8Gemm(vectors, blockRows, dot, true);
  s.columns = Int8Columns::ChannelLanes;
  return s;
}

/// The GEMM strategy of int8 `n` (int8GemmOp). Weights it cannot pack it
/// reads as they are, with scalar multiply-adds; the kernel names what it
/// cannot run (weights computed at run time, a 1-D Conv).
KernelStrategy int8GemmStrategy(const Graph &g, const Node &n, const LIROptions &opts) {
  bool packed = int8WeightsPackable(g, n);
  if (packed && (opts.int8Dot == Int8Dot::Pmaddwd || isVnni(opts.int8Dot)) &&
      n.is(OpKind::Conv)) {
    // VPDPBUSD where the block's quads are runs, on zmm's 16 pixels where
    // the target has them (and AVX-512's 32 registers, 16 of sums); a Conv
    // whose blocks gather pixel by pixel keeps VPMADDWD's pairs, half the
    // bytes to gather (AVX2's 16 registers, 8 of sums).
    if (opts.int8Dot == Int8Dot::Vnni512) {
      auto zmm = pixelLaneBlocks(n, kVnni512PixelLanes, 16, Int8Dot::Vnni512);
      if (zmm && zmm->columns != Int8Columns::Gathered)
        return *zmm;
    }
    std::optional<KernelStrategy> s = pixelLaneBlocks(n, kInt8PixelLanes, 8, Int8Dot::Pmaddwd);
    if (s && isVnni(opts.int8Dot)) {
      KernelStrategy vnni = *s;
      vnni.dot = Int8Dot::Vnni;
      vnni = withColumns(n, vnni);
      if (vnni.columns != Int8Columns::Gathered)
        return vnni;
    }
    if (s)
      return *s;
  }
  // 8 vectors of pair sums (16 of the 32 registers): 4 rows x 8 pixels.
  if (packed && opts.int8Dot == Int8Dot::Smlal && n.is(OpKind::Conv))
    if (auto s = pixelLaneBlocks(n, kSdotPixelLanes, 8, Int8Dot::Smlal))
      return *s;
  if (packed && n.is(OpKind::MatMul) && opts.int8Dot != Int8Dot::Scalar &&
      opts.int8Dot != Int8Dot::ArmDsp)
    if (auto s = channelLaneBlocks(
            n, opts.int8Dot == Int8Dot::Smmla ? Int8Dot::Sdot : opts.int8Dot, opts))
      return *s;
  if (packed && (opts.int8Dot == Int8Dot::Sdot || opts.int8Dot == Int8Dot::Smmla) &&
      n.is(OpKind::Conv)) {
    // SMMLA where every reader of the weights takes it with the same packing
    // (one packing serves them all); the other Convs SDOT.
    const KernelStrategy smmla =
        KernelStrategy::int8Gemm(kSmmlaBlock, kSmmlaBlock, Int8Dot::Smmla, true);
    const Packing packing = int8GemmPacking(n, withColumns(n, smmla));
    if (opts.int8Dot == Int8Dot::Smmla &&
        llvm::all_of(g.getUsers(n.getInput(1)), [&](const Node *u) {
          return smmlaFits(*u) && int8GemmPacking(*u, withColumns(*u, smmla)) == packing;
        }))
      return withColumns(n, smmla);
    const TensorType &y = n.getOutput()->getType();
    const int64_t lanes = kSdotPixelLanes;
    int64_t pixels = y.rank() == 4 ? y.shape[2] * y.shape[3] : 0;
    // 16 accumulators of 4 pixels: 4 rows x 16 pixels, or 8 rows x 4 where
    // the output has fewer than 16 pixels (of 32 vector registers, the rest
    // hold a step's columns and broadcast weights).
    if (pixels >= 4 * lanes)
      return withColumns(n, KernelStrategy::int8Gemm(4, 4 * lanes, Int8Dot::Sdot, true));
    if (pixels >= lanes)
      return withColumns(n, KernelStrategy::int8Gemm(8, lanes, Int8Dot::Sdot, true));
  }
  return portableInt8Gemm(
      n, packed && opts.int8Dot == Int8Dot::ArmDsp ? Int8Dot::ArmDsp : Int8Dot::Scalar, packed);
}

/// Weights that int8 GEMMs share are stored once, in one packing: where the
/// readers' strategies want different ones (a Conv of VNNI's blocks and one
/// too small for any, say), every reader reads them as they are.
void unpackSharedInt8Weights(const Graph &g, KernelSelection &sel) {
  llvm::SetVector<const Value *> mixed;
  for (const Node *n : g.getNodes()) {
    auto it = sel.strategies.find(n);
    if (it != sel.strategies.end() && it->second.is(KernelStrategy::Kind::Int8Gemm) &&
        it->second.packedWeights &&
        int8GemmPacking(*n, it->second) != sel.weights.lookup(n->getInput(1)).packing)
      mixed.insert(n->getInput(1));
  }
  for (const Value *w : mixed) {
    sel.weights.erase(w);
    for (const Node *u : g.getUsers(w))
      sel.strategies[u] = portableInt8Gemm(*u, Int8Dot::Scalar, /*packed=*/false);
  }
}

/// The lanes of an int8 Add, Sub or Mul whose operands have the output's
/// shape, on a target with vectors; 0 for the others (one element a step).
int64_t int8ElementwiseLanes(const Node &n, const LIROptions &opts) {
  if (opts.vectorLanes == 1 || !(n.is(OpKind::Add) || n.is(OpKind::Sub) || n.is(OpKind::Mul)))
    return 0;
  const Shape &y = n.getOutput()->getType().shape;
  for (const Value *v : n.getInputs())
    if (!v || v->getType().shape != y)
      return 0;
  return opts.vectorLanes;
}

/// The strategy of int8 LSTM `n` (Int8LSTMKernel.cpp). Where only it reads
/// its constant W and R (and its bias is constant, to fold the zero points
/// into), they are stored transposed, and on a target with vectors a block
/// of L hidden units goes on the lanes: L the most lanes, a power of two
/// from 4, that fit in the hidden size (the fewest blocks; the last block
/// overlaps the one before). Each lane then adds a quad of products a step
/// with VPDPBUSD or SDOT, a pair with VPMADDWD on up to 8 lanes (AVX2),
/// else one (int8LSTMTapGroup). Otherwise one unit at a time (tile 0), a
/// quad a step by two SMLADs on the Arm DSP.
KernelStrategy int8LSTMStrategy(const Graph &g, const Node &n, const LIROptions &opts) {
  auto onlyThis = [&](const Node &u) { return &u == &n; };
  KernelStrategy s = KernelStrategy::int8();
  const Value *bias = n.getInput(3);
  if (!packableConstant(g, n.getInput(1), onlyThis) ||
      !packableConstant(g, n.getInput(2), onlyThis) || (bias && !bias->isConstant()) ||
      n.getInput(1)->getType().shape[0] != 1)
    return s;
  s.packedWeights = true;
  if (opts.int8Dot == Int8Dot::ArmDsp) {
    s.dot = Int8Dot::ArmDsp;
    return s;
  }
  const int64_t hidden = n.getInput(2)->getType().shape[2];
  int64_t lanes = opts.vectorLanes;
  while (lanes > hidden)
    lanes /= 2;
  if (lanes < 4)
    return s;
  s.tile = lanes;
  if (isVnni(opts.int8Dot) || opts.int8Dot == Int8Dot::Sdot || opts.int8Dot == Int8Dot::Smmla)
    s.dot = opts.int8Dot == Int8Dot::Smmla ? Int8Dot::Sdot : opts.int8Dot;
  else if (opts.int8Dot == Int8Dot::Pmaddwd && lanes <= kInt8PixelLanes)
    s.dot = Int8Dot::Pmaddwd;
  return s;
}

/// How int8 LSTM strategy `s` stores W and R (packedWeights).
Packing int8LSTMPacking(const KernelStrategy &s) {
  switch (int8LSTMTapGroup(s.dot)) {
  case 4: return Packing::Int8TapQuadRows;
  case 2: return Packing::Int8TapPairRows;
  default: return Packing::Int8RowsTransposed;
  }
}

/// Whether int8 `n` is a 2-D depthwise Conv whose padded plane resolves
/// (Int8Depthwise); the GEMM kernel reports what is wrong with the others.
bool int8DepthwiseFits(const Node &n) {
  if (!n.is(OpKind::Conv) || !isDepthwiseConv(n) || ConvView(n).input()->getType().rank() != 4)
    return false;
  auto plane = int8PaddedPlane(n);
  if (!plane) {
    llvm::consumeError(plane.takeError());
    return false;
  }
  return true;
}

/// The Int8Depthwise strategy of `n` (int8DepthwiseFits): with the Arm DSP,
/// 3x3 windows of unit dilation and column stride 1 or 2 take two outputs
/// per step, whose SMLADs share each window row's words; with AVX2, blocks
/// of channels go on the lanes (a ymm's 8 i32, or where the target uses zmm
/// a zmm's 16) where there are enough of them, one output channel each, and
/// on AArch64 without the dot product (Smlal) blocks of 8 (two NEON
/// vectors), a tap at a time.
KernelStrategy int8DepthwiseStrategy(const Node &n, const LIROptions &opts) {
  ConvView conv(n);
  const TensorType &x = conv.input()->getType(), &w = conv.weights()->getType();
  // int8DepthwiseFits resolved the geometry for the plane.
  ConvGeometry geom = llvm::cantFail(resolveConvGeometry(
      n, llvm::ArrayRef(x.shape).drop_front(2), llvm::ArrayRef(w.shape).drop_front(2)));
  // A block takes a window row's neighbouring taps in pairs (VPMADDWD)
  // where they are neighbouring columns.
  const bool tapPairs = geom.dilations[1] == 1;
  // Rows of at least a step of outputs (two vectors at column stride 1,
  // one at 2) put them on the lanes, one channel at a time: no transposes
  // in and out of a channel block. Narrower rows would waste lanes (VWW's
  // 24x24 layer on zmm: no faster).
  const bool x86 = opts.int8Dot == Int8Dot::Pmaddwd || isVnni(opts.int8Dot);
  const int64_t lanes = int8GemmPixelLanes(opts.int8Dot);
  if (x86 && w.shape[0] == x.shape[1] && tapPairs && geom.strides[1] <= 2 &&
      n.getOutput()->getType().shape[3] >= (geom.strides[1] == 1 ? 2 * lanes : lanes))
    return KernelStrategy::int8DepthwiseRows(lanes, opts.int8Dot);
  // Blocks of a zmm's 16 channels on a target that uses zmm (Vnni512's),
  // where the Conv has as many.
  if (opts.int8Dot == Int8Dot::Vnni512 && w.shape[0] == x.shape[1] &&
      x.shape[1] >= kVnni512PixelLanes)
    return KernelStrategy::int8DepthwiseChannelBlock(kVnni512PixelLanes, tapPairs);
  if ((opts.int8Dot == Int8Dot::Pmaddwd || isVnni(opts.int8Dot)) && w.shape[0] == x.shape[1] &&
      x.shape[1] >= kInt8PixelLanes)
    return KernelStrategy::int8DepthwiseChannelBlock(kInt8PixelLanes, tapPairs);
  // NEON: blocks of 8 channels, each tap's products by SMLAL and SMLAL2
  // (the pairs' VPMADDWD has no NEON twin).
  if (opts.int8Dot == Int8Dot::Smlal && w.shape[0] == x.shape[1] &&
      x.shape[1] >= kInt8PixelLanes)
    return KernelStrategy::int8DepthwiseChannelBlock(kInt8PixelLanes, false, Int8Dot::Smlal);
  if (opts.int8Dot != Int8Dot::ArmDsp)
    return KernelStrategy::int8Depthwise(Int8Dot::Scalar);
  bool pairs = w.shape[2] == 3 && w.shape[3] == 3 && geom.dilations[0] == 1 &&
               geom.dilations[1] == 1 && geom.strides[1] <= 2;
  return KernelStrategy::int8Depthwise(Int8Dot::ArmDsp, pairs ? 2 : 0);
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
/// exception: read in place, every channel tile streams its weights (for
/// K = 4608, 590 KB) from memory through L2 once per pixel tile, while
/// panels run K in blocks that stay in L1 and prefetch the next block
/// (ConvKernel.cpp). resnet50's two strided layers to 7x7 took 1537 and
/// 1383 us in place and 1296 and 1258 with panels, resnet18's 3x3 of stride
/// 2 695 and 584.
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
  if (opts.vectorLanes == 1 || pixels > kPanelPixels ||
      (strided && weightBytes < kStridedPanelWeightBytes))
    return 0;
  if (w.shape[1] == 1)
    return 0;
  return std::min(pixels, std::max(kMinPanelPixels,
                                   kPanelBlockBytes / (reduction * int64_t(sizeof(float)))));
}

/// The strategy of a non-depthwise Conv whose weights are stored `weights`.
KernelStrategy convStrategy(const Node &conv, Packing weights, const LIROptions &opts) {
  if (int64_t m = winogradTileOf(weights))
    return KernelStrategy::winogradConv(
        winogradTileFor(ConvView(conv).weights()->getType().shape, m));
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

/// Whether the B of f32 MatMul `n` is a constant matrix that only `n`
/// reads, and only as B.
bool packableMatMulB(const Graph &g, const Node &n) {
  const Value *b = MatMulView(n).b();
  return b->getType().rank() == 2 && packableConstant(g, b, [&](const Node &u) {
           return &u == &n && llvm::count(n.getInputs(), b) == 1;
         });
}

} // namespace

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
      if (int8DepthwiseFits(*n)) {
        sel.strategies[n] = int8DepthwiseStrategy(*n, opts);
      } else if (int8GemmShapes(*n)) {
        KernelStrategy s = int8GemmStrategy(g, *n, opts);
        sel.strategies[n] = s;
        if (s.packedWeights)
          sel.weights[n->getInput(1)] = {int8GemmPacking(*n, s), 1};
      } else if (n->is(OpKind::LSTM)) {
        KernelStrategy s = int8LSTMStrategy(g, *n, opts);
        sel.strategies[n] = s;
        if (s.packedWeights)
          for (unsigned operand : {1, 2})
            sel.weights[n->getInput(operand)] = {int8LSTMPacking(s), 1};
      } else {
        sel.strategies[n] = KernelStrategy::int8(int8ElementwiseLanes(*n, opts));
      }
      continue;
    }
    if (getOpDef(n->getKind()).kernel == KernelFamily::Pool) {
      sel.strategies[n] =
          planePoolFits(*n) ? KernelStrategy::planePool() : KernelStrategy::genericPool();
      continue;
    }
    if (f32MatMul(*n)) {
      RegisterTile tile = matMulRegisterTile(*n, opts);
      int64_t strip = int64_t(tile.vecs) * opts.vectorLanes;
      const Value *b = MatMulView(*n).b();
      bool packed = tile.rows && packableMatMulB(g, *n) &&
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
