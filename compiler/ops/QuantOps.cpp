//===- QuantOps.cpp - Quantization and dequantization ---------------------===//
//
// The linear (de)quantization of ONNX (opset 13): y = saturate(round(x /
// scale) + zero_point) and y = (x - zero_point) * scale, with one scale and
// zero point for the whole tensor (scalars) or one per slice along `axis`
// (1-D of that axis' length). Rounding is half to even; the zero point's
// dtype (u8 when absent) is the quantized dtype.
//
// TFLite's QUANTIZE and DEQUANTIZE (kiln.Quantize, kiln.Dequantize) take
// their parameters from the tensor types instead and round half away from
// zero (IntegerMath.h). They also take and make uint8 (kiln.Quantize's
// kiln.to = "u8"), the edges of a uint8 QDQ model: a uint8 value v with zero
// point z is the int8 value v - 128 with zero point z - 128, so they compute
// on int8 and shift.
//
//===----------------------------------------------------------------------===//
#include "compiler/graph/AxisIndex.h"
#include "compiler/graph/Graph.h"
#include "compiler/ops/ElementwiseEval.h"
#include "compiler/ops/OpFamilies.h"
#include "compiler/ops/OpViews.h"
#include "compiler/ops/Int8Eval.h"
#include "compiler/ops/IntegerMath.h"
#include "compiler/ops/ShapeIndexing.h"
#include "compiler/ops/TypeRuleHelpers.h"
#include "compiler/ops/QuantizedTypes.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <optional>

namespace kiln {
namespace {

/// Checks scale (input 1) and zero point (input 2) against x (input 0):
/// scalars, or 1-D along the axis.
llvm::Error checkQuantParams(const Node &n) {
  const TensorType &x = inputType(n, 0), &scale = inputType(n, 1);
  if (llvm::Error e = expectDType(n, 1, {DType::F32}))
    return e;
  if (scale.rank() > 1)
    return nodeError(n, "y_scale must be a scalar or 1-D, got " + scale.str());
  if (scale.rank() == 1 && scale.numElements() != 1) {
    int64_t channelAxis = LinearQuantView(n).axis();
    std::optional<int64_t> axis = normalizeAxis(channelAxis, x.rank());
    if (!axis)
      return nodeError(n, llvm::formatv("axis {0} is out of range for rank "
                                        "{1}",
                                        channelAxis, x.rank()));
    if (scale.shape[0] != x.shape[*axis])
      return nodeError(n, "y_scale " + scale.str() + " does not match axis " +
                              std::to_string(*axis) + " of " + x.str());
  }
  if (n.getInput(2) && inputType(n, 2).shape != scale.shape)
    return nodeError(n, "zero point " + inputType(n, 2).str() +
                            " does not match the scale " + scale.str());
  return llvm::Error::success();
}

/// The scale/zero-point entry that applies to element `i` of x.
int64_t paramIndex(const Node &n, const Tensor &x, const Tensor &scale,
                   int64_t i) {
  if (scale.numElements() <= 1)
    return 0;
  llvm::ArrayRef<int64_t> shape = x.getShape();
  int64_t axis = *normalizeAxis(LinearQuantView(n).axis(), shape.size());
  return AxisIndex(shape, axis)(i);
}

llvm::Expected<TypeList> inferQuantize(const Node &n) {
  if (llvm::Error e = expectDType(n, 0, {DType::F32, DType::I32}))
    return e;
  if (llvm::Error e = checkQuantParams(n))
    return e;
  DType out = DType::U8;
  if (n.getInput(2)) {
    if (llvm::Error e = expectDType(n, 2, {DType::U8, DType::I8}))
      return e;
    out = inputType(n, 2).dtype;
  }
  return TypeList{TensorType(out, inputType(n, 0).shape)};
}

llvm::Error evalQuantize(const Node &n, llvm::ArrayRef<const Tensor *> in,
                         llvm::MutableArrayRef<Tensor> out) {
  const Tensor &x = *in[0], &scale = *in[1];
  Tensor &y = out[0];
  double lo = y.getDType() == DType::U8 ? 0 : -128;
  double hi = y.getDType() == DType::U8 ? 255 : 127;
  for (int64_t i = 0, e = x.numElements(); i < e; ++i) {
    int64_t p = paramIndex(n, x, scale, i);
    double zp = in.size() > 2 && in[2] ? double(readInt(*in[2], p)) : 0.0;
    // The division is f32's, as ONNX defines it for f32 inputs: a quotient
    // that f32 rounds onto .5 rounds to even like the compiled code's.
    float scaled = static_cast<float>(readFloat(x, i)) /
                   static_cast<float>(readFloat(scale, p));
    double q = std::nearbyint(double(scaled)) + zp;
    writeInt(y, i, static_cast<int64_t>(std::clamp(q, lo, hi)));
  }
  return llvm::Error::success();
}

llvm::Expected<TypeList> inferDequantize(const Node &n) {
  if (llvm::Error e = expectDType(n, 0, {DType::U8, DType::I8, DType::I32}))
    return e;
  if (llvm::Error e = checkQuantParams(n))
    return e;
  if (n.getInput(2) && inputType(n, 2).dtype != inputType(n, 0).dtype)
    return nodeError(n, "zero point " + inputType(n, 2).str() +
                            " differs in dtype from x " +
                            inputType(n, 0).str());
  return TypeList{TensorType(DType::F32, inputType(n, 0).shape)};
}

llvm::Error evalDequantize(const Node &n, llvm::ArrayRef<const Tensor *> in,
                           llvm::MutableArrayRef<Tensor> out) {
  const Tensor &x = *in[0], &scale = *in[1];
  for (int64_t i = 0, e = x.numElements(); i < e; ++i) {
    int64_t p = paramIndex(n, x, scale, i);
    int64_t zp = in.size() > 2 && in[2] ? readInt(*in[2], p) : 0;
    writeFloat(out[0], i,
               double(readInt(x, i) - zp) * readFloat(scale, p));
  }
  return llvm::Error::success();
}

/// What a uint8 value adds to the int8 value it stands for (0 for int8).
int32_t byteShift(DType t) { return t == DType::U8 ? 128 : 0; }

/// Whether `t` is a per-tensor quantized int8 or uint8 tensor.
bool isQuantizedByte(const TensorType &t) {
  return (t.dtype == DType::I8 || t.dtype == DType::U8) && t.quant.isQuantized() &&
         !t.quant.isPerChannel();
}

/// kiln.Quantize's result: kiln.to's dtype (int8 or uint8) with the
/// quantization of kQuantAttr, the zero point in that dtype's range.
llvm::Expected<TypeList> inferTensorQuantize(const Node &n) {
  const TensorType &x = inputType(n, 0);
  if (x.dtype != DType::F32 && !isQuantizedByte(x))
    return nodeError(n, "input 0 must be f32 or int8 or uint8 with one scale "
                        "and zero point, got " + x.str());
  std::optional<DType> to = parseDType(QuantizeView(n).to());
  const Attr *q = n.getAttr(kQuantAttr);
  if (!q)
    return nodeError(n, "the result needs its quantization (" + kQuantAttr + ")");
  const QuantParams &p = q->getQuant();
  int32_t lo = -128 + byteShift(*to), hi = 127 + byteShift(*to);
  if (p.scales.size() != 1 || p.zeroPoints.size() != 1 || !(p.scales[0] > 0) ||
      p.zeroPoints[0] < lo || p.zeroPoints[0] > hi)
    return nodeError(n, llvm::formatv("the {0} result's quantization must be one "
                                      "positive scale and a zero point in [{1}, "
                                      "{2}], got {3}",
                                      dtypeName(*to), lo, hi, quantStr(p)));
  TensorType t(*to, x.shape);
  t.quant = p;
  return TypeList{t};
}

/// Reads the quantization from the tensors, so that the code generator can
/// tabulate an int8 or uint8 input over its 256 values.
llvm::Error evalTensorQuantize(const Node &, llvm::ArrayRef<const Tensor *> in,
                               llvm::MutableArrayRef<Tensor> out) {
  const Tensor &x = *in[0];
  const QuantParams &qy = out[0].getType().quant;
  int32_t yShift = byteShift(out[0].getDType());
  int32_t yZp = qy.zeroPoints[0] - yShift;
  auto store = [&](int64_t i, int8_t v) { writeInt(out[0], i, v + yShift); };
  if (x.getDType() == DType::F32) {
    for (int64_t i = 0, e = x.numElements(); i < e; ++i)
      store(i, tfl::quantizeToInt8(x.data<float>()[i], qy.scales[0], yZp));
    return llvm::Error::success();
  }
  const QuantParams &qx = x.getType().quant;
  int32_t xShift = byteShift(x.getDType());
  auto p = tfl::prepareRequantize(qx.scales[0], qx.zeroPoints[0] - xShift,
                                  qy.scales[0], yZp);
  for (int64_t i = 0, e = x.numElements(); i < e; ++i)
    store(i, tfl::requantizeInt8(p, int8_t(readInt(x, i) - xShift)));
  return llvm::Error::success();
}

llvm::Expected<TypeList> inferTensorDequantize(const Node &n) {
  const TensorType &x = inputType(n, 0);
  if ((x.dtype != DType::I8 && x.dtype != DType::U8) || !x.quant.isQuantized() ||
      (x.dtype == DType::U8 && x.quant.isPerChannel()))
    return nodeError(n, "input 0 must be quantized int8 or uint8 (per tensor), "
                        "got " + x.str());
  return TypeList{TensorType(DType::F32, x.shape)};
}

/// Per tensor or per channel (a constant's, folded before codegen).
llvm::Error evalTensorDequantize(const Node &, llvm::ArrayRef<const Tensor *> in,
                                 llvm::MutableArrayRef<Tensor> out) {
  out[0] = dequantizedTensor(*in[0]);
  return llvm::Error::success();
}

} // namespace

Tensor dequantizedTensor(const Tensor &x) {
  const QuantParams &q = x.getType().quant;
  llvm::ArrayRef<int64_t> shape = x.getShape();
  std::optional<AxisIndex> channelOf;
  if (q.isPerChannel())
    channelOf.emplace(shape, q.axis);
  int32_t shift = byteShift(x.getDType());
  Tensor out(TensorType(DType::F32, shape));
  for (int64_t i = 0, e = x.numElements(); i < e; ++i) {
    int64_t c = channelOf ? (*channelOf)(i) : 0;
    out.data<float>()[i] = tfl::dequantizeInt8(int8_t(readInt(x, i) - shift), q.scales[c],
                                               q.zeroPoints[c] - shift);
  }
  return out;
}

void registerQuantOps(std::vector<OpDef> &defs) {
  defs.push_back({OpKind::QuantizeLinear,
                  "QuantizeLinear",
                  2,
                  3,
                  1,
                  1,
                  {{"axis", AttrKind::Int, Attr::ofInt(1)}},
                  inferQuantize,
                  evalQuantize});
  defs.push_back({OpKind::DequantizeLinear,
                  "DequantizeLinear",
                  2,
                  3,
                  1,
                  1,
                  {{"axis", AttrKind::Int, Attr::ofInt(1)}},
                  inferDequantize,
                  evalDequantize});
  defs.push_back({OpKind::Quantize,
                  "kiln.Quantize",
                  1,
                  1,
                  1,
                  1,
                  {quantAttrSpec(), enumAttr("kiln.to", "i8", {"i8", "u8"})},
                  inferTensorQuantize,
                  evalTensorQuantize});
  defs.back().traits |= kInt8KernelTrait;
  defs.push_back({OpKind::Dequantize, "kiln.Dequantize", 1, 1, 1, 1, {},
                  inferTensorDequantize, evalTensorDequantize});
  defs.back().traits |= kInt8KernelTrait;
}

} // namespace kiln
