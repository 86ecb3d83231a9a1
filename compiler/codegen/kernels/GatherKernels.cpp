//===- GatherKernels.cpp - Gathers and scatters by index tensors ----------===//
//
// Gather, GatherElements and GatherND read data at positions given by an
// i32/i64 index tensor; ScatterElements and ScatterND copy their data input
// to the output and then write (or add, or multiply) updates at such
// positions, in index order. Negative indices count from the end; an index
// out of range is clamped into it, so a bad index can never make the bundle
// touch memory outside a tensor (the reference reports it as an error).
// Elements are moved in their storage type, so every dtype works (and the
// reductions of scatters use integer or f32 arithmetic).
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/Kernels.h"
#include "compiler/ops/OpViews.h"
#include "compiler/ops/ShapeIndexing.h"

namespace kiln {
namespace codegen {

namespace {

/// Element `at` of an index tensor as a non-negative, in-range index into a
/// dimension of `size`.
llvm::Value *loadIndex(KernelBuilder &kb, llvm::Value *base, llvm::Value *at,
                       DType dt, int64_t size) {
  auto &b = kb.b;
  llvm::Value *raw = kb.load(kb.elemType(dt), base, at);
  llvm::Value *i = b.CreateSExtOrTrunc(raw, kb.idxTy);
  i = b.CreateSelect(b.CreateICmpSLT(i, kb.idx(0)), b.CreateAdd(i, kb.idx(size)), i);
  i = b.CreateSelect(b.CreateICmpSLT(i, kb.idx(0)), kb.idx(0), i);
  return b.CreateSelect(b.CreateICmpSGT(i, kb.idx(size - 1)), kb.idx(size - 1), i);
}

/// sum(ivs[d] * strides[d]) without the no-wrap flags of
/// KernelBuilder::linear.
llvm::Value *offsetOf(KernelBuilder &kb, llvm::ArrayRef<llvm::Value *> ivs,
                      llvm::ArrayRef<int64_t> strides) {
  llvm::Value *acc = kb.idx(0);
  for (size_t d = 0; d < ivs.size(); ++d)
    if (strides[d])
      acc = kb.b.CreateAdd(acc, kb.b.CreateMul(ivs[d], kb.idx(strides[d])));
  return acc;
}

/// Combines an update into the element at `at` of `out`.
void combine(KernelBuilder &kb, const Node &n, llvm::Type *ty, llvm::Value *out,
             llvm::Value *at, llvm::Value *update) {
  llvm::StringRef reduction = ScatterView(n).reduction();
  if (reduction == "none") {
    kb.store(update, out, at);
    return;
  }
  auto &b = kb.b;
  llvm::Value *old = kb.load(ty, out, at);
  bool isFloat = ty->isFloatingPointTy();
  DType dt = n.getInput(0)->getType().dtype;
  bool isUnsigned = dt == DType::U8 || dt == DType::U16 || dt == DType::U32 ||
                    dt == DType::U64 || dt == DType::Bool;
  llvm::Value *r;
  if (reduction == "add")
    r = isFloat ? b.CreateFAdd(old, update) : b.CreateAdd(old, update);
  else if (reduction == "mul")
    r = isFloat ? b.CreateFMul(old, update) : b.CreateMul(old, update);
  else if (isFloat) // max and min propagate NaN.
    r = reduction == "max" ? b.CreateMaximum(old, update) : b.CreateMinimum(old, update);
  else
    r = b.CreateBinaryIntrinsic(reduction == "max"
                                    ? (isUnsigned ? llvm::Intrinsic::umax : llvm::Intrinsic::smax)
                                    : (isUnsigned ? llvm::Intrinsic::umin : llvm::Intrinsic::smin),
                                old, update);
  kb.store(r, out, at);
}

/// Where each index tuple of GatherND/ScatterND points and what it covers.
struct NDLayout {
  int64_t batchDims, k, batches, perBatch, sliceSize, batchStride;
};

NDLayout ndLayout(const Node &n) {
  const TensorType &data = n.getInput(0)->getType();
  const TensorType &indices = n.getInput(1)->getType();
  NDLayout l;
  l.batchDims = GatherNDView::accepts(n) ? GatherNDView(n).batchDims() : 0;
  l.k = indices.shape.back();
  l.batches = l.perBatch = l.sliceSize = 1;
  for (int64_t d = 0; d < l.batchDims; ++d)
    l.batches *= data.shape[d];
  for (size_t d = l.batchDims; d + 1 < indices.rank(); ++d)
    l.perBatch *= indices.shape[d];
  for (size_t d = l.batchDims + l.k; d < data.rank(); ++d)
    l.sliceSize *= data.shape[d];
  Shape strides = rowMajorStrides(data.shape);
  l.batchStride = l.batchDims ? strides[l.batchDims - 1] : 0;
  return l;
}

/// Calls fn(tuple, at): for every index tuple of GatherND/ScatterND, its
/// number and the offset of the slice it addresses in data.
void forEachTuple(KernelBuilder &kb, const Node &n, llvm::Value *indices,
                  llvm::function_ref<void(llvm::Value *, llvm::Value *)> fn) {
  auto &b = kb.b;
  const TensorType &data = n.getInput(0)->getType();
  DType idxType = n.getInput(1)->getType().dtype;
  NDLayout l = ndLayout(n);
  Shape strides = rowMajorStrides(data.shape);
  kb.loop(l.batches * l.perBatch, [&](llvm::Value *t) {
    llvm::Value *batch = b.CreateSDiv(t, kb.idx(l.perBatch));
    llvm::Value *at = b.CreateMul(batch, kb.idx(l.batchStride));
    for (int64_t q = 0; q < l.k; ++q) {
      int64_t d = l.batchDims + q;
      llvm::Value *pos = b.CreateAdd(b.CreateMul(t, kb.idx(l.k)), kb.idx(q));
      llvm::Value *i = loadIndex(kb, indices, pos, idxType, data.shape[d]);
      at = b.CreateAdd(at, b.CreateMul(i, kb.idx(strides[d])));
    }
    fn(t, at);
  });
}

/// Calls fn(ivs, at) for every element of the indices of GatherElements /
/// ScatterElements, with `at` the data element it addresses.
void forEachElement(KernelBuilder &kb, const Node &n, llvm::Value *indices,
                    llvm::function_ref<void(llvm::ArrayRef<llvm::Value *>,
                                            llvm::Value *)> fn) {
  IndexAxisView v(n);
  const TensorType &data = v.data()->getType();
  const TensorType &it = v.indices()->getType();
  int64_t axis = v.axis();
  if (axis < 0)
    axis += data.rank();
  Shape dataStrides = rowMajorStrides(data.shape), others = dataStrides;
  others[axis] = 0;
  Shape idxStrides = rowMajorStrides(it.shape);
  kb.nest(it.shape, [&](llvm::ArrayRef<llvm::Value *> ivs) {
    llvm::Value *i = loadIndex(kb, indices, offsetOf(kb, ivs, idxStrides),
                               it.dtype, data.shape[axis]);
    llvm::Value *at = kb.b.CreateAdd(offsetOf(kb, ivs, others),
                                     kb.b.CreateMul(i, kb.idx(dataStrides[axis])));
    fn(ivs, at);
  });
}

} // namespace

llvm::Error emitGather(KernelBuilder &kb, const KernelArgs &args) {
  const Node &n = args.node;
  auto &b = kb.b;
  const TensorType &data = n.getInput(0)->getType();
  const TensorType &it = n.getInput(1)->getType();
  const TensorType &ot = n.getOutput()->getType();
  llvm::Type *ty = kb.elemType(data.dtype);
  llvm::Value *src = args.inputs[0], *indices = args.inputs[1];
  llvm::Value *dst = args.outputs[0];
  if (n.is(OpKind::GatherElements)) {
    Shape outStrides = rowMajorStrides(ot.shape);
    forEachElement(kb, n, indices, [&](llvm::ArrayRef<llvm::Value *> ivs,
                                       llvm::Value *at) {
      kb.store(kb.load(ty, src, at), dst, offsetOf(kb, ivs, outStrides));
    });
    return llvm::Error::success();
  }
  if (n.is(OpKind::GatherND)) {
    int64_t slice = ndLayout(n).sliceSize;
    forEachTuple(kb, n, indices, [&](llvm::Value *t, llvm::Value *at) {
      llvm::Value *to = b.CreateMul(t, kb.idx(slice));
      kb.loop(slice, [&](llvm::Value *s) {
        kb.store(kb.load(ty, src, b.CreateAdd(at, s)), dst, b.CreateAdd(to, s));
      });
    });
    return llvm::Error::success();
  }
  // Gather: data [outer, axisLen, inner] -> out [outer, J, inner].
  int64_t axis = IndexAxisView(n).axis();
  if (axis < 0)
    axis += data.rank();
  auto [outer, axisLen, inner] = splitAtAxis(data.shape, axis);
  int64_t count = it.numElements();
  kb.nest({outer, count, inner}, [&](llvm::ArrayRef<llvm::Value *> ivs) {
    llvm::Value *i = loadIndex(kb, indices, ivs[1], it.dtype, axisLen);
    llvm::Value *from = offsetOf(kb, {ivs[0], i, ivs[2]},
                                 {axisLen * inner, inner, 1});
    llvm::Value *to = offsetOf(kb, ivs, {count * inner, inner, 1});
    kb.store(kb.load(ty, src, from), dst, to);
  });
  return llvm::Error::success();
}

llvm::Error emitScatter(KernelBuilder &kb, const KernelArgs &args) {
  const Node &n = args.node;
  auto &b = kb.b;
  ScatterView scatter(n);
  const TensorType &data = scatter.data()->getType();
  if (scatter.reduction() != "none" && data.dtype == DType::F16)
    return nodeError(n, "reduction on f16 is not supported by the code "
                        "generator");
  llvm::Type *ty = kb.elemType(data.dtype);
  llvm::Value *dst = args.outputs[0], *indices = args.inputs[1];
  llvm::Value *updates = args.inputs[2];
  kb.loop(data.numElements(), [&](llvm::Value *i) {
    kb.store(kb.load(ty, args.inputs[0], i), dst, i);
  });
  if (n.is(OpKind::ScatterElements)) {
    Shape updStrides = rowMajorStrides(scatter.updates()->getType().shape);
    forEachElement(kb, n, indices, [&](llvm::ArrayRef<llvm::Value *> ivs,
                                       llvm::Value *at) {
      combine(kb, n, ty, dst, at,
              kb.load(ty, updates, offsetOf(kb, ivs, updStrides)));
    });
    return llvm::Error::success();
  }
  int64_t slice = ndLayout(n).sliceSize;
  forEachTuple(kb, n, indices, [&](llvm::Value *t, llvm::Value *at) {
    llvm::Value *from = b.CreateMul(t, kb.idx(slice));
    kb.loop(slice, [&](llvm::Value *s) {
      combine(kb, n, ty, dst, b.CreateAdd(at, s),
              kb.load(ty, updates, b.CreateAdd(from, s)));
    });
  });
  return llvm::Error::success();
}

} // namespace codegen
} // namespace kiln
