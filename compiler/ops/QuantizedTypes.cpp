#include "compiler/ops/QuantizedTypes.h"

#include "llvm/Support/FormatVariadic.h"

namespace kiln {

AttrSpec quantAttrSpec() { return {kQuantAttr.data(), AttrKind::Quant, std::nullopt}; }

bool isQuantizedInt8(const TensorType &t) {
  return t.dtype == DType::I8 && t.quant.isQuantized() && !t.quant.isPerChannel();
}

llvm::Expected<TensorType> quantizedResult(const Node &n,
                                           llvm::ArrayRef<int64_t> shape) {
  const Attr *q = n.getAttr(kQuantAttr);
  if (!q)
    return nodeError(n, "an int8 result needs its quantization (" +
                            kQuantAttr + ")");
  const QuantParams &p = q->getQuant();
  if (p.scales.size() != 1 || p.zeroPoints.size() != 1 || !(p.scales[0] > 0) ||
      p.zeroPoints[0] < -128 || p.zeroPoints[0] > 127)
    return nodeError(n, "the int8 result's quantization must be one positive "
                        "scale and a zero point in [-128, 127], got " +
                            quantStr(p));
  TensorType t(DType::I8, shape);
  t.quant = p;
  return t;
}

llvm::Error expectQuantizedInt8(const Node &n, unsigned i) {
  const TensorType &t = n.getInput(i)->getType();
  if (!isQuantizedInt8(t))
    return nodeError(n, llvm::formatv("input {0} must be int8 with one scale "
                                      "and zero point, got {1}",
                                      i, t.str()));
  return llvm::Error::success();
}

llvm::Error expectQuantizedWeights(const Node &n, int64_t channelAxis) {
  if (llvm::Error e = expectQuantizedInt8(n, 0))
    return e;
  const TensorType &w = n.getInput(1)->getType();
  const QuantParams &q = w.quant;
  if (w.dtype != DType::I8 || !q.isQuantized() ||
      (q.isPerChannel() && q.axis != channelAxis))
    return nodeError(n, llvm::formatv("int8 weights must be quantized per "
                                      "tensor or along axis {0}, got {1}",
                                      channelAxis, w.str()));
  for (int32_t zp : q.zeroPoints)
    if (zp != 0)
      return nodeError(n, "int8 weights must be symmetric (zero point 0), got " +
                              w.str());
  if (const Value *b = n.getInput(2); b && b->getType().dtype != DType::I32)
    return nodeError(n, "the bias of an int8 op must be int32, got " +
                            b->getType().str());
  return llvm::Error::success();
}

} // namespace kiln
