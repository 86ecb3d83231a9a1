//===- MovementKernels.cpp - Transpose, Concat, Pad, Expand, Slice --------===//
//
// All are strided copies: Transpose reads with permuted strides (f32 ones
// that swap the last two merged dimensions in blocks transposed in vector
// registers, those that split a few interleaved channels by shuffles),
// Concat writes each input into its slice of the output, Pad fills the
// border and copies the input into the interior (constant mode) or maps each
// output index into the input (edge, reflect), Expand reads broadcast
// dimensions with stride 0, Slice with its steps (possibly negative). They
// work on any dtype.
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/Kernels.h"
#include "compiler/codegen/kernels/RegisterTile.h"
#include "compiler/ops/OpViews.h"
#include "compiler/ops/ShapeIndexing.h"

#include <optional>

namespace kiln {
namespace codegen {

namespace {

/// A Transpose's merged dimensions where they end in two that trade places:
/// `rows`, the input's contiguous one, and `cols`, the output's.
struct SwappedPair {
  int64_t rows, cols;
  int64_t srcColStride, dstRowStride;
  /// The dimensions before the two, and their strides in the input and
  /// the output.
  Shape outer, srcOuter, dstOuter;

  /// body(srcBase, dstBase) at each index of the outer dimensions.
  void forEachOuter(KernelBuilder &kb,
                    llvm::function_ref<void(llvm::Value *, llvm::Value *)> body) const {
    kb.nest(outer, [&](llvm::ArrayRef<llvm::Value *> ivs) {
      body(kb.linear(ivs, srcOuter, kb.idx(0)), kb.linear(ivs, dstOuter, kb.idx(0)));
    });
  }
};

/// The swapped pair of a Transpose to `ot` that reads its input with
/// `srcStrides`, if its merged dimensions end in one.
std::optional<SwappedPair> swappedPair(const TensorType &ot, llvm::ArrayRef<int64_t> srcStrides) {
  Shape extents(ot.shape);
  llvm::SmallVector<Shape, 2> strides{Shape(srcStrides), rowMajorStrides(ot.shape)};
  mergeDimensions(extents, strides);
  const size_t rank = extents.size();
  if (rank < 2 || strides[0][rank - 2] != 1 || strides[1][rank - 1] != 1)
    return std::nullopt;
  return SwappedPair{extents[rank - 2],
                     extents[rank - 1],
                     strides[0][rank - 1],
                     strides[1][rank - 2],
                     Shape(extents.begin(), extents.end() - 2),
                     Shape(strides[0].begin(), strides[0].end() - 2),
                     Shape(strides[1].begin(), strides[1].end() - 2)};
}

/// An f32 Transpose of swapped pair `pair` (NCHW <-> NHWC, a matrix's
/// transpose), in blocks of lanes x lanes: each block loaded as vectors
/// along the input's contiguous dimension, transposed in registers
/// (transposeVectors) and stored as vectors along the output's; partial
/// blocks with masked loads and stores. The strided copy moves an element at
/// a time, one side across lines: convnext_tiny's 56x56x96 ones took 80-165
/// us each. False (nothing emitted) where either dimension is under a vector.
bool emitBlockTranspose(KernelBuilder &kb, const TensorType &ot, const SwappedPair &pair,
                        llvm::Value *src, llvm::Value *dst) {
  const unsigned lanes = kb.vec.lanes;
  if (ot.dtype != DType::F32 || lanes == 1 || !llvm::isPowerOf2_32(lanes) ||
      pair.rows < lanes || pair.cols < lanes)
    return false;
  pair.forEachOuter(kb, [&](llvm::Value *srcBase, llvm::Value *dstBase) {
    forTiles(kb, pair.rows, lanes, [&](llvm::Value *r0, int64_t rowCount) {
      forTiles(kb, pair.cols, lanes, [&](llvm::Value *c0, int64_t colCount) {
        llvm::SmallVector<llvm::Value *, 16> v;
        for (int64_t k = 0; k < colCount; ++k) {
          llvm::Value *col = kb.b.CreateAdd(c0, kb.idx(k));
          llvm::Value *at = kb.b.CreateAdd(
              srcBase, kb.b.CreateAdd(kb.b.CreateMul(col, kb.idx(pair.srcColStride)), r0));
          v.push_back(kb.loadVec(src, at, lanes, static_cast<unsigned>(rowCount)));
        }
        v = transposeVectors(kb, v, lanes);
        for (int64_t k = 0; k < rowCount; ++k) {
          llvm::Value *row = kb.b.CreateAdd(r0, kb.idx(k));
          llvm::Value *at = kb.b.CreateAdd(
              dstBase, kb.b.CreateAdd(kb.b.CreateMul(row, kb.idx(pair.dstRowStride)), c0));
          kb.storeVec(v[k], dst, at, static_cast<unsigned>(colCount));
        }
      });
    });
  });
  return true;
}

/// Channels at most that emitDeinterleaveTranspose splits.
constexpr int64_t kMaxDeinterleavedChannels = 4;

/// A Transpose of swapped pair `pair` whose rows are a few channels (2 to
/// kMaxDeinterleavedChannels), stored side by side (NHWC -> NCHW of an
/// image's 3 channels, TFLite's input before the first Conv): a step loads
/// `channels` x L consecutive elements, a vector's worth of each channel,
/// and splits them by shuffles of stride `channels`, one vector a channel,
/// stored along the output's rows; the last step of a row overlaps the one
/// before. The strided copy moves an element at a time. Any dtype; false
/// (nothing emitted) where the rows are not such channels or a row of the
/// output is shorter than a vector.
bool emitDeinterleaveTranspose(KernelBuilder &kb, const TensorType &ot, const SwappedPair &pair,
                               llvm::Value *src, llvm::Value *dst) {
  // A vector's bytes, in elements of the dtype.
  const int64_t lanes = int64_t(kb.vec.lanes) * 4 / int64_t(dtypeSize(ot.dtype));
  const int64_t channels = pair.rows, cols = pair.cols;
  if (kb.vec.lanes == 1 || lanes < 2 || channels < 2 || channels > kMaxDeinterleavedChannels ||
      cols < lanes || pair.srcColStride != channels)
    return false;
  llvm::Type *elem = kb.elemType(ot.dtype);
  if (elem->getPrimitiveSizeInBits() != 8 * dtypeSize(ot.dtype))
    return false;
  auto *wide = llvm::FixedVectorType::get(elem, unsigned(channels * lanes));
  const llvm::Align align(dtypeSize(ot.dtype));
  llvm::IRBuilder<> &b = kb.b;
  pair.forEachOuter(kb, [&](llvm::Value *srcBase, llvm::Value *dstBase) {
    kb.loop(llvm::divideCeil(cols, lanes), [&](llvm::Value *step) {
      llvm::Value *c0 = b.CreateMul(step, kb.idx(lanes));
      if (cols % lanes)
        c0 = b.CreateSelect(b.CreateICmpULT(c0, kb.idx(cols - lanes)), c0,
                            kb.idx(cols - lanes));
      llvm::Value *at = b.CreateAdd(srcBase, b.CreateMul(c0, kb.idx(channels)));
      llvm::Value *v = b.CreateAlignedLoad(wide, kb.gep(elem, src, at), align);
      for (int64_t c = 0; c < channels; ++c) {
        llvm::SmallVector<int, 64> strided;
        for (int64_t l = 0; l < lanes; ++l)
          strided.push_back(int(c + l * channels));
        llvm::Value *row = b.CreateShuffleVector(v, strided);
        llvm::Value *to =
            b.CreateAdd(dstBase, b.CreateAdd(kb.idx(c * pair.dstRowStride), c0));
        b.CreateAlignedStore(row, kb.gep(elem, dst, to), align);
      }
    });
  });
  return true;
}

} // namespace

llvm::Error emitTranspose(KernelBuilder &kb, const KernelArgs &args) {
  const Node &n = args.node;
  const TensorType &it = n.getInput(0)->getType();
  const TensorType &ot = n.getOutput()->getType();
  size_t rank = it.rank();
  Shape perm;
  if (auto p = TransposeView(n).perm())
    perm.assign(p->begin(), p->end());
  else
    for (size_t i = 0; i < rank; ++i)
      perm.push_back(rank - 1 - i);
  Shape inStrides = rowMajorStrides(it.shape), srcStrides;
  for (int64_t p : perm)
    srcStrides.push_back(inStrides[p]);
  if (std::optional<SwappedPair> pair = swappedPair(ot, srcStrides))
    if (emitBlockTranspose(kb, ot, *pair, args.inputs[0], args.outputs[0]) ||
        emitDeinterleaveTranspose(kb, ot, *pair, args.inputs[0], args.outputs[0]))
      return llvm::Error::success();
  kb.stridedCopy(kb.elemType(it.dtype), ot.shape, args.inputs[0], srcStrides, 0,
                 args.outputs[0], rowMajorStrides(ot.shape), 0);
  return llvm::Error::success();
}

llvm::Error emitConcat(KernelBuilder &kb, const KernelArgs &args) {
  const Node &n = args.node;
  const TensorType &ot = n.getOutput()->getType();
  int64_t axis = ConcatView(n).axis();
  if (axis < 0)
    axis += ot.rank();
  Shape outStrides = rowMajorStrides(ot.shape);
  int64_t offset = 0;
  for (size_t i = 0; i < n.getNumInputs(); ++i) {
    const TensorType &it = n.getInput(i)->getType();
    kb.stridedCopy(kb.elemType(it.dtype), it.shape, args.inputs[i],
                   rowMajorStrides(it.shape), 0, args.outputs[0], outStrides,
                   offset * outStrides[axis]);
    offset += it.shape[axis];
  }
  return llvm::Error::success();
}

/// The constant fill value in the element type (any dtype).
static llvm::Value *fillValue(KernelBuilder &kb, DType dt, float value) {
  llvm::Type *ty = kb.elemType(dt);
  if (dt == DType::F32 || dt == DType::F16)
    return llvm::ConstantFP::get(ty, value);
  if (dt == DType::Bool)
    return llvm::ConstantInt::get(ty, value != 0);
  return llvm::ConstantInt::get(ty, static_cast<int64_t>(value), true);
}

llvm::Error emitPad(KernelBuilder &kb, const KernelArgs &args) {
  const Node &n = args.node;
  PadView pad(n);
  llvm::StringRef mode = pad.mode();
  const TensorType &it = pad.input()->getType();
  const TensorType &ot = n.getOutput()->getType();
  llvm::ArrayRef<int64_t> pads = pad.pads();
  size_t rank = it.rank();
  llvm::Type *ty = kb.elemType(it.dtype);
  Shape outStrides = rowMajorStrides(ot.shape), inStrides = rowMajorStrides(it.shape);
  if (mode != "constant") {
    // edge, reflect and wrap: every output element reads the input element
    // its index maps to, dimension by dimension.
    auto &b = kb.b;
    bool edge = mode == "edge";
    kb.nest(ot.shape, [&](llvm::ArrayRef<llvm::Value *> o) {
      llvm::Value *src = kb.idx(0);
      for (size_t d = 0; d < rank; ++d) {
        int64_t size = it.shape[d];
        llvm::Value *j = b.CreateSub(o[d], kb.idx(pads[d]));
        if (mode == "wrap") {
          // j mod size, in [0, size) for negative j too.
          j = b.CreateSRem(b.CreateAdd(b.CreateSRem(j, kb.idx(size)), kb.idx(size)),
                           kb.idx(size));
          src = b.CreateAdd(src, b.CreateMul(j, kb.idx(inStrides[d])));
          continue;
        }
        llvm::Value *below = b.CreateICmpSLT(j, kb.idx(0));
        llvm::Value *above = b.CreateICmpSGE(j, kb.idx(size));
        llvm::Value *lo = edge ? kb.idx(0) : b.CreateSub(kb.idx(0), j);
        llvm::Value *hi = edge ? kb.idx(size - 1)
                               : b.CreateSub(kb.idx(2 * (size - 1)), j);
        j = b.CreateSelect(below, lo, b.CreateSelect(above, hi, j));
        src = b.CreateAdd(src, b.CreateMul(j, kb.idx(inStrides[d])));
      }
      kb.store(kb.load(ty, args.inputs[0], src), args.outputs[0],
               kb.linear(o, outStrides));
    });
    return llvm::Error::success();
  }
  // Negative pads crop: read from inside the input instead.
  int64_t dstOffset = 0, srcOffset = 0;
  Shape copyShape;
  for (size_t d = 0; d < rank; ++d) {
    int64_t begin = pads[d], end = pads[d + rank];
    dstOffset += std::max<int64_t>(begin, 0) * outStrides[d];
    srcOffset += std::max<int64_t>(-begin, 0) * inStrides[d];
    copyShape.push_back(it.shape[d] + std::min<int64_t>(begin, 0) +
                        std::min<int64_t>(end, 0));
  }
  llvm::Value *fill = fillValue(kb, it.dtype, pad.value());
  kb.loop(ot.numElements(), [&](llvm::Value *i) { kb.store(fill, args.outputs[0], i); });
  kb.stridedCopy(ty, copyShape, args.inputs[0], inStrides, srcOffset,
                 args.outputs[0], outStrides, dstOffset);
  return llvm::Error::success();
}

llvm::Error emitExpand(KernelBuilder &kb, const KernelArgs &args) {
  const Node &n = args.node;
  const TensorType &it = n.getInput(0)->getType();
  const TensorType &ot = n.getOutput()->getType();
  // Broadcast dimensions read with stride 0.
  Shape own = rowMajorStrides(it.shape), strides(ot.rank(), 0);
  size_t lead = ot.rank() - it.rank();
  for (size_t d = 0; d < it.rank(); ++d)
    strides[lead + d] = it.shape[d] == 1 ? 0 : own[d];
  kb.stridedCopy(kb.elemType(it.dtype), ot.shape, args.inputs[0], strides, 0,
                 args.outputs[0], rowMajorStrides(ot.shape), 0);
  return llvm::Error::success();
}

llvm::Error emitSlice(KernelBuilder &kb, const KernelArgs &args) {
  const Node &n = args.node;
  const TensorType &it = n.getInput(0)->getType();
  const TensorType &ot = n.getOutput()->getType();
  // Lowering made starts and steps explicit for every axis.
  SliceView slice(n);
  llvm::ArrayRef<int64_t> starts = slice.starts(), steps = *slice.steps();
  Shape inStrides = rowMajorStrides(it.shape), outStrides = rowMajorStrides(ot.shape);
  int64_t base = 0;
  Shape srcStrides;
  for (size_t d = 0; d < it.rank(); ++d) {
    base += starts[d] * inStrides[d];
    srcStrides.push_back(steps[d] * inStrides[d]);
  }
  llvm::Type *ty = kb.elemType(it.dtype);
  // Forward steps: a strided copy (KernelBuilder::linear's no-wrap offsets).
  if (llvm::all_of(steps, [](int64_t step) { return step > 0; })) {
    kb.stridedCopy(ty, ot.shape, args.inputs[0], srcStrides, base, args.outputs[0], outStrides,
                   0);
    return llvm::Error::success();
  }
  // A negative step: offsets computed without no-wrap flags.
  auto &b = kb.b;
  kb.nest(ot.shape, [&](llvm::ArrayRef<llvm::Value *> o) {
    llvm::Value *src = kb.idx(base);
    for (size_t d = 0; d < o.size(); ++d)
      src = b.CreateAdd(src, b.CreateMul(o[d], kb.idx(srcStrides[d])));
    kb.store(kb.load(ty, args.inputs[0], src), args.outputs[0],
             kb.linear(o, outStrides));
  });
  return llvm::Error::success();
}

} // namespace codegen
} // namespace kiln
