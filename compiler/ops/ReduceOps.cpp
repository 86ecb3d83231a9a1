//===- ReduceOps.cpp - Reductions and ArgMax/ArgMin -------------------------===//
//
// ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd, ReduceL1,
// ReduceL2, ReduceLogSum, ReduceLogSumExp and ReduceSumSquare (opset 13
// semantics; ReduceSum-13's axes input is an attribute in kiln, as for the
// others): `axes` absent or empty reduces every axis, unless
// noop_with_empty_axes is set, which makes the op the identity. ArgMax and
// ArgMin (opset 13) give int64 indices along one axis.
//
//===----------------------------------------------------------------------===//
#include "compiler/graph/Graph.h"
#include "compiler/ops/Int8Eval.h"
#include "compiler/ops/QuantizedTypes.h"
#include "compiler/ops/ElementwiseEval.h"
#include "compiler/ops/OpFamilies.h"
#include "compiler/ops/OpGeometry.h"
#include "compiler/ops/OpViews.h"
#include "compiler/ops/ShapeIndexing.h"
#include "compiler/ops/TypeRuleHelpers.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <limits>

namespace kiln {
namespace {

bool isArg(const Node &n) { return ArgReduceView::accepts(n); }

} // namespace

llvm::Expected<llvm::SmallVector<bool, 6>> reducedAxes(const Node &n) {
  int64_t rank = inputType(n, 0).rank();
  llvm::SmallVector<bool, 6> reduced(rank, false);
  if (isArg(n)) {
    int64_t argAxis = ArgReduceView(n).axis();
    std::optional<int64_t> axis = normalizeAxis(argAxis, rank);
    if (!axis)
      return nodeError(n, llvm::formatv("axis {0} is out of range for rank {1}",
                                        argAxis, rank));
    reduced[*axis] = true;
    return reduced;
  }
  ReduceView reduce(n);
  llvm::ArrayRef<int64_t> axes =
      reduce.axes().value_or(llvm::ArrayRef<int64_t>());
  if (axes.empty()) {
    if (reduce.noopWithEmptyAxes() == 0)
      reduced.assign(rank, true);
    return reduced;
  }
  for (int64_t a : axes) {
    std::optional<int64_t> axis = normalizeAxis(a, rank);
    if (!axis || reduced[*axis])
      return nodeError(n, "axes " + shapeStr(axes) +
                              " are out of range or repeat an axis for rank " +
                              std::to_string(rank));
    reduced[*axis] = true;
  }
  return reduced;
}

namespace {

llvm::Expected<TypeList> inferReduce(const Node &n) {
  if (llvm::Error e = expectDType(n, 0, numericDTypes()))
    return e;
  const TensorType &x = inputType(n, 0);
  auto reduced = reducedAxes(n);
  if (!reduced)
    return reduced.takeError();
  int64_t keepdims =
      isArg(n) ? ArgReduceView(n).keepdims() : ReduceView(n).keepdims();
  bool keep = keepdims != 0;
  Shape out;
  for (size_t d = 0; d < x.rank(); ++d) {
    if (!(*reduced)[d])
      out.push_back(x.shape[d]);
    else if (keep)
      out.push_back(1);
  }
  if (x.quant.isQuantized()) {
    if (llvm::Error e = expectQuantizedInt8(n, 0))
      return std::move(e);
    auto t = quantizedResult(n, out);
    if (!t)
      return t.takeError();
    return TypeList{*t};
  }
  return TypeList{TensorType(isArg(n) ? DType::I64 : x.dtype, out)};
}

/// The value a reduction starts from.
double initial(OpKind k) {
  switch (k) {
  case OpKind::ReduceMax: return -std::numeric_limits<double>::infinity();
  case OpKind::ReduceMin: return std::numeric_limits<double>::infinity();
  case OpKind::ReduceProd: return 1.0;
  default: return 0.0;
  }
}

double accumulate(OpKind k, double acc, double x) {
  switch (k) {
  case OpKind::ReduceMax: return x > acc || std::isnan(x) ? x : acc;
  case OpKind::ReduceMin: return x < acc || std::isnan(x) ? x : acc;
  case OpKind::ReduceProd: return acc * x;
  case OpKind::ReduceL1: return acc + std::fabs(x);
  case OpKind::ReduceL2:
  case OpKind::ReduceSumSquare: return acc + x * x;
  default: return acc + x;
  }
}

double finish(OpKind k, double acc, int64_t count) {
  switch (k) {
  case OpKind::ReduceMean: return acc / count;
  case OpKind::ReduceL2: return std::sqrt(acc);
  case OpKind::ReduceLogSum: return std::log(acc);
  default: return acc;
  }
}

llvm::Error evalReduce(const Node &n, llvm::ArrayRef<const Tensor *> in,
                       llvm::MutableArrayRef<Tensor> out) {
  if (in[0]->getType().quant.isQuantized())
    return evalMeanInt8(n, in, out);
  const Tensor &x = *in[0];
  Tensor &y = out[0];
  auto reduced = reducedAxes(n);
  if (!reduced)
    return reduced.takeError();
  llvm::ArrayRef<int64_t> shape = x.getShape();
  // The output element of every input element: its index with the reduced
  // axes zeroed, in the keepdims shape (the same order without keepdims).
  Shape keptShape;
  for (size_t d = 0; d < shape.size(); ++d)
    keptShape.push_back((*reduced)[d] ? 1 : shape[d]);
  Shape outStrides = broadcastStrides(keptShape, shape);
  int64_t count = 1;
  for (size_t d = 0; d < shape.size(); ++d)
    if ((*reduced)[d])
      count *= shape[d];
  int64_t outCount = y.numElements();
  OpKind k = n.getKind();
  std::vector<double> acc(outCount, initial(k));
  std::vector<int64_t> best(outCount, -1);
  // LogSumExp subtracts each group's maximum first, so exp cannot overflow.
  std::vector<double> maxima(outCount, -std::numeric_limits<double>::infinity());
  bool last = isArg(n) && ArgReduceView(n).selectLastIndex() != 0;
  int64_t axis = 0;
  for (size_t d = 0; d < shape.size(); ++d)
    if ((*reduced)[d])
      axis = d;
  for (int pass = 0; pass < (k == OpKind::ReduceLogSumExp ? 2 : 1); ++pass) {
    StridedIndex it(shape, {outStrides});
    for (int64_t i = 0, e = x.numElements(); i < e; ++i, it.next()) {
      int64_t o = it.offset(0);
      double v = readFloat(x, i);
      if (isArg(n)) {
        double cur = best[o] < 0 ? 0 : acc[o];
        bool better = best[o] < 0 ||
                      (n.is(OpKind::ArgMax) ? (last ? v >= cur : v > cur)
                                            : (last ? v <= cur : v < cur));
        if (better) {
          acc[o] = v;
          best[o] = it.index()[axis];
        }
      } else if (k == OpKind::ReduceLogSumExp && pass == 0) {
        maxima[o] = std::max(maxima[o], v);
      } else if (k == OpKind::ReduceLogSumExp) {
        acc[o] += std::exp(v - maxima[o]);
      } else {
        acc[o] = accumulate(k, acc[o], v);
      }
    }
  }
  for (int64_t o = 0; o < outCount; ++o) {
    if (isArg(n)) {
      y.data<int64_t>()[o] = best[o] < 0 ? 0 : best[o];
      continue;
    }
    double r = k == OpKind::ReduceLogSumExp ? maxima[o] + std::log(acc[o])
                                            : finish(k, acc[o], count);
    if (isFloatDType(y.getDType()))
      writeFloat(y, o, r);
    else
      writeInt(y, o, static_cast<int64_t>(r));
  }
  return llvm::Error::success();
}

OpDef reduceDef(OpKind kind, const char *name) {
  return {kind,
          name,
          1,
          1,
          1,
          1,
          {{"axes", AttrKind::Ints, std::nullopt},
           flagAttr("keepdims", 1),
           flagAttr("noop_with_empty_axes", 0),
           quantAttrSpec()},
          inferReduce,
          evalReduce};
}

OpDef argDef(OpKind kind, const char *name) {
  return {kind,
          name,
          1,
          1,
          1,
          1,
          {{"axis", AttrKind::Int, Attr::ofInt(0)},
           flagAttr("keepdims", 1),
           flagAttr("select_last_index", 0)},
          inferReduce,
          evalReduce};
}

} // namespace

void registerReduceOps(std::vector<OpDef> &defs) {
  defs.push_back(reduceDef(OpKind::ReduceSum, "ReduceSum"));
  defs.push_back(reduceDef(OpKind::ReduceMean, "ReduceMean"));
  defs.back().traits |= kInt8KernelTrait;
  defs.push_back(reduceDef(OpKind::ReduceMax, "ReduceMax"));
  defs.push_back(reduceDef(OpKind::ReduceMin, "ReduceMin"));
  defs.push_back(reduceDef(OpKind::ReduceProd, "ReduceProd"));
  defs.push_back(reduceDef(OpKind::ReduceL1, "ReduceL1"));
  defs.push_back(reduceDef(OpKind::ReduceL2, "ReduceL2"));
  defs.push_back(reduceDef(OpKind::ReduceLogSum, "ReduceLogSum"));
  defs.push_back(reduceDef(OpKind::ReduceLogSumExp, "ReduceLogSumExp"));
  defs.push_back(reduceDef(OpKind::ReduceSumSquare, "ReduceSumSquare"));
  defs.push_back(argDef(OpKind::ArgMax, "ArgMax"));
  defs.push_back(argDef(OpKind::ArgMin, "ArgMin"));
}

} // namespace kiln
