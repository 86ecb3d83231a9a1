//===- SelectInt8Kernels.cpp - Choosing the int8 kernels ------------------===//

#include "compiler/lir/SelectInt8Kernels.h"
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
/// on the lanes, runs of the input of such a Conv, words of a one-channel
/// Conv's plane (unit column dilation; not Smmla), or runs of the padded
/// planes where every block's pixels are runs of them (column stride at most
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
  ConvView v(n);
  const TensorType &x = v.input()->getType(), &w = v.weights()->getType(),
                   &y = n.getOutput()->getType();
  auto geom = resolveConvGeometry(n, llvm::ArrayRef(x.shape).drop_front(2),
                                  llvm::ArrayRef(w.shape).drop_front(2));
  if (!geom) {
    llvm::consumeError(geom.takeError());
    return Int8Columns::Gathered;
  }
  // One input channel: a tap group is a word of its plane, where groups of
  // channels would be zeros but one a tap (SMMLA's octets gather).
  if (s.dot != Int8Dot::Smmla && w.shape[1] == 1 && geom->dilations[1] == 1)
    return Int8Columns::PlaneWords;
  if (s.dot == Int8Dot::Sdot)
    return Int8Columns::Gathered;
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

} // namespace

void selectInt8Kernel(const Graph &g, const Node &n, const LIROptions &opts,
                      KernelSelection &sel) {
  if (int8DepthwiseFits(n)) {
    sel.strategies[&n] = int8DepthwiseStrategy(n, opts);
  } else if (int8GemmShapes(n)) {
    KernelStrategy s = int8GemmStrategy(g, n, opts);
    sel.strategies[&n] = s;
    if (s.packedWeights)
      sel.weights[n.getInput(1)] = {int8GemmPacking(n, s), 1};
  } else if (n.is(OpKind::LSTM)) {
    KernelStrategy s = int8LSTMStrategy(g, n, opts);
    sel.strategies[&n] = s;
    if (s.packedWeights)
      for (unsigned operand : {1, 2})
        sel.weights[n.getInput(operand)] = {int8LSTMPacking(s), 1};
  } else {
    sel.strategies[&n] = KernelStrategy::int8(int8ElementwiseLanes(n, opts));
  }
}

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

} // namespace lir
} // namespace kiln
