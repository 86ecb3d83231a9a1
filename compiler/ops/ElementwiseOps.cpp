//===- ElementwiseOps.cpp - Arithmetic, activations, Cast ------------------===//
//
// Add/Sub/Mul/Div (opset 14, multidirectional broadcasting; every numeric
// dtype) and Cast (opset 13). The unary activations are records of
// Activations.def (ActivationOps.cpp).
//
//===----------------------------------------------------------------------===//
#include "compiler/graph/Graph.h"
#include "compiler/ops/ActivationOps.h"
#include "compiler/ops/Int8Eval.h"
#include "compiler/ops/QuantizedTypes.h"
#include "compiler/ops/ElementwiseEval.h"
#include "compiler/ops/OpFamilies.h"
#include "compiler/ops/OpViews.h"
#include "compiler/graph/Half.h"
#include "compiler/ops/OnnxDTypes.h"
#include "compiler/ops/ShapeIndexing.h"
#include "compiler/ops/TypeRuleHelpers.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <limits>
#include <type_traits>

namespace kiln {
namespace {

//===----------------------------------------------------------------------===//
// Binary arithmetic
//===----------------------------------------------------------------------===//

enum class BinOp { Add, Sub, Mul, Div };

template <BinOp Op, typename T> T applyBinary(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if constexpr (Op == BinOp::Add)
      return a + b;
    else if constexpr (Op == BinOp::Sub)
      return a - b;
    else if constexpr (Op == BinOp::Mul)
      return a * b;
    else
      return a / b;
  } else {
    // Two's-complement wrap-around rather than signed-overflow UB, so the
    // oracle is deterministic (and matches what compiled code does).
    using U = std::make_unsigned_t<T>;
    if constexpr (Op == BinOp::Add)
      return static_cast<T>(U(a) + U(b));
    else if constexpr (Op == BinOp::Sub)
      return static_cast<T>(U(a) - U(b));
    else if constexpr (Op == BinOp::Mul)
      return static_cast<T>(U(a) * U(b));
    else // Truncating division; MIN / -1 wraps to MIN.
      return b == -1 ? static_cast<T>(U(0) - U(a)) : a / b;
  }
}

/// Add, Sub and Mul of int8 activations: TFLite's requantizing forms, with
/// a fused clamp. (inferTypes keeps quantized operands from the other ops.)
llvm::Expected<TypeList> inferBinaryInt8(const Node &n) {
  for (unsigned i = 0; i < 2; ++i)
    if (llvm::Error e = expectQuantizedInt8(n, i))
      return e;
  std::optional<Shape> shape =
      broadcastShapes(inputType(n, 0).shape, inputType(n, 1).shape);
  if (!shape)
    return nodeError(n, "shapes " + inputType(n, 0).str() + " and " +
                            inputType(n, 1).str() + " do not broadcast");
  auto t = quantizedResult(n, *shape);
  if (!t)
    return t.takeError();
  if (auto range = int8ActivationRange(n, t->quant); !range)
    return range.takeError();
  return TypeList{*t};
}

llvm::Expected<TypeList> inferBinary(const Node &n) {
  if (isQuantizedInt8(inputType(n, 0)))
    return inferBinaryInt8(n);
  // A fused clamp is the int8 forms' (float fuses into the LIR's chains).
  if (const Attr *a = n.getAttr(kActivationAttr); a && !a->getActivation().isNone())
    return nodeError(n, "a fused activation needs int8 operands");
  // f64 arithmetic is exact in compiled code too (the one f64 computation
  // the code generator has), so f64 models of plain arithmetic need no
  // narrowing; see compiler/frontend/onnx/F64Adapter.cpp.
  if (inputType(n, 0).dtype != DType::F64)
    if (llvm::Error e = expectDType(n, 0, numericDTypes()))
      return e;
  const TensorType &a = inputType(n, 0), &b = inputType(n, 1);
  if (a.dtype != b.dtype)
    return nodeError(n, "operands " + a.str() + " and " + b.str() +
                            " have different dtypes");
  std::optional<Shape> out = broadcastShapes(a.shape, b.shape);
  if (!out)
    return nodeError(n, "shapes " + a.str() + " and " + b.str() +
                            " do not broadcast");
  return TypeList{TensorType(a.dtype, *out)};
}

template <BinOp Op, typename T>
llvm::Error binaryLoop(const Node &n, const Tensor &a, const Tensor &b,
                       Tensor &y) {
  const T *pa = a.data<T>(), *pb = b.data<T>();
  T *py = y.data<T>();
  if constexpr (Op == BinOp::Div && std::is_integral_v<T>)
    for (T v : b.values<T>())
      if (v == 0)
        return nodeError(n, "integer division by zero");
  int64_t count = y.numElements();
  if (a.getShape() == y.getShape() && b.getShape() == y.getShape()) {
    for (int64_t i = 0; i < count; ++i)
      py[i] = applyBinary<Op, T>(pa[i], pb[i]);
    return llvm::Error::success();
  }
  StridedIndex it(y.getShape(), {broadcastStrides(a.getShape(), y.getShape()),
                                 broadcastStrides(b.getShape(), y.getShape())});
  for (int64_t i = 0; i < count; ++i, it.next())
    py[i] = applyBinary<Op, T>(pa[it.offset(0)], pb[it.offset(1)]);
  return llvm::Error::success();
}

/// The other dtypes: f16 in double, the narrow integers in int64, stored
/// with wrap-around at their width.
template <BinOp Op>
llvm::Error binaryGeneric(const Node &n, llvm::ArrayRef<const Tensor *> in,
                          Tensor &y) {
  bool isFloat = isFloatDType(y.getDType());
  if (Op == BinOp::Div && !isFloat)
    for (int64_t i = 0, e = in[1]->numElements(); i < e; ++i)
      if (readInt(*in[1], i) == 0)
        return nodeError(n, "integer division by zero");
  forEachBroadcast(in, y.getShape(), [&](int64_t i,
                                         llvm::ArrayRef<int64_t> off) {
    if (isFloat)
      writeFloat(y, i,
                 applyBinary<Op, double>(readFloat(*in[0], off[0]),
                                         readFloat(*in[1], off[1])));
    else
      writeInt(y, i,
               applyBinary<Op, int64_t>(readInt(*in[0], off[0]),
                                        readInt(*in[1], off[1])));
  });
  return llvm::Error::success();
}

template <BinOp Op>
llvm::Error evalBinary(const Node &n, llvm::ArrayRef<const Tensor *> in,
                       llvm::MutableArrayRef<Tensor> out) {
  if (out[0].getType().quant.isQuantized())
    return evalBinaryInt8(n, in, out);
  switch (out[0].getDType()) {
  case DType::F32:
    return binaryLoop<Op, float>(n, *in[0], *in[1], out[0]);
  case DType::I32:
    return binaryLoop<Op, int32_t>(n, *in[0], *in[1], out[0]);
  case DType::I64:
    return binaryLoop<Op, int64_t>(n, *in[0], *in[1], out[0]);
  default:
    return binaryGeneric<Op>(n, in, out[0]);
  }
}

//===----------------------------------------------------------------------===//
// Cast
//===----------------------------------------------------------------------===//

llvm::Expected<TypeList> inferCast(const Node &n) {
  int64_t to = CastView(n).to();
  std::optional<DType> t = dtypeFromOnnx(to);
  if (!t)
    return nodeError(n, llvm::formatv("unsupported target type {0} ({1})",
                                      onnxDTypeName(to), to));
  return TypeList{TensorType(*t, inputType(n, 0).shape)};
}

/// One element on its way through Cast: float sources keep a double,
/// integer and bool sources an int64, so no int64 value is rounded.
struct CastValue {
  bool isFloat;
  double f;
  int64_t i;
};

CastValue loadElement(const Tensor &t, int64_t idx) {
  switch (t.getDType()) {
  case DType::F32:
    return {true, t.data<float>()[idx], 0};
  case DType::F16:
    return {true, halfToFloat(t.data<uint16_t>()[idx]), 0};
  case DType::F64:
    return {true, t.data<double>()[idx], 0};
  default:
    return {false, 0, t.getAsInt(idx)};
  }
}

/// Float to integer saturates and maps NaN to 0: C++ leaves out-of-range
/// conversions undefined, and the oracle must be deterministic.
template <typename T> T saturate(double v) {
  if (std::isnan(v))
    return 0;
  if (v <= double(std::numeric_limits<T>::min()))
    return std::numeric_limits<T>::min();
  if (v >= double(std::numeric_limits<T>::max()))
    return std::numeric_limits<T>::max();
  return static_cast<T>(v);
}

template <typename T> T toInteger(const CastValue &v) {
  return v.isFloat ? saturate<T>(v.f) : static_cast<T>(v.i);
}

void storeElement(Tensor &t, int64_t idx, const CastValue &v) {
  double asDouble = v.isFloat ? v.f : double(v.i);
  switch (t.getDType()) {
  case DType::F32:
    t.data<float>()[idx] = static_cast<float>(asDouble);
    return;
  case DType::F16:
    t.data<uint16_t>()[idx] = floatToHalf(static_cast<float>(asDouble));
    return;
  case DType::Bool:
    t.data<uint8_t>()[idx] = v.isFloat ? v.f != 0 : v.i != 0;
    return;
  case DType::I8:
    t.data<int8_t>()[idx] = toInteger<int8_t>(v);
    return;
  case DType::U8:
    t.data<uint8_t>()[idx] = toInteger<uint8_t>(v);
    return;
  case DType::I16:
    t.data<int16_t>()[idx] = toInteger<int16_t>(v);
    return;
  case DType::I32:
    t.data<int32_t>()[idx] = toInteger<int32_t>(v);
    return;
  case DType::I64:
    t.data<int64_t>()[idx] = toInteger<int64_t>(v);
    return;
  case DType::F64:
    t.data<double>()[idx] = asDouble;
    return;
  case DType::U16:
    t.data<uint16_t>()[idx] = toInteger<uint16_t>(v);
    return;
  case DType::U32:
    t.data<uint32_t>()[idx] = toInteger<uint32_t>(v);
    return;
  case DType::U64:
    t.data<uint64_t>()[idx] = toInteger<uint64_t>(v);
    return;
  }
}

llvm::Error evalCast(const Node &, llvm::ArrayRef<const Tensor *> in,
                     llvm::MutableArrayRef<Tensor> out) {
  for (int64_t i = 0, e = out[0].numElements(); i < e; ++i)
    storeElement(out[0], i, loadElement(*in[0], i));
  return llvm::Error::success();
}

OpDef binaryDef(OpKind kind, const char *name, EvalFn eval,
              std::vector<AttrSpec> attrs = {}) {
  return {kind, name, 2, 2, 1, 1, std::move(attrs), inferBinary, eval};
}

/// The attributes of the ops with an int8 form.
std::vector<AttrSpec> int8BinaryAttrs() {
  return {fusedActivationAttrSpec(), quantAttrSpec()};
}

} // namespace

void registerElementwiseOps(std::vector<OpDef> &defs) {
  defs.push_back(binaryDef(OpKind::Add, "Add", evalBinary<BinOp::Add>,
                           int8BinaryAttrs()));
  defs.push_back(binaryDef(OpKind::Sub, "Sub", evalBinary<BinOp::Sub>,
                           int8BinaryAttrs()));
  defs.push_back(binaryDef(OpKind::Mul, "Mul", evalBinary<BinOp::Mul>,
                           int8BinaryAttrs()));
  for (OpDef &d : llvm::MutableArrayRef(defs).take_back(3))
    d.traits |= kInt8KernelTrait;
  defs.push_back(binaryDef(OpKind::Div, "Div", evalBinary<BinOp::Div>));
  defs.push_back({OpKind::Cast,
                  "Cast",
                  1,
                  1,
                  1,
                  1,
                  {{"to", AttrKind::Int, std::nullopt, /*required=*/true}},
                  inferCast,
                  evalCast});
}

} // namespace kiln
