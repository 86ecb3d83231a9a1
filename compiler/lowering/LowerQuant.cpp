//===- LowerQuant.cpp - (De)quantization -> elementwise ops ---------------===//
//
// QuantizeLinear is Round(x / scale) + zero_point clipped to the quantized
// range and cast; DequantizeLinear is (Cast(x) - zero_point) * scale. The
// elementwise kernel computes them in f32, where every 8-bit value and every
// difference of two is exact. Per-axis parameters ([C]) are reshaped
// to [C, 1, ..., 1] so that they broadcast along the axis.
//
//===----------------------------------------------------------------------===//
#include "compiler/lowering/LowerRules.h"
#include "compiler/ops/OnnxDTypes.h"
#include "compiler/ops/OpViews.h"
#include "compiler/ops/ShapeIndexing.h"
#include "compiler/graph/Rewrite.h"

namespace kiln {
namespace {

/// Helper nodes plus the casts and broadcast shapes of quantization.
class QuantBuilder : public HelperNodeBuilder {
public:
  using HelperNodeBuilder::HelperNodeBuilder;
  Value *toF32(llvm::StringRef role, Value *v) {
    if (!v || v->getType().dtype == DType::F32)
      return v;
    return add(role, OpKind::Cast, {v}, {{"to", Attr::ofInt(1)}});
  }
  /// A scale or zero point, shaped to broadcast along the node's axis.
  Value *param(llvm::StringRef role, Value *v) {
    if (!v || v->getType().numElements() <= 1)
      return v;
    LinearQuantView quant(origin_);
    int64_t rank = quant.input()->getType().rank();
    int64_t axis = *normalizeAxis(quant.axis(), rank);
    Shape shape(rank - axis, 1);
    shape[0] = v->getType().numElements();
    return add(role, OpKind::Reshape, {v}, {{"shape", Attr::ofInts(shape)}});
  }
};

} // namespace

llvm::Expected<bool> lowerQuantization(Graph &g, Node *n) {
  QuantBuilder b(g, *n);
  LinearQuantView quant(*n);
  Value *x = b.toF32("x_f32", quant.input());
  Value *scale = b.param("scale", quant.scale());
  Value *zeroPoint =
      b.toF32("zero_point_f32", b.param("zero_point", quant.zeroPoint()));
  Value *y;
  if (n->is(OpKind::DequantizeLinear)) {
    if (zeroPoint)
      x = b.add("centered", OpKind::Sub, {x, zeroPoint});
    y = b.add("scaled", OpKind::Mul, {x, scale});
  } else {
    DType qt = n->getOutput()->getType().dtype;
    Value *q = b.add("rounded", OpKind::Round,
                     {b.add("scaled", OpKind::Div, {x, scale})});
    if (zeroPoint)
      q = b.add("shifted", OpKind::Add, {q, zeroPoint});
    q = b.add("saturated", OpKind::Clip, {q},
              {{"min", Attr::ofFloat(qt == DType::U8 ? 0.0f : -128.0f)},
               {"max", Attr::ofFloat(qt == DType::U8 ? 255.0f : 127.0f)}});
    y = b.add("quantized", OpKind::Cast, {q},
              {{"to", Attr::ofInt(onnxFromDType(qt))}});
  }
  return b.replaceOrigin({y});
}

} // namespace kiln
