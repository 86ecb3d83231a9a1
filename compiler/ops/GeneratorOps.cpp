//===- GeneratorOps.cpp - Ops whose result is known at compile time --------===//
//
// ConstantOfShape, Range and the window functions (HannWindow,
// HammingWindow, BlackmanWindow) produce tensors from compile-time data
// alone (their ONNX inputs decide the shape, so kiln holds them as
// attributes and the ops have no inputs); Size and EyeLike read only their
// input's static type. All of them are folded to constants while importing.
//
//===----------------------------------------------------------------------===//
#include "compiler/graph/CheckedMath.h"
#include "compiler/graph/Graph.h"
#include "compiler/ops/ElementwiseEval.h"
#include "compiler/ops/OpFamilies.h"
#include "compiler/ops/OpViews.h"
#include "compiler/ops/OnnxDTypes.h"
#include "compiler/ops/TypeRuleHelpers.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <cstring>

namespace kiln {
namespace {

//===----------------------------------------------------------------------===//
// ConstantOfShape
//===----------------------------------------------------------------------===//

llvm::Expected<TypeList> inferConstantOfShape(const Node &n) {
  ConstantOfShapeView constant(n);
  llvm::ArrayRef<int64_t> shape = constant.shape();
  for (int64_t d : shape)
    if (d < 0)
      return nodeError(n, "shape " + shapeStr(shape) + " has a negative entry");
  DType dt = DType::F32;
  if (const Tensor *v = constant.value()) {
    if (v->numElements() != 1)
      return nodeError(n, "value must hold one element, got " +
                              v->getType().str());
    dt = v->getDType();
  }
  return TypeList{TensorType(dt, shape)};
}

llvm::Error evalConstantOfShape(const Node &n, llvm::ArrayRef<const Tensor *>,
                                llvm::MutableArrayRef<Tensor> out) {
  const Tensor *v = ConstantOfShapeView(n).value();
  if (!v)
    return llvm::Error::success(); // f32 zeros
  size_t elem = dtypeSize(out[0].getDType());
  for (int64_t i = 0, e = out[0].numElements(); i < e; ++i)
    std::memcpy(out[0].rawData() + i * elem, v->rawData(), elem);
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Range
//===----------------------------------------------------------------------===//

/// start, limit and delta: one-element tensors of one dtype.
llvm::Expected<DType> rangeDType(const Node &n) {
  RangeView range(n);
  const Tensor &start = range.start();
  using Named = std::pair<const char *, const Tensor &>;
  for (auto [name, t] : {Named{"start", start}, Named{"limit", range.limit()},
                         Named{"delta", range.delta()}}) {
    if (t.numElements() != 1 || t.getDType() != start.getDType())
      return nodeError(n, llvm::formatv("{0} must be one element of {1}'s "
                                        "dtype, got {2}",
                                        name, "start", t.getType().str()));
  }
  if (start.getDType() == DType::Bool || start.getDType() == DType::F16)
    return nodeError(n, "dtype " + dtypeName(start.getDType()) +
                            " is not supported");
  return start.getDType();
}

llvm::Expected<TypeList> inferRange(const Node &n) {
  auto dt = rangeDType(n);
  if (!dt)
    return dt.takeError();
  RangeView range(n);
  double start = range.start().getAsDouble(0);
  double limit = range.limit().getAsDouble(0);
  double delta = range.delta().getAsDouble(0);
  if (delta == 0)
    return nodeError(n, "delta must not be 0");
  std::optional<int64_t> count = checkedTruncToInt64(std::ceil((limit - start) / delta));
  if (!count)
    return nodeError(n, llvm::formatv("start {0}, limit {1} and delta {2} give no element count",
                                      start, limit, delta));
  return TypeList{TensorType(*dt, {std::max<int64_t>(*count, 0)})};
}

llvm::Error evalRange(const Node &n, llvm::ArrayRef<const Tensor *>,
                      llvm::MutableArrayRef<Tensor> out) {
  Tensor &y = out[0];
  RangeView range(n);
  const Tensor &start = range.start(), &delta = range.delta();
  for (int64_t i = 0, e = y.numElements(); i < e; ++i) {
    if (isFloatDType(y.getDType()))
      writeFloat(y, i, readFloat(start, 0) + i * readFloat(delta, 0));
    else
      writeInt(y, i, start.getAsInt(0) + i * delta.getAsInt(0));
  }
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Size, EyeLike
//===----------------------------------------------------------------------===//

llvm::Expected<TypeList> inferSize(const Node &) {
  return TypeList{TensorType(DType::I64, {})};
}

llvm::Error evalSize(const Node &, llvm::ArrayRef<const Tensor *> in,
                     llvm::MutableArrayRef<Tensor> out) {
  out[0].data<int64_t>()[0] = in[0]->numElements();
  return llvm::Error::success();
}

llvm::Expected<TypeList> inferEyeLike(const Node &n) {
  const TensorType &x = inputType(n, 0);
  if (x.rank() != 2)
    return nodeError(n, "input must be 2-D, got " + x.str());
  DType dt = x.dtype;
  if (std::optional<int64_t> onnxType = EyeLikeView(n).dtype()) {
    std::optional<DType> t = dtypeFromOnnx(*onnxType);
    if (!t)
      return nodeError(n, "dtype " + onnxDTypeName(*onnxType) +
                              " is not supported");
    dt = *t;
  }
  return TypeList{TensorType(dt, x.shape)};
}

llvm::Error evalEyeLike(const Node &n, llvm::ArrayRef<const Tensor *>,
                        llvm::MutableArrayRef<Tensor> out) {
  Tensor &y = out[0];
  int64_t rows = y.getShape()[0], cols = y.getShape()[1];
  int64_t k = EyeLikeView(n).k();
  for (int64_t r = 0; r < rows; ++r)
    if (r + k >= 0 && r + k < cols) {
      if (isFloatDType(y.getDType()))
        writeFloat(y, r * cols + r + k, 1.0);
      else
        writeInt(y, r * cols + r + k, 1);
    }
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Window functions (opset 17)
//===----------------------------------------------------------------------===//

llvm::Expected<TypeList> inferWindow(const Node &n) {
  WindowFunctionView window(n);
  int64_t size = window.size();
  if (size < 0)
    return nodeError(n, llvm::formatv("size must not be negative, got {0}",
                                      size));
  int64_t onnxType = window.outputDatatype();
  std::optional<DType> dt = dtypeFromOnnx(onnxType);
  if (!dt || *dt == DType::Bool)
    return nodeError(n, llvm::formatv("unsupported output_datatype {0} ({1})",
                                      onnxDTypeName(onnxType), onnxType));
  return TypeList{TensorType(*dt, {size})};
}

/// The generalized cosine window sum_k a_k cos(2 pi k n / N') with
/// alternating signs, N' = size for a periodic window and size - 1 for a
/// symmetric one (as ONNX defines all three).
llvm::Error evalWindow(const Node &n, llvm::ArrayRef<const Tensor *>,
                       llvm::MutableArrayRef<Tensor> out) {
  llvm::SmallVector<double, 3> a;
  switch (n.getKind()) {
  case OpKind::HannWindow: a = {0.5, 0.5}; break;
  case OpKind::HammingWindow: a = {25.0 / 46.0, 21.0 / 46.0}; break;
  default: a = {0.42, 0.5, 0.08}; break;
  }
  Tensor &y = out[0];
  int64_t size = y.numElements();
  double period =
      WindowFunctionView(n).periodic() ? double(size) : double(size - 1);
  for (int64_t i = 0; i < size; ++i) {
    double v = 0, sign = 1;
    for (size_t k = 0; k < a.size(); ++k, sign = -sign)
      v += sign * a[k] * std::cos(2 * M_PI * double(k) * double(i) / period);
    if (isFloatDType(y.getDType()))
      writeFloat(y, i, v);
    else
      writeInt(y, i, static_cast<int64_t>(v));
  }
  return llvm::Error::success();
}

OpDef windowDef(OpKind kind, const char *name) {
  return {kind,
          name,
          0,
          0,
          1,
          1,
          {{"size", AttrKind::Int, std::nullopt, true},
           {"output_datatype", AttrKind::Int, Attr::ofInt(1)},
           flagAttr("periodic", 1)},
          inferWindow,
          evalWindow};
}

} // namespace

void registerGeneratorOps(std::vector<OpDef> &defs) {
  defs.push_back({OpKind::ConstantOfShape,
                  "ConstantOfShape",
                  0,
                  0,
                  1,
                  1,
                  {{"shape", AttrKind::Ints, std::nullopt, true},
                   {"value", AttrKind::Tensor, std::nullopt}},
                  inferConstantOfShape,
                  evalConstantOfShape});
  defs.push_back({OpKind::Range,
                  "Range",
                  0,
                  0,
                  1,
                  1,
                  {{"delta", AttrKind::Tensor, std::nullopt, true},
                   {"limit", AttrKind::Tensor, std::nullopt, true},
                   {"start", AttrKind::Tensor, std::nullopt, true}},
                  inferRange,
                  evalRange});
  defs.push_back(
      {OpKind::Size, "Size", 1, 1, 1, 1, {}, inferSize, evalSize});
  defs.push_back({OpKind::EyeLike,
                  "EyeLike",
                  1,
                  1,
                  1,
                  1,
                  {{"dtype", AttrKind::Int, std::nullopt},
                   {"k", AttrKind::Int, Attr::ofInt(0)}},
                  inferEyeLike,
                  evalEyeLike});
  defs.push_back(windowDef(OpKind::HannWindow, "HannWindow"));
  defs.push_back(windowDef(OpKind::HammingWindow, "HammingWindow"));
  defs.push_back(windowDef(OpKind::BlackmanWindow, "BlackmanWindow"));
}

} // namespace kiln
