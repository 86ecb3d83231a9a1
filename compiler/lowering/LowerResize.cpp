//===- LowerResize.cpp - Resize -> gathers, weights and sums --------------===//
//
// An f32 Resize of the last two axes stays for its one-pass kernel
// (codegen/kernels/ResizeKernel.cpp). Any other Resize is separable and its
// taps are known at compile time (resizeTaps), so each resized axis becomes sum_t Gather(x, indices_t, axis) * weights_t
// with constant index and weight vectors (weights broadcast along the
// axis); taps whose weights are all 0 are dropped and all-1 taps need no
// Mul, so nearest-neighbour resizing is Gathers only. Positions outside a
// tf_crop_and_resize roi take extrapolation_value through a Where over a
// constant mask.
//
//===----------------------------------------------------------------------===//
#include "compiler/lowering/LowerRules.h"
#include "compiler/graph/Half.h"
#include "compiler/ops/OpGeometry.h"
#include "compiler/ops/OpViews.h"
#include "compiler/ops/ShapeIndexing.h"
#include "compiler/graph/Rewrite.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"

namespace kiln {

namespace {

/// A constant of `dtype` (f32 or f16) and `shape` holding `values`.
Tensor floatConstant(DType dtype, llvm::ArrayRef<int64_t> shape,
                     llvm::ArrayRef<double> values) {
  Tensor t(TensorType(dtype, shape));
  for (size_t i = 0; i < values.size(); ++i) {
    if (dtype == DType::F16)
      t.data<uint16_t>()[i] = floatToHalf(static_cast<float>(values[i]));
    else
      t.setFromDouble(i, values[i]);
  }
  return t;
}

/// Whether the taps of an axis just copy it (output o reads input o).
bool isIdentity(const ResizeTaps &a, int64_t inSize) {
  int64_t outSize = a.outside.size();
  if (outSize != inSize)
    return false;
  for (int64_t o = 0; o < outSize; ++o) {
    double own = 0;
    for (int64_t t = 0; t < a.taps; ++t) {
      double w = a.weights[o * a.taps + t];
      if (a.indices[o * a.taps + t] == o)
        own += w;
      else if (w != 0)
        return false;
    }
    if (own != 1 || a.outside[o])
      return false;
  }
  return true;
}

} // namespace

llvm::Expected<bool> lowerResize(Graph &g, Node *n) {
  std::vector<ResizeTaps> axes = resizeTaps(*n);
  Value *v = n->getInput(0);
  // f32 images: the Resize kernel reads every output's taps in one pass.
  llvm::ArrayRef<int64_t> shape = v->getType().shape;
  if (v->getType().dtype == DType::F32 && shape.size() >= 2 &&
      llvm::all_of(llvm::seq<size_t>(0, shape.size() - 2),
                   [&](size_t d) { return isIdentity(axes[d], shape[d]); }))
    return false;
  DType dtype = v->getType().dtype;
  std::string base = n->getName().str();
  for (size_t d = 0; d < axes.size(); ++d) {
    const ResizeTaps &a = axes[d];
    if (isIdentity(a, v->getType().shape[d]))
      continue;
    int64_t outSize = a.outside.size();
    Shape weightShape(v->getType().rank() - d, 1);
    weightShape[0] = outSize;
    Value *acc = nullptr;
    for (int64_t t = 0; t < a.taps; ++t) {
      Shape idx;
      llvm::SmallVector<double, 16> w;
      for (int64_t o = 0; o < outSize; ++o) {
        idx.push_back(a.indices[o * a.taps + t]);
        w.push_back(a.weights[o * a.taps + t]);
      }
      if (llvm::all_of(w, [](double x) { return x == 0; }))
        continue;
      std::string tap = "axis" + std::to_string(d) + "_tap" + std::to_string(t);
      Value *indices = g.addConstant(
          base + "/" + tap + "_indices",
          Tensor::fromValues<int64_t>(DType::I64, {outSize}, idx));
      auto gather = addHelperNode(g, *n, tap, OpKind::Gather, {v, indices},
                                  {{"axis", Attr::ofInt(d)}});
      if (!gather)
        return gather.takeError();
      Value *term = (*gather)->getOutput();
      if (!llvm::all_of(w, [](double x) { return x == 1; })) {
        Value *weights = g.addConstant(base + "/" + tap + "_weights",
                                       floatConstant(dtype, weightShape, w));
        auto mul = addHelperNode(g, *n, tap + "_weighted", OpKind::Mul,
                                 {term, weights});
        if (!mul)
          return mul.takeError();
        term = (*mul)->getOutput();
      }
      if (acc) {
        auto add = addHelperNode(g, *n, tap + "_sum", OpKind::Add, {acc, term});
        if (!add)
          return add.takeError();
        term = (*add)->getOutput();
      }
      acc = term;
    }
    v = acc;
  }
  const TensorType &yt = n->getOutput()->getType();
  bool anyOutside = llvm::any_of(axes, [](const ResizeTaps &a) {
    return llvm::is_contained(a.outside, true);
  });
  if (anyOutside) {
    Tensor mask(TensorType(DType::Bool, yt.shape));
    StridedIndex it(yt.shape, {});
    for (int64_t i = 0, e = mask.numElements(); i < e; ++i, it.next())
      for (size_t d = 0; d < axes.size(); ++d)
        mask.data<uint8_t>()[i] |= axes[d].outside[it.index()[d]];
    Value *maskValue = g.addConstant(base + "/outside", std::move(mask));
    Value *ext = g.addConstant(
        base + "/extrapolation",
        floatConstant(dtype, {},
                      {double(ResizeView(*n).extrapolationValue())}));
    auto where = addHelperNode(g, *n, "extrapolate", OpKind::Where,
                               {maskValue, ext, v});
    if (!where)
      return where.takeError();
    v = (*where)->getOutput();
  }
  return replaceNode(g, n, v);
}

} // namespace kiln
