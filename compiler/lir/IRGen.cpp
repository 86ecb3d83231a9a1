//===- IRGen.cpp - Graph to low-level IR ----------------------------------===//

#include "compiler/lir/LIR.h"
#include "compiler/lir/ConvShape.h"
#include "compiler/lir/LIRPasses.h"
#include "compiler/lir/SelectKernels.h"
#include "compiler/lir/Winograd.h"
#include "compiler/ops/ActivationOps.h"
#include "compiler/ops/OpGeometry.h"
#include "compiler/ops/OpViews.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

namespace kiln {
namespace lir {

llvm::StringRef regionName(Region r) {
  switch (r) {
  case Region::Weights: return "weights";
  case Region::IO: return "io";
  case Region::Scratch: return "scratch";
  }
  return "?";
}

Buffer *Function::addBuffer(llvm::StringRef name, Region region,
                            uint64_t size) {
  buffers.push_back(std::make_unique<Buffer>());
  Buffer *b = buffers.back().get();
  b->id = buffers.size() - 1;
  b->name = name.str();
  b->region = region;
  b->size = size;
  return b;
}

void Function::eraseInstrs(const std::vector<bool> &erased) {
  std::vector<Instr> kept;
  kept.reserve(instrs.size());
  for (size_t i = 0; i < instrs.size(); ++i)
    if (!erased[i])
      kept.push_back(std::move(instrs[i]));
  instrs = std::move(kept);
}

llvm::SmallVector<const Value *, 4> operandValues(const Instr &in) {
  llvm::SmallVector<const Value *, 4> values(in.node->getInputs());
  const Node *previous = in.node;
  for (const Node *m : in.fused) {
    for (const Value *v : m->getInputs())
      if (v != previous->getOutput())
        values.push_back(v);
    previous = m;
  }
  return values;
}

bool isDepthwiseConv(const Node &conv) {
  ConvView v(conv);
  return v.group() > 1 && v.input()->getType().shape[1] == v.group();
}

bool isGlobalPool(const Node &pool) {
  WindowView window(pool);
  const Shape &in = window.input()->getType().shape, &out = pool.getOutput()->getType().shape;
  return out[2] == 1 && out[3] == 1 && window.kernelShape(0) == in[2] &&
         window.kernelShape(1) == in[3] &&
         llvm::all_of(window.pads(), [](int64_t p) { return p == 0; });
}

uint64_t convTapMajorBytes(llvm::ArrayRef<int64_t> shape, int64_t groups) {
  int64_t ocg = shape[0] / groups;
  return groups * llvm::divideCeil(ocg, kConvPackBlock) * kConvPackBlock * shape[1] *
         shape[2] * shape[3] * sizeof(float);
}

Int8RowsShape int8RowsShape(llvm::ArrayRef<int64_t> shape, Packing packing) {
  auto quads = [](int64_t taps) { return (taps + kInt8Quad - 1) / kInt8Quad * kInt8Quad; };
  if (isInt8RowsTransposed(packing)) {
    // The last two dimensions (an LSTM's W and R have a leading 1).
    const int64_t rank = int64_t(shape.size());
    return {shape[rank - 1], shape[rank - 2], quads(shape[rank - 2])};
  }
  if (packing == Packing::Int8ChannelBlockQuads)
    return {shape[1], shape[0], quads(shape[0]), 1, false, kInt8ChannelBlock};
  if (packing == Packing::Int8ChannelBlockPairs)
    return {shape[1], shape[0], (shape[0] + 1) / 2 * 2, 2, false, kInt8ChannelBlock};
  if (int64_t group = int8TapGroup(packing); group > 1) {
    const int64_t rank = int64_t(shape.size());
    return {shape[rank - 2], shape[rank - 1], int64_t(llvm::alignTo(shape[rank - 1], group))};
  }
  int64_t taps = 1;
  for (int64_t d : shape.drop_front())
    taps *= d;
  if (packing == Packing::Int8RowsWidenedPositionPairs)
    return {shape[0], taps, (taps + 1) / 2 * 2, 2};
  if (packing == Packing::Int8RowsWidenedRowPairs)
    return {shape[0], taps, shape[2] * int64_t(llvm::alignTo(shape[3], 2)), 2};
  if (isInt8RowsWidened(packing))
    return {shape[0], taps, taps / shape[1] * int8WidenedChannels(shape[1]), 2};
  if (packing == Packing::Int8RowsQuadChannels)
    return {shape[0], taps, taps / shape[1] * int8QuadChannels(shape[1]), 1};
  if (packing == Packing::Int8RowsRowQuads)
    return {shape[0], taps, shape[2] * int64_t(llvm::alignTo(shape[3], kInt8Quad)), 1};
  if (packing == Packing::Int8RowsOctetPairs)
    return {shape[0], taps, (taps + kInt8Octet - 1) / kInt8Octet * kInt8Octet, 1, true};
  if (packing == Packing::Int8RowsOctetChannelPairs)
    return {shape[0], taps, taps / shape[1] * int8OctetChannels(shape[1]), 1, true};
  return {shape[0], taps, quads(taps), 1, packing == Packing::Int8RowsPaired};
}

int64_t int8TapGroup(Packing p) {
  return p == Packing::Int8TapPairRows ? 2 : p == Packing::Int8TapQuadRows ? 4 : 1;
}

bool isInt8Rows(Packing p) {
  return p == Packing::Int8Rows || p == Packing::Int8RowsTransposed || int8TapGroup(p) > 1 ||
         isInt8RowsPaired(p) || isInt8RowsChannelMinor(p) || p == Packing::Int8RowsOctetPairs ||
         p == Packing::Int8RowsOctetChannelPairs || isInt8ChannelBlocks(p);
}

bool isInt8ChannelBlocks(Packing p) {
  return p == Packing::Int8ChannelBlockQuads || p == Packing::Int8ChannelBlockPairs;
}

bool isInt8RowsTransposed(Packing p) {
  return p == Packing::Int8RowsTransposed || p == Packing::Int8RowsTransposedPaired;
}

bool isInt8RowsWidened(Packing p) {
  return p == Packing::Int8RowsWidened || p == Packing::Int8RowsWidenedPositionPairs ||
         p == Packing::Int8RowsWidenedRowPairs;
}

bool isInt8RowsChannelMinor(Packing p) {
  return isInt8RowsWidened(p) || p == Packing::Int8RowsQuadChannels ||
         p == Packing::Int8RowsRowQuads;
}

bool isInt8RowsPaired(Packing p) {
  return p == Packing::Int8RowsPaired || p == Packing::Int8RowsTransposedPaired;
}

Packing int8GemmPacking(const Node &n, const KernelStrategy &strategy) {
  bool conv = n.is(OpKind::Conv);
  switch (strategy.dot) {
  case Int8Dot::Scalar:
    return conv ? Packing::Int8Rows : Packing::Int8RowsTransposed;
  case Int8Dot::Sdot: // taps in order: a quad is the word SDOT broadcasts
    if (strategy.columns == Int8Columns::ChannelLanes)
      return Packing::Int8ChannelBlockQuads;
    if (strategy.columns == Int8Columns::PlaneWords)
      return Packing::Int8RowsRowQuads;
    return conv ? Packing::Int8Rows : Packing::Int8RowsTransposed;
  case Int8Dot::Vnni:
  case Int8Dot::Vnni512:
    if (strategy.columns == Int8Columns::ChannelLanes)
      return Packing::Int8ChannelBlockQuads;
    if (strategy.columns == Int8Columns::PlaneWords)
      return Packing::Int8RowsRowQuads;
    return conv ? Packing::Int8RowsQuadChannels : Packing::Int8RowsTransposed;
  case Int8Dot::Smmla:
    // Only Convs take Smmla (int8GemmStrategy).
    if (!conv)
      return Packing::Int8RowsTransposed;
    return strategy.columns == Int8Columns::PlaneRuns ? Packing::Int8RowsOctetChannelPairs
                                                      : Packing::Int8RowsOctetPairs;
  case Int8Dot::ArmDsp: return conv ? Packing::Int8RowsPaired : Packing::Int8RowsTransposedPaired;
  case Int8Dot::Pmaddwd:
  case Int8Dot::Smlal:
    if (strategy.columns == Int8Columns::ChannelLanes)
      return Packing::Int8ChannelBlockPairs;
    if (!conv)
      return Packing::Int8RowsTransposed;
    if (strategy.columns == Int8Columns::PlaneWords)
      return Packing::Int8RowsWidenedRowPairs;
    // foldInputTransposes may turn Gathered into GatheredChannelsLast after
    // the weights are packed: both gather, into the same columns.
    return n.getInput(1)->getType().shape[1] == 1 &&
                   (strategy.columns == Int8Columns::Gathered ||
                    strategy.columns == Int8Columns::GatheredChannelsLast)
               ? Packing::Int8RowsWidenedPositionPairs
               : Packing::Int8RowsWidened;
  }
  llvm_unreachable("Int8Dot");
}

llvm::Expected<Int8PaddedPlane> int8PaddedPlane(const Node &conv) {
  ConvView v(conv);
  const TensorType &x = v.input()->getType(), &y = conv.getOutput()->getType();
  auto geom = resolveConvGeometry(conv, llvm::ArrayRef(x.shape).drop_front(2),
                                  llvm::ArrayRef(v.weights()->getType().shape).drop_front(2));
  if (!geom)
    return geom.takeError();
  int64_t extent[2];
  for (int d = 0; d < 2; ++d)
    extent[d] = paddedExtent(x.shape[2 + d], geom->padsBegin[d], geom->padsEnd[d],
                             y.shape[2 + d], geom->strides[d], geom->kernel[d],
                             geom->dilations[d]);
  return Int8PaddedPlane{extent[0], extent[1]};
}

uint64_t int8GemmTempBytes(const Node &n, const KernelStrategy &strategy) {
  Int8RowsShape rs =
      int8RowsShape(n.getInput(1)->getType().shape, int8GemmPacking(n, strategy));
  // Quads of int8 inputs, or int16 ones.
  const uint64_t tapBytes = int8GemmRawColumns(strategy.dot) ? 1 : sizeof(int16_t);
  uint64_t columns = strategy.tileCols * rs.paddedTaps * tapBytes;
  if (strategy.columns == Int8Columns::PlaneWords)
    return columns + llvm::cantFail(int8PaddedPlane(n))
                         .wordsBytes(int8PlaneWordTaps(strategy.dot), tapBytes);
  if (strategy.columns != Int8Columns::PlaneRuns)
    return columns;
  return columns + llvm::cantFail(int8PaddedPlane(n)).bytes(n.getInput(1)->getType().shape[1],
                                                            tapBytes);
}

/// Padded extent of one spatial dimension: the input with its pads, or as far
/// as the last window reaches (pooling's ceil_mode), whichever is more.
int64_t paddedExtent(int64_t in, int64_t padBegin, int64_t padEnd, int64_t out,
                     int64_t stride, int64_t kernel, int64_t dilation) {
  return std::max(in + padBegin + padEnd, (out - 1) * stride + (kernel - 1) * dilation + 1);
}

uint64_t convPanelBytes(const Node &conv, const KernelStrategy &strategy) {
  const TensorType &w = ConvView(conv).weights()->getType();
  return strategy.tile * (w.shape[1] * w.shape[2] * w.shape[3] + kPanelTileChannels) *
         sizeof(float);
}

std::optional<PaddedInput> paddedInput(const Node &n, const KernelStrategy &strategy) {
  using Kind = KernelStrategy::Kind;
  const TensorType &in = n.getInput(0)->getType();
  const TensorType &out = n.getOutput()->getType();
  if (strategy.is(Kind::DepthwisePlane)) {
    ConvShape s = ConvShape::of(n);
    int64_t floats = flatPlane(s, strategy.tile).tempFloats();
    return PaddedInput{1, (floats + s.W - 1) / s.W, 1, s.W};
  }
  bool conv = strategy.is(Kind::Direct) || strategy.is(Kind::Pointwise) ||
              strategy.is(Kind::Grouped) ||
              strategy.is(Kind::DepthwiseRows) || strategy.is(Kind::DepthwiseChannelBlock);
  if (in.rank() != 4 || (!conv && !strategy.is(Kind::PlanePool)))
    return std::nullopt;
  WindowView window(n);
  int64_t pads[4], strides[2], kernel[2], dilations[2];
  for (int i = 0; i < 4; ++i)
    pads[i] = window.pads(i);
  for (int d = 0; d < 2; ++d) {
    strides[d] = window.strides(d);
    dilations[d] = window.dilations(d);
    kernel[d] = conv ? ConvView(n).weights()->getType().shape[2 + d] : window.kernelShape(d);
  }
  if (strategy.readsNoPadding())
    return std::nullopt;
  bool unpadded = !pads[0] && !pads[1] && !pads[2] && !pads[3];
  bool global = !conv && isGlobalPool(n);
  bool interleaved = strategy.is(Kind::DepthwiseChannelBlock);
  if (global || strategy.is(Kind::Pointwise) ||
      (unpadded && strides[1] == 1 && !interleaved && !strategy.separable &&
       (conv || out.shape[3] <= in.shape[3] - (kernel[1] - 1) * dilations[1])))
    return std::nullopt;
  int64_t rows = paddedExtent(in.shape[2], pads[0], pads[2], out.shape[2], strides[0],
                              kernel[0], dilations[0]);
  int64_t cols = paddedExtent(in.shape[3], pads[1], pads[3], out.shape[3], strides[1],
                              kernel[1], dilations[1]);
  if (interleaved)
    return PaddedInput{strategy.tile, rows, 1, cols};
  // A grouped strategy copies one group at a time.
  int64_t channels = !conv || isDepthwiseConv(n) ? 1
                     : strategy.is(Kind::Grouped) ? in.shape[1] / ConvView(n).group()
                                                  : in.shape[1];
  return PaddedInput{channels, rows, strides[1], (cols + strides[1] - 1) / strides[1]};
}

namespace {

/// Translation only: one instruction per node, each result in a buffer of
/// its own (see translateGraph).
class IRGen {
public:
  IRGen(const Graph &g, const LIROptions &opts) : g_(g), kernels_(selectKernels(g, opts)) {
    f_.name = g.getName().str();
  }

  Function run() {
    layOutIO();
    for (Node *n : g_.getNodes())
      translate(*n);
    genOutputCopies();
    return std::move(f_);
  }

private:
  static uint64_t alignUp(uint64_t x) {
    return llvm::alignTo(x, kBufferAlignment);
  }

  void layOutIO() {
    uint64_t offset = 0;
    for (Value *v : g_.getInputs()) {
      Buffer *b = f_.addBuffer(v->getName(), Region::IO, v->getType().sizeInBytes());
      b->offset = offset;
      offset = alignUp(offset + b->size);
      buffers_[v] = b;
      f_.inputs.push_back({v->getName().str(), v->getType(), b});
    }
    for (const GraphOutput &o : g_.getOutputs()) {
      Buffer *b = f_.addBuffer(o.name, Region::IO, o.value->getType().sizeInBytes());
      b->offset = offset;
      offset = alignUp(offset + b->size);
      f_.outputs.push_back({o.name, o.value->getType(), b});
      // A node result that is a graph output is written straight into the
      // I/O region (the first time it is listed; repeats are copied).
      Value *v = o.value;
      if (v->isResult() && !buffers_.count(v) && !v->getProducer()->is(OpKind::Reshape))
        buffers_[v] = b;
    }
    f_.ioSize = offset;
  }

  /// The buffer holding `v`, made on first use: weights (laid out by
  /// layOutBuffers) for a constant, scratch for a result.
  Buffer *bufferFor(const Value *v) {
    auto it = buffers_.find(v);
    if (it != buffers_.end())
      return it->second;
    Buffer *b;
    if (v->isConstant()) {
      b = f_.addBuffer(v->getName(), Region::Weights, v->getType().sizeInBytes());
      b->constant = &v->getConstant();
      WeightsPacking packing = kernels_.packingOf(*v);
      b->packing = packing.packing;
      if (int64_t m = winogradTileOf(b->packing)) {
        b->size = winogradWeightsBytes(v->getType().shape, m);
      } else if (b->packing == Packing::ConvTapMajor) {
        b->packGroups = packing.groups;
        b->size = convTapMajorBytes(v->getType().shape, b->packGroups);
      } else if (b->packing == Packing::MatMulStrips) {
        b->packStrip = packing.strip;
      } else if (isInt8Rows(b->packing)) {
        b->size = int8RowsShape(v->getType().shape, b->packing).bytes();
      }
    } else {
      b = f_.addBuffer(v->getName(), Region::Scratch, v->getType().sizeInBytes());
    }
    buffers_[v] = b;
    return b;
  }

  void translate(const Node &n) {
    if (n.is(OpKind::Reshape)) {
      // A reshape of a row-major tensor is the same bytes: a view.
      buffers_[n.getOutput(0)] = bufferFor(n.getInput(0));
      return;
    }
    Instr instr;
    instr.node = &n;
    instr.strategy = kernels_.strategyOf(n);
    for (Value *v : n.getInputs())
      instr.inputs.push_back(v ? bufferFor(v) : nullptr);
    if (!isElementwise(n.getKind()))
      instr.temp = tempFor(n, instr);
    for (Value *v : n.getOutputs())
      instr.outputs.push_back(bufferFor(v));
    f_.instrs.push_back(std::move(instr));
  }

  /// The scratch `instr`'s kernel needs while it runs, if any.
  Buffer *tempFor(const Node &n, Instr &instr) {
    using Kind = KernelStrategy::Kind;
    const KernelStrategy &strategy = instr.strategy;
    auto temp = [&](llvm::StringRef suffix, uint64_t bytes) {
      return f_.addBuffer(n.getName().str() + suffix.str(), Region::Scratch, bytes);
    };
    if (strategy.is(Kind::Winograd))
      return temp(".winograd", runTimeWinogradWeightsBytes(n, strategy) +
                                   winogradLayout(n, strategy.winograd).bytes());
    if (strategy.is(Kind::Int8) && n.is(OpKind::LSTM))
      // The int8 LSTM's int16 cell state (Int8LSTMKernel.cpp), twice
      // initial_c's bytes: the previous step's and the next.
      return temp(".cell", 2 * n.getInput(6)->getType().sizeInBytes());
    if (strategy.is(Kind::Int8Gemm))
      return temp(".columns", int8GemmTempBytes(n, strategy));
    if (strategy.is(Kind::Int8Depthwise)) {
      // selectKernels chose it only where the plane resolves.
      Int8PaddedPlane plane = llvm::cantFail(int8PaddedPlane(n));
      if (strategy.int8DepthwiseRowLanes())
        return temp(".plane",
                    plane.rowLanesBytes(strategy.tileCols, n.getInput(1)->getType().shape[3]));
      return temp(".plane", strategy.tile && strategy.tileCols == 2
                                ? plane.bytesWithPairs(strategy.tile)
                                : plane.bytes(std::max<int64_t>(strategy.tile, 1)));
    }
    if ((strategy.is(Kind::Pointwise) || strategy.is(Kind::Direct)) && strategy.tile)
      return temp(".panels", convPanelBytes(n, strategy));
    if ((instr.padded = paddedInput(n, strategy)))
      return temp(".padded", instr.padded->bytes());
    return nullptr;
  }

  /// Graph outputs whose bytes are not written in place by a kernel: graph
  /// inputs, constants, views, and values listed as outputs more than once.
  void genOutputCopies() {
    for (size_t i = 0; i < f_.outputs.size(); ++i) {
      Buffer *dst = f_.outputs[i].buffer;
      Buffer *src = bufferFor(g_.getOutputs()[i].value);
      if (src == dst)
        continue;
      Instr copy;
      copy.kind = Instr::Kind::Copy;
      copy.inputs.push_back(src);
      copy.outputs.push_back(dst);
      f_.instrs.push_back(std::move(copy));
    }
  }

  const Graph &g_;
  /// Every Conv's and pooling's kernel, chosen before any buffer is bound.
  const KernelSelection kernels_;
  Function f_;
  llvm::DenseMap<const Value *, Buffer *> buffers_;
};

} // namespace

Function translateGraph(const Graph &g, const LIROptions &opts) { return IRGen(g, opts).run(); }

namespace {
/// Writes conv weights [G*OCg][ICg][taps] per group as blocks of
/// kConvPackBlock output channels [taps][ICg][kConvPackBlock] (f32); the
/// padding of the last block stays zero.
void packConvTapMajor(const Tensor &w, int64_t groups, uint8_t *dst) {
  llvm::ArrayRef<int64_t> shape = w.getType().shape;
  int64_t ocg = shape[0] / groups, icg = shape[1], taps = shape[2] * shape[3];
  int64_t blocks = llvm::divideCeil(ocg, kConvPackBlock);
  int64_t blockSize = taps * icg * kConvPackBlock;
  const float *src = reinterpret_cast<const float *>(w.raw().data());
  for (int64_t g = 0; g < groups; ++g)
    for (int64_t oc = 0; oc < ocg; ++oc)
      for (int64_t ic = 0; ic < icg; ++ic)
        for (int64_t t = 0; t < taps; ++t) {
          int64_t at = (g * blocks + oc / kConvPackBlock) * blockSize +
                       (t * icg + ic) * kConvPackBlock + oc % kConvPackBlock;
          std::memcpy(dst + at * sizeof(float),
                      src + ((g * ocg + oc) * icg + ic) * taps + t, sizeof(float));
        }
}

/// Writes MatMul B [K][N] (f32) as strips of `strip` columns, each
/// [K][its columns], the last one narrower where N is not a multiple.
void packMatMulStrips(const Tensor &b, int64_t strip, uint8_t *dst) {
  const int64_t K = b.getType().shape[0], N = b.getType().shape[1];
  const float *src = reinterpret_cast<const float *>(b.raw().data());
  for (int64_t n0 = 0; n0 < N; n0 += strip) {
    const int64_t width = std::min(strip, N - n0);
    for (int64_t k = 0; k < K; ++k)
      std::memcpy(dst + (n0 * K + k * width) * sizeof(float), src + k * N + n0,
                  width * sizeof(float));
  }
}

/// Writes a Conv's int8 weights [O][C][KH][KW] as Int8RowsWidened (rows of
/// little-endian int16) or Int8RowsQuadChannels (int8): taps in (kernel
/// position, channel) order, the channels padded to a pair or a quad; or
/// one channel's positions padded to a pair (Int8RowsWidenedPositionPairs),
/// or each of its kernel rows padded to a pair or a quad
/// (Int8RowsWidenedRowPairs, Int8RowsRowQuads). The padding stays zero.
void packInt8RowsChannelMinor(const Tensor &w, Packing packing, uint8_t *dst) {
  llvm::ArrayRef<int64_t> shape = w.getType().shape;
  Int8RowsShape rs = int8RowsShape(shape, packing);
  const int64_t C = shape[1], KW = shape[3], positions = shape[2] * KW;
  const bool rowGroups =
      packing == Packing::Int8RowsWidenedRowPairs || packing == Packing::Int8RowsRowQuads;
  const int64_t paddedC =
      packing == Packing::Int8RowsWidenedPositionPairs ? 1 : rs.paddedTaps / positions;
  const int64_t paddedKW = rs.paddedTaps / shape[2];
  const int8_t *src = reinterpret_cast<const int8_t *>(w.raw().data());
  for (int64_t r = 0; r < rs.rows; ++r)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t k = 0; k < positions; ++k) {
        uint16_t wide = uint16_t(int16_t(src[(r * C + c) * positions + k]));
        int64_t slot = r * rs.paddedTaps +
                       (rowGroups ? k / KW * paddedKW + k % KW : k * paddedC + c);
        for (int64_t byte = 0; byte < rs.bytesPerTap; ++byte)
          dst[rs.bytesPerTap * slot + byte] = uint8_t(wide >> (8 * byte));
      }
}

/// Writes a Conv's int8 weights [O][C][KH][KW] as Int8RowsOctetPairs or
/// Int8RowsOctetChannelPairs: each pair of rows octet by octet, an odd
/// count's last row twice, the taps in order or by (kernel position,
/// channel); the padding stays zero.
void packInt8RowsOctetPairs(const Tensor &w, Packing packing, uint8_t *dst) {
  llvm::ArrayRef<int64_t> shape = w.getType().shape;
  Int8RowsShape rs = int8RowsShape(shape, packing);
  const int64_t positions = shape[2] * shape[3];
  const int64_t paddedC = int8OctetChannels(shape[1]);
  const uint8_t *src = w.raw().data();
  for (int64_t r = 0; r < (rs.rows + 1) / 2 * 2; ++r)
    for (int64_t t = 0; t < rs.taps; ++t) {
      int64_t slot = packing == Packing::Int8RowsOctetChannelPairs
                         ? t % positions * paddedC + t / positions
                         : t;
      dst[int8OctetPairsByte(r, slot, rs.paddedTaps)] = src[std::min(r, rs.rows - 1) * rs.taps + t];
    }
}

/// Writes int8 weights as rows of taps padded to quads, each quad reordered
/// for the Arm DSP where the packing says (isInt8Rows), the rows in pairs
/// where it says (Int8RowsShape::rowPairs); the padding stays zero.
void packInt8Rows(const Tensor &w, Packing packing, uint8_t *dst) {
  Int8RowsShape rs = int8RowsShape(w.getType().shape, packing);
  const uint8_t *src = w.raw().data();
  for (int64_t r = 0; r < rs.rows; ++r)
    for (int64_t t = 0; t < rs.taps; ++t) {
      int64_t slot = isInt8RowsPaired(packing) ? int8RowSlot(t) : t;
      int64_t at = rs.rowPairs ? int8PairedRowsWord(r, slot / kInt8Quad, rs.paddedTaps / kInt8Quad) *
                                         kInt8Quad +
                                     slot % kInt8Quad
                               : r * rs.paddedTaps + slot;
      dst[at] = isInt8RowsTransposed(packing) ? src[t * rs.rows + r] : src[r * rs.taps + t];
    }
}

/// Writes a MatMul's int8 weights [K][N] as Int8ChannelBlockQuads or
/// Int8ChannelBlockPairs (little-endian int16): channel n's group of taps g
/// at [n / 16][g][n % 16]; the padding stays zero.
void packInt8ChannelBlocks(const Tensor &w, Packing packing, uint8_t *dst) {
  Int8RowsShape rs = int8RowsShape(w.getType().shape, packing);
  const int64_t group = rs.bytesPerTap == 1 ? kInt8Quad : 2;
  const int64_t groups = rs.paddedTaps / group;
  const int8_t *src = reinterpret_cast<const int8_t *>(w.raw().data());
  for (int64_t t = 0; t < rs.taps; ++t)
    for (int64_t r = 0; r < rs.rows; ++r) {
      const int64_t slot =
          ((r / kInt8ChannelBlock * groups + t / group) * kInt8ChannelBlock +
           r % kInt8ChannelBlock) *
              group +
          t % group;
      const uint16_t wide = uint16_t(int16_t(src[t * rs.rows + r]));
      for (int64_t byte = 0; byte < rs.bytesPerTap; ++byte)
        dst[rs.bytesPerTap * slot + byte] = uint8_t(wide >> (8 * byte));
    }
}
/// Writes an LSTM's int8 W or R as Int8TapPairRows or Int8TapQuadRows: row
/// r's tap t at [t / G][r][t % G]; the padding stays zero.
void packInt8TapGroupRows(const Tensor &w, Packing packing, uint8_t *dst) {
  Int8RowsShape rs = int8RowsShape(w.getType().shape, packing);
  const int64_t group = int8TapGroup(packing);
  const uint8_t *src = w.raw().data();
  for (int64_t r = 0; r < rs.rows; ++r)
    for (int64_t t = 0; t < rs.taps; ++t)
      dst[((t / group) * rs.rows + r) * group + t % group] = src[r * rs.taps + t];
}
} // namespace

std::vector<uint8_t> buildWeightsImage(const Function &f) {
  std::vector<uint8_t> image(f.weightsSize, 0);
  for (auto &b : f.buffers) {
    if (b->region != Region::Weights || !b->constant)
      continue;
    switch (b->packing) {
    case Packing::None:
      llvm::copy(b->constant->raw(), image.begin() + b->offset);
      break;
    case Packing::ConvTapMajor:
      packConvTapMajor(*b->constant, b->packGroups, image.data() + b->offset);
      break;
    case Packing::MatMulStrips:
      packMatMulStrips(*b->constant, b->packStrip, image.data() + b->offset);
      break;
    case Packing::Winograd2x2:
    case Packing::Winograd4x4:
    case Packing::WinogradLine2:
      packWinogradWeights(*b->constant, winogradTileOf(b->packing), image.data() + b->offset);
      break;
    case Packing::Int8Rows:
    case Packing::Int8RowsTransposed:
    case Packing::Int8RowsPaired:
    case Packing::Int8RowsTransposedPaired:
      packInt8Rows(*b->constant, b->packing, image.data() + b->offset);
      break;
    case Packing::Int8RowsWidened:
    case Packing::Int8RowsWidenedPositionPairs:
    case Packing::Int8RowsWidenedRowPairs:
    case Packing::Int8RowsQuadChannels:
    case Packing::Int8RowsRowQuads:
      packInt8RowsChannelMinor(*b->constant, b->packing, image.data() + b->offset);
      break;
    case Packing::Int8RowsOctetPairs:
    case Packing::Int8RowsOctetChannelPairs:
      packInt8RowsOctetPairs(*b->constant, b->packing, image.data() + b->offset);
      break;
    case Packing::Int8ChannelBlockQuads:
    case Packing::Int8ChannelBlockPairs:
      packInt8ChannelBlocks(*b->constant, b->packing, image.data() + b->offset);
      break;
    case Packing::Int8TapPairRows:
    case Packing::Int8TapQuadRows:
      packInt8TapGroupRows(*b->constant, b->packing, image.data() + b->offset);
      break;
    }
  }
  return image;
}

void printLIR(const Function &f, llvm::raw_ostream &os) {
  os << "lir " << f.name << " weights=" << f.weightsSize << " io=" << f.ioSize
     << " scratch=" << f.scratchSize << "\n";
  auto buf = [&](const Buffer *b) {
    if (!b) {
      os << "none";
      return;
    }
    os << '%' << b->name << '@' << regionName(b->region) << '+' << b->offset
       << ':' << b->size;
    if (b->packing == Packing::ConvTapMajor)
      os << ":tap-major";
    if (b->packing == Packing::MatMulStrips)
      os << ":strips" << b->packStrip;
    if (int64_t m = winogradTileOf(b->packing)) {
      WinogradTile t = winogradTileFor(b->constant->getType().shape, m);
      os << ":winograd" << t.mh << 'x' << t.mw;
    }
    if (isInt8ChannelBlocks(b->packing))
      os << ":int8-channel-block-"
         << (b->packing == Packing::Int8ChannelBlockQuads ? "quads" : "pairs");
    else if (int64_t group = int8TapGroup(b->packing); group > 1)
      os << ":int8-tap-" << (group == 2 ? "pair" : "quad") << "-rows";
    else if (isInt8Rows(b->packing))
      os << ":int8-rows" << (isInt8RowsTransposed(b->packing) ? "-transposed" : "")
         << (isInt8RowsPaired(b->packing) ? "-paired" : "")
         << (isInt8RowsWidened(b->packing) ? "-widened" : "")
         << (b->packing == Packing::Int8RowsWidenedPositionPairs ? "-position-pairs" : "")
         << (b->packing == Packing::Int8RowsWidenedRowPairs ? "-row-pairs" : "")
         << (b->packing == Packing::Int8RowsQuadChannels ? "-quad-channels" : "")
         << (b->packing == Packing::Int8RowsRowQuads ? "-row-quads" : "")
         << (b->packing == Packing::Int8RowsOctetPairs ? "-octet-pairs" : "")
         << (b->packing == Packing::Int8RowsOctetChannelPairs ? "-octet-channel-pairs" : "");
  };
  for (const Instr &in : f.instrs) {
    os << "  ";
    for (size_t i = 0; i < in.outputs.size(); ++i) {
      os << (i ? ", " : "");
      buf(in.outputs[i]);
    }
    os << " = "
       << (in.kind == Instr::Kind::Copy ? llvm::StringRef("copy")
                                        : in.node->getOpName());
    for (const Node *n : in.fused)
      os << '+' << n->getOpName();
    if (in.strategy.kind != KernelStrategy::Kind::Default) {
      os << '[';
      printStrategy(in.strategy, os);
      os << ']';
    }
    os << '(';
    for (size_t i = 0; i < in.inputs.size(); ++i) {
      os << (i ? ", " : "");
      buf(in.inputs[i]);
    }
    os << ')';
    if (in.temp) {
      os << " temp ";
      buf(in.temp);
    }
    os << '\n';
  }
}

} // namespace lir
} // namespace kiln
