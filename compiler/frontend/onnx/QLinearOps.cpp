//===- QLinearOps.cpp - ONNX's quantized operator ops ---------------------===//
//
// QLinearConv and QLinearMatMul are imported as the QDQ group they define:
// DequantizeLinear of each operand, the float Conv or MatMul, QuantizeLinear
// of the result. The graph pass fold-qdq then turns the group into the int8
// op where one exists (constant int8 weights), exactly as it does for a QDQ
// model; otherwise it computes in float between the two ends, which is the
// ONNX definition.
//
// ConvInteger and MatMulInteger (the int32 sums of products of zero-point-
// shifted integers) are computed in f32, rounded and cast back: every
// product and partial sum is an integer, exact in f32 while its magnitude
// stays below 2^24. The adapter bounds the sums from the operand types and
// zero points (and the weights when constant) and refuses a node that could
// exceed it.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/onnx/AdapterUtils.h"

#include "compiler/ops/OnnxDTypes.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cstdlib>
#include <tuple>
#include <utility>

namespace kiln {

llvm::Error checkConstantScale(const PendingNode &n, unsigned i,
                               llvm::StringRef what) {
  const Value *v = n.getInput(i);
  if (!v || !v->isConstant())
    return llvm::Error::success();
  const Tensor &t = v->getConstant();
  for (int64_t k = 0, e = t.numElements(); k < e; ++k)
    if (!(t.getAsDouble(k) > 0))
      return n.error(llvm::formatv("{0} must be positive, got {1} (element "
                                   "{2} of {3})",
                                   what, floatStr(float(t.getAsDouble(k))), k,
                                   t.getType().str()));
  return llvm::Error::success();
}

namespace {

/// Largest integer below which f32 holds every integer exactly.
constexpr double kF32ExactIntegers = 16777216.0;

/// Operand `x` with its scale and zero point: dequantized along `axis`.
struct QuantOperand {
  unsigned x, scale, zeroPoint;
  int64_t axis;
};

Value *dequantize(Formula &f, const PendingNode &n, const QuantOperand &q,
                  llvm::StringRef role) {
  llvm::SmallVector<Value *, 3> in{n.getInput(q.x), n.getInput(q.scale)};
  if (Value *zp = n.getInput(q.zeroPoint))
    in.push_back(zp);
  return f.add(role, OpKind::DequantizeLinear, in,
               {{"axis", Attr::ofInt(q.axis)}});
}

/// The QDQ group of QLinearConv or QLinearMatMul: `op` over the dequantized
/// operands (and QLinearConv's int32 bias at scale x_scale * w_scale),
/// quantized by inputs 6 and 7.
llvm::Expected<ValueList> emitQLinear(NodeEmitter &e, PendingNode &n, OpKind op,
                                      int64_t weightAxis) {
  unsigned maxInputs = op == OpKind::Conv ? 9 : 8;
  if (auto err = checkMaxInputs(n, maxInputs))
    return std::move(err);
  for (unsigned i = 0; i < 8; ++i)
    if (!n.getInput(i))
      return n.error(llvm::formatv("input {0} is missing", i));
  for (auto [i, what] : {std::pair<unsigned, const char *>{1, "x_scale"},
                         {4, "w_scale"},
                         {6, "y_scale"}})
    if (auto err = checkConstantScale(n, i, what))
      return std::move(err);
  int64_t xRank = n.inputs[0]->getType().rank();
  Formula f(e, n);
  // QLinearMatMul's a_scale may be per row of a.
  Value *x = dequantize(f, n, {0, 1, 2, std::max<int64_t>(xRank - 2, 0)}, "x");
  Value *w = dequantize(f, n, {3, 4, 5, weightAxis}, "w");
  llvm::SmallVector<Value *, 3> in{x, w};
  if (Value *b = n.getInput(8)) {
    Value *scale = f.add("bias_scale", OpKind::Mul,
                         {n.getInput(1), n.getInput(4)});
    in.push_back(f.add("bias", OpKind::DequantizeLinear, {b, scale},
                       {{"axis", Attr::ofInt(0)}}));
  }
  Value *y = f.add(op == OpKind::Conv ? "conv" : "matmul", op, in, n.attrs);
  Value *q = f.add("quantize", OpKind::QuantizeLinear,
                   {y, n.getInput(6), n.getInput(7)},
                   {{"axis", Attr::ofInt(1)}}, n.getOutputName(0));
  if (llvm::Error err = f.takeError())
    return std::move(err);
  return ValueList{q};
}

/// The least and greatest element of `t` (0, 0 when empty).
std::pair<double, double> valueRange(const Tensor &t) {
  double lo = t.numElements() ? t.getAsDouble(0) : 0, hi = lo;
  for (int64_t k = 0, e = t.numElements(); k < e; ++k) {
    lo = std::min(lo, t.getAsDouble(k));
    hi = std::max(hi, t.getAsDouble(k));
  }
  return {lo, hi};
}

/// The largest |v - zp| over the values `v` can hold: its constant data, or
/// its dtype's range; the zero point's too when constant (else any).
llvm::Expected<double> maxShiftedMagnitude(const PendingNode &n, unsigned i,
                                           unsigned zpIndex) {
  const Value *v = n.getInput(i);
  DType dt = v->getType().dtype;
  if (dt != DType::U8 && dt != DType::I8)
    return n.error(llvm::formatv("input {0} must be uint8 or int8, got {1}", i,
                                 v->getType().str()));
  double lo = dt == DType::U8 ? 0 : -128, hi = dt == DType::U8 ? 255 : 127;
  double zpLo = lo, zpHi = hi;
  if (const Value *zp = n.getInput(zpIndex)) {
    if (zp->getType().dtype != dt)
      return n.error(llvm::formatv("zero point {0} differs in dtype from "
                                   "input {1} {2}",
                                   zp->getType().str(), i, v->getType().str()));
    if (zp->isConstant())
      std::tie(zpLo, zpHi) = valueRange(zp->getConstant());
  } else {
    zpLo = zpHi = 0;
  }
  if (v->isConstant())
    std::tie(lo, hi) = valueRange(v->getConstant());
  return std::max(std::abs(hi - zpLo), std::abs(zpHi - lo));
}

/// ConvInteger or MatMulInteger: `op` over the operands minus their zero
/// points (DequantizeLinear at scale 1, exact), cast to int32. `reduction`
/// is the number of products in each sum.
llvm::Expected<ValueList> emitInteger(NodeEmitter &e, PendingNode &n, OpKind op,
                                      int64_t reduction, int64_t aAxis,
                                      int64_t bAxis) {
  if (auto err = checkMaxInputs(n, 4))
    return std::move(err);
  if (!n.getInput(0) || !n.getInput(1))
    return n.error("inputs 0 and 1 are required");
  auto a = maxShiftedMagnitude(n, 0, 2);
  if (!a)
    return a.takeError();
  auto b = maxShiftedMagnitude(n, 1, 3);
  if (!b)
    return b.takeError();
  double bound = double(reduction) * *a * *b;
  if (bound >= kF32ExactIntegers)
    return n.error(llvm::formatv(
        "its sums of {0} products of up to {1} x {2} may reach {3}; kiln "
        "computes them in f32, exact only below 2^24",
        reduction, int64_t(*a), int64_t(*b), int64_t(bound)));
  Formula f(e, n);
  auto shifted = [&](unsigned i, int64_t axis, llvm::StringRef role) {
    Value *zp = n.getInput(i + 2);
    // One scale of 1 per zero point (per tensor, or per row / channel).
    Shape scaleShape = zp ? zp->getType().shape : Shape{};
    Tensor ones(TensorType(DType::F32, scaleShape));
    std::fill_n(ones.data<float>(), ones.numElements(), 1.0f);
    llvm::SmallVector<Value *, 3> in{n.getInput(i), f.constant("one", ones)};
    if (zp)
      in.push_back(zp);
    return f.add(role, OpKind::DequantizeLinear, in,
                 {{"axis", Attr::ofInt(axis)}});
  };
  Value *x = shifted(0, aAxis, "a");
  Value *w = shifted(1, bAxis, "b");
  Value *y = f.add(op == OpKind::Conv ? "conv" : "matmul", op, {x, w}, n.attrs);
  // A Winograd convolution's transforms are not exact in f32: its sums land
  // next to the integers, not on them.
  Value *rounded = f.add("rounded", OpKind::Round, {y});
  Value *out = f.add("int32", OpKind::Cast, {rounded},
                     {{"to", Attr::ofInt(onnxFromDType(DType::I32))}},
                     n.getOutputName(0));
  if (llvm::Error err = f.takeError())
    return std::move(err);
  return ValueList{out};
}

int64_t rankOf(const PendingNode &n, unsigned i) {
  return n.getInput(i) ? n.getInput(i)->getType().rank() : 0;
}

} // namespace

llvm::Expected<ValueList> emitLinearQuantization(NodeEmitter &e,
                                                 PendingNode &n) {
  if (auto err = checkConstantScale(n, 1, "scale"))
    return std::move(err);
  // Opset 21: block quantization, and QuantizeLinear's output type where it
  // has no zero point to take it from.
  auto blockSize = intAttr(n, "block_size", 0);
  if (!blockSize)
    return blockSize.takeError();
  if (*blockSize != 0)
    return n.error("block quantization (block_size) is not supported");
  n.attrs.erase("block_size");
  auto outputType = intAttr(n, "output_dtype", 0);
  if (!outputType)
    return outputType.takeError();
  n.attrs.erase("output_dtype");
  if (*outputType == 0 || n.kind != OpKind::QuantizeLinear)
    return e.emit(n);
  std::optional<DType> to = dtypeFromOnnx(*outputType);
  if (!to || (*to != DType::I8 && *to != DType::U8))
    return n.error(llvm::formatv("output_dtype {0} is not supported; kiln quantizes to int8 "
                                 "or uint8",
                                 onnxDTypeName(*outputType)));
  if (Value *zp = n.getInput(2)) {
    if (zp->getType().dtype != *to)
      return n.error("output_dtype differs from the zero point's type");
    return e.emit(n);
  }
  n.inputs.resize(3);
  Graph &g = e.getGraph();
  n.inputs[2] = g.addConstant(g.uniqueName(n.name + "/zero_point"), Tensor(TensorType(*to, {})));
  return e.emit(n);
}

llvm::Expected<ValueList> emitQLinearConv(NodeEmitter &e, PendingNode &n) {
  return emitQLinear(e, n, OpKind::Conv, 0);
}

llvm::Expected<ValueList> emitQLinearMatMul(NodeEmitter &e, PendingNode &n) {
  // b_scale may be per column of b.
  return emitQLinear(e, n, OpKind::MatMul, std::max<int64_t>(rankOf(n, 3) - 1, 0));
}

llvm::Expected<ValueList> emitConvInteger(NodeEmitter &e, PendingNode &n) {
  const Value *w = n.getInput(1);
  if (!w || w->getType().rank() < 3)
    return n.error("expects weights of rank 3 to 5");
  int64_t reduction = 1;
  for (size_t d = 1; d < w->getType().rank(); ++d)
    reduction *= w->getType().shape[d];
  // x_zero_point is per tensor, w_zero_point per output channel.
  return emitInteger(e, n, OpKind::Conv, reduction, 1, 0);
}

llvm::Expected<ValueList> emitMatMulInteger(NodeEmitter &e, PendingNode &n) {
  const Value *a = n.getInput(0);
  if (!a || a->getType().rank() == 0)
    return n.error("expects a non-scalar input A");
  int64_t rankA = a->getType().rank(), rankB = rankOf(n, 1);
  // a_zero_point may be per row of A, b_zero_point per column of B.
  return emitInteger(e, n, OpKind::MatMul, a->getType().shape.back(),
                     std::max<int64_t>(rankA - 2, 0),
                     std::max<int64_t>(rankB - 1, 0));
}

} // namespace kiln
