//===- BroadcastOps.cpp - Broadcasting comparisons, logic and math ---------===//
//
// Elementwise ops over multidirectionally broadcast operands, beyond
// Add/Sub/Mul/Div: Pow (opset 15), Mod, BitShift (unsigned), the variadic Max,
// Min, Sum and Mean (opset 13), the comparisons Equal, Less, LessOrEqual,
// Greater, GreaterOrEqual and the logical And, Or, Xor (bool results),
// PRelu (opset 16) and Where (opset 16).
//
//===----------------------------------------------------------------------===//
#include "compiler/graph/Graph.h"
#include "compiler/ops/ElementwiseEval.h"
#include "compiler/ops/OpFamilies.h"
#include "compiler/ops/OpViews.h"
#include "compiler/ops/TypeRuleHelpers.h"

#include "llvm/Support/FormatVariadic.h"

#include <climits>
#include <cmath>
#include <cstring>

namespace kiln {
namespace {

bool isComparison(OpKind k) {
  return k == OpKind::Equal || k == OpKind::Less ||
         k == OpKind::LessOrEqual || k == OpKind::Greater ||
         k == OpKind::GreaterOrEqual;
}

/// numpy.maximum / numpy.minimum: a NaN operand gives NaN.
double maxNaN(double a, double b) { return a > b || std::isnan(a) ? a : b; }
double minNaN(double a, double b) { return a < b || std::isnan(a) ? a : b; }

/// Python's modulo for integers: the result has the divisor's sign.
int64_t floorMod(int64_t a, int64_t b) {
  int64_t r = b == -1 ? 0 : a % b;
  return r != 0 && (r < 0) != (b < 0) ? r + b : r;
}

template <typename T> T compareOrLogic(OpKind k, T a, T b) {
  switch (k) {
  case OpKind::Equal: return a == b;
  case OpKind::Less: return a < b;
  case OpKind::LessOrEqual: return a <= b;
  case OpKind::Greater: return a > b;
  case OpKind::GreaterOrEqual: return a >= b;
  case OpKind::And: return a != 0 && b != 0;
  case OpKind::Or: return a != 0 || b != 0;
  case OpKind::Xor: return (a != 0) != (b != 0);
  default: return 0;
  }
}

/// Folds the operands of one element; floats in double.
double floatOp(const Node &n, llvm::ArrayRef<double> x) {
  switch (n.getKind()) {
  case OpKind::Pow: return std::pow(x[0], x[1]);
  case OpKind::Mod: return std::fmod(x[0], x[1]);
  case OpKind::PRelu: return x[0] < 0 ? x[1] * x[0] : x[0];
  case OpKind::Max:
  case OpKind::Min:
  case OpKind::Sum:
  case OpKind::Mean: {
    double acc = x[0];
    for (double v : x.drop_front())
      acc = n.is(OpKind::Max)   ? maxNaN(acc, v)
            : n.is(OpKind::Min) ? minNaN(acc, v)
                                : acc + v;
    return n.is(OpKind::Mean) ? acc / x.size() : acc;
  }
  default: return compareOrLogic(n.getKind(), x[0], x[1]);
  }
}

/// Folds the operands of one element; integers in int64, wrapping.
int64_t intOp(const Node &n, llvm::ArrayRef<int64_t> x) {
  switch (n.getKind()) {
  case OpKind::Pow: {
    // Integer powers by squaring, wrapping; negative exponents truncate
    // towards zero (1/x^k), as the float formula cast back would.
    int64_t base = x[0], e = x[1];
    if (e < 0)
      return base == 1 ? 1 : base == -1 ? (e % 2 ? -1 : 1) : 0;
    uint64_t result = 1, b = uint64_t(base);
    for (; e; e >>= 1, b *= b)
      if (e & 1)
        result *= b;
    return int64_t(result);
  }
  case OpKind::Mod:
    return ModView(n).fmod() ? (x[1] == -1 ? 0 : x[0] % x[1])
                            : floorMod(x[0], x[1]);
  case OpKind::BitShift: {
    uint64_t v = uint64_t(x[0]), s = uint64_t(x[1]);
    if (s >= 64)
      return 0;
    return int64_t(BitShiftView(n).direction() == "LEFT" ? v << s : v >> s);
  }
  case OpKind::PRelu: return x[0] < 0 ? x[1] * x[0] : x[0];
  case OpKind::Max:
  case OpKind::Min:
  case OpKind::Sum: {
    int64_t acc = x[0];
    for (int64_t v : x.drop_front())
      acc = n.is(OpKind::Max)   ? std::max(acc, v)
            : n.is(OpKind::Min) ? std::min(acc, v)
                                : int64_t(uint64_t(acc) + uint64_t(v));
    return acc;
  }
  default: return compareOrLogic(n.getKind(), x[0], x[1]);
  }
}

llvm::Error evalBroadcast(const Node &n, llvm::ArrayRef<const Tensor *> in,
                          llvm::MutableArrayRef<Tensor> out) {
  Tensor &y = out[0];
  // Pow computes in its base's domain: a float base with an integer
  // exponent is float math, an integer base with a float exponent is float
  // math truncated back.
  bool floatMath = llvm::any_of(
      in, [](const Tensor *t) { return isFloatDType(t->getDType()); });
  bool intDivision = (n.is(OpKind::Mod)) && !floatMath;
  if (intDivision)
    for (int64_t i = 0, e = in[1]->numElements(); i < e; ++i)
      if (readInt(*in[1], i) == 0)
        return nodeError(n, "integer modulo by zero");
  llvm::SmallVector<double, 4> fx(in.size());
  llvm::SmallVector<int64_t, 4> ix(in.size());
  forEachBroadcast(in, y.getShape(), [&](int64_t i,
                                         llvm::ArrayRef<int64_t> off) {
    if (floatMath) {
      for (size_t k = 0; k < in.size(); ++k)
        fx[k] = readFloat(*in[k], off[k]);
      double r = floatOp(n, fx);
      if (isFloatDType(y.getDType()))
        writeFloat(y, i, r);
      else
        writeInt(y, i, std::isfinite(r) ? int64_t(r) : 0);
      return;
    }
    for (size_t k = 0; k < in.size(); ++k)
      ix[k] = readInt(*in[k], off[k]);
    writeInt(y, i, intOp(n, ix));
  });
  return llvm::Error::success();
}

llvm::Expected<TypeList> inferBroadcast(const Node &n) {
  OpKind k = n.getKind();
  static const DType boolOnly[] = {DType::Bool};
  static const DType unsignedTypes[] = {DType::U8, DType::U16, DType::U32,
                                        DType::U64};
  static const DType powBaseTypes[] = {DType::F32, DType::F16, DType::I32,
                                       DType::I64};
  static const DType powExponentTypes[] = {
      DType::F32, DType::F16, DType::I8,  DType::U8,  DType::I16,
      DType::U16, DType::I32, DType::U32, DType::I64, DType::U64};
  static const DType equalTypes[] = {
      DType::F32, DType::F16, DType::I8,  DType::U8,  DType::I16, DType::I32,
      DType::I64, DType::U16, DType::U32, DType::U64, DType::Bool};
  llvm::Error e = llvm::Error::success();
  if (k == OpKind::Pow) {
    // Base and exponent may differ in type.
    e = expectDType(n, 0, powBaseTypes);
    if (!e)
      e = expectDType(n, 1, powExponentTypes);
  } else if (k == OpKind::And || k == OpKind::Or || k == OpKind::Xor) {
    e = expectSameDType(n, boolOnly);
  } else if (k == OpKind::BitShift) {
    e = expectSameDType(n, unsignedTypes);
  } else if (k == OpKind::Equal) {
    e = expectSameDType(n, equalTypes);
  } else if (k == OpKind::Sum || k == OpKind::Mean || k == OpKind::PRelu) {
    e = expectSameDType(n, floatDTypes());
  } else {
    e = expectSameDType(n, numericDTypes());
  }
  if (e)
    return std::move(e);
  if (k == OpKind::Mod && ModView(n).fmod() == 0 &&
      isFloatDType(inputType(n, 0).dtype))
    return nodeError(n, "fmod must be 1 for floating-point inputs");
  auto shape = broadcastInputShapes(n);
  if (!shape)
    return shape.takeError();
  const TensorType &x = inputType(n, 0);
  // PRelu broadcasts the slope to X only (unidirectionally).
  if (k == OpKind::PRelu && *shape != x.shape)
    return nodeError(n, "slope " + inputType(n, 1).str() +
                            " does not broadcast to X " + x.str());
  bool boolResult = isComparison(k) || k == OpKind::And || k == OpKind::Or ||
                    k == OpKind::Xor;
  return TypeList{TensorType(boolResult ? DType::Bool : x.dtype, *shape)};
}

//===----------------------------------------------------------------------===//
// Where
//===----------------------------------------------------------------------===//

llvm::Expected<TypeList> inferWhere(const Node &n) {
  if (llvm::Error e = expectDType(n, 0, {DType::Bool}))
    return e;
  if (inputType(n, 1).dtype != inputType(n, 2).dtype)
    return nodeError(n, "X " + inputType(n, 1).str() + " and Y " +
                            inputType(n, 2).str() + " differ in dtype");
  auto shape = broadcastInputShapes(n);
  if (!shape)
    return shape.takeError();
  return TypeList{TensorType(inputType(n, 1).dtype, *shape)};
}

llvm::Error evalWhere(const Node &, llvm::ArrayRef<const Tensor *> in,
                      llvm::MutableArrayRef<Tensor> out) {
  Tensor &y = out[0];
  size_t elem = dtypeSize(y.getDType());
  const uint8_t *cond = in[0]->data<uint8_t>();
  forEachBroadcast(in, y.getShape(), [&](int64_t i,
                                         llvm::ArrayRef<int64_t> off) {
    const Tensor *from = cond[off[0]] ? in[1] : in[2];
    int64_t at = cond[off[0]] ? off[1] : off[2];
    std::memcpy(y.rawData() + i * elem, from->rawData() + at * elem, elem);
  });
  return llvm::Error::success();
}

OpDef broadcastDef(OpKind kind, const char *name, unsigned minIn,
                   unsigned maxIn, std::vector<AttrSpec> attrs = {}) {
  return {kind,  name, minIn, maxIn, 1, 1, std::move(attrs), inferBroadcast,
          evalBroadcast};
}

} // namespace

void registerBroadcastOps(std::vector<OpDef> &defs) {
  defs.push_back(broadcastDef(OpKind::Pow, "Pow", 2, 2));
  defs.push_back(broadcastDef(OpKind::Mod, "Mod", 2, 2,
                              {flagAttr("fmod", 0)}));
  defs.push_back(broadcastDef(
      OpKind::BitShift, "BitShift", 2, 2,
      {enumAttr("direction", nullptr, {"LEFT", "RIGHT"})}));
  defs.push_back(broadcastDef(OpKind::Max, "Max", 1, UINT_MAX));
  defs.push_back(broadcastDef(OpKind::Min, "Min", 1, UINT_MAX));
  defs.push_back(broadcastDef(OpKind::Sum, "Sum", 1, UINT_MAX));
  defs.push_back(broadcastDef(OpKind::Mean, "Mean", 1, UINT_MAX));
  defs.push_back(broadcastDef(OpKind::Equal, "Equal", 2, 2));
  defs.push_back(broadcastDef(OpKind::Less, "Less", 2, 2));
  defs.push_back(broadcastDef(OpKind::LessOrEqual, "LessOrEqual", 2, 2));
  defs.push_back(broadcastDef(OpKind::Greater, "Greater", 2, 2));
  defs.push_back(broadcastDef(OpKind::GreaterOrEqual, "GreaterOrEqual", 2, 2));
  defs.push_back(broadcastDef(OpKind::And, "And", 2, 2));
  defs.push_back(broadcastDef(OpKind::Or, "Or", 2, 2));
  defs.push_back(broadcastDef(OpKind::Xor, "Xor", 2, 2));
  defs.push_back(broadcastDef(OpKind::PRelu, "PRelu", 2, 2));
  defs.push_back(
      {OpKind::Where, "Where", 3, 3, 1, 1, {}, inferWhere, evalWhere});
}

} // namespace kiln
