//===- ResizeKernel.cpp - Resize of the last two axes in one pass ---------===//
//
// Image resizing (any mode, any coordinate transformation) reads each
// output element's taps straight from the input:
//
//   y[p, oy, ox] = sum_i wy[oy, i] * sum_j wx[ox, j] * x[p, iy[oy, i], ix[ox, j]]
//
// with the taps of both axes (resizeTaps: 1 for nearest, 2 for linear, 4
// for cubic) computed at compile time and kept as constant tables in the
// code's read-only data. Lowering leaves Resize to this kernel when it
// resizes only the last two axes of an f32 tensor; the loop over output
// columns reads the column tables contiguously and vectorizes with gathers.
// Outputs outside a tf_crop_and_resize roi take extrapolation_value.
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/Kernels.h"
#include "compiler/codegen/kernels/IntegerIR.h"
#include "compiler/ops/OpGeometry.h"
#include "compiler/ops/OpViews.h"

#include "llvm/ADT/STLExtras.h"

namespace kiln {
namespace codegen {

namespace {

/// One axis' taps as constant tables: input offsets (index * `stride`,
/// i32) and weights (f32), `taps` per output position; and, when some
/// output lies outside the roi, a 0/1 f32 table of the positions inside.
struct AxisTables {
  int64_t taps;
  llvm::Value *offsets, *weights, *inside = nullptr;
};

AxisTables axisTables(IntegerIR &ir, const ResizeTaps &a, int64_t stride,
                      const llvm::Twine &name) {
  int64_t positions = a.outside.size();
  llvm::SmallVector<int32_t, 64> offsets;
  for (int64_t i : a.indices)
    offsets.push_back(int32_t(i * stride));
  Tensor weights(TensorType(DType::F32, {int64_t(a.weights.size())}));
  for (size_t i = 0; i < a.weights.size(); ++i)
    weights.data<float>()[i] = float(a.weights[i]);
  AxisTables t{a.taps, ir.table(offsets, name + ".offsets"),
               ir.table(weights, name + ".weights")};
  if (llvm::is_contained(a.outside, true)) {
    Tensor inside(TensorType(DType::F32, {positions}));
    for (int64_t o = 0; o < positions; ++o)
      inside.data<float>()[o] = a.outside[o] ? 0.0f : 1.0f;
    t.inside = ir.table(inside, name + ".inside");
  }
  return t;
}

} // namespace

llvm::Error emitResize(KernelBuilder &kb, const KernelArgs &args) {
  const Node &n = args.node;
  ResizeView resize(n);
  if (auto e = requireF32(n, resize.input()))
    return e;
  const TensorType &xt = resize.input()->getType();
  const TensorType &yt = n.getOutput()->getType();
  size_t rank = xt.rank();
  std::vector<ResizeTaps> taps = resizeTaps(n);
  int64_t inH = xt.shape[rank - 2], inW = xt.shape[rank - 1];
  int64_t outH = yt.shape[rank - 2], outW = yt.shape[rank - 1];
  int64_t planes = yt.numElements() / (outH * outW);

  IntegerIR ir(kb);
  AxisTables rows = axisTables(ir, taps[rank - 2], inW, "resize.rows");
  AxisTables cols = axisTables(ir, taps[rank - 1], 1, "resize.cols");
  auto &b = kb.b;
  llvm::Type *f32 = b.getFloatTy(), *i32 = b.getInt32Ty();
  llvm::Value *x = args.inputs[0], *y = args.outputs[0];
  llvm::Value *extrapolation = kb.f32(resize.extrapolationValue());
  kb.nest({planes, outH, outW}, [&](llvm::ArrayRef<llvm::Value *> iv) {
    llvm::Value *plane = b.CreateMul(iv[0], kb.idx(inH * inW));
    llvm::Value *acc = nullptr;
    for (int64_t i = 0; i < rows.taps; ++i) {
      llvm::Value *at = b.CreateAdd(b.CreateMul(iv[1], kb.idx(rows.taps)), kb.idx(i));
      llvm::Value *row = b.CreateAdd(
          plane, b.CreateZExtOrTrunc(kb.load(i32, rows.offsets, at), kb.idxTy));
      llvm::Value *inner = nullptr;
      for (int64_t j = 0; j < cols.taps; ++j) {
        llvm::Value *ct = b.CreateAdd(b.CreateMul(iv[2], kb.idx(cols.taps)), kb.idx(j));
        llvm::Value *col = b.CreateZExtOrTrunc(kb.load(i32, cols.offsets, ct), kb.idxTy);
        llvm::Value *v = kb.load(f32, x, b.CreateAdd(row, col));
        llvm::Value *w = kb.load(f32, cols.weights, ct);
        inner = inner ? kb.fma(w, v, inner) : b.CreateFMul(w, v);
      }
      llvm::Value *w = kb.load(f32, rows.weights, at);
      acc = acc ? kb.fma(w, inner, acc) : b.CreateFMul(w, inner);
    }
    for (auto [axis, t] : {std::pair{iv[1], &rows}, std::pair{iv[2], &cols}})
      if (t->inside)
        acc = b.CreateSelect(
            b.CreateFCmpONE(kb.load(f32, t->inside, axis), kb.f32(0)), acc, extrapolation);
    kb.store(acc, y, kb.linear(iv, {outH * outW, outW, 1}));
  });
  return llvm::Error::success();
}

} // namespace codegen
} // namespace kiln
