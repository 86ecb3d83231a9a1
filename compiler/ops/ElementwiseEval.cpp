#include "compiler/ops/ElementwiseEval.h"

#include "compiler/graph/Half.h"
#include "compiler/ops/ShapeIndexing.h"
#include "compiler/ops/TypeRuleHelpers.h"

#include "llvm/Support/FormatVariadic.h"

namespace kiln {

bool isFloatDType(DType t) {
  return t == DType::F32 || t == DType::F16 || t == DType::F64;
}

llvm::ArrayRef<DType> numericDTypes() {
  static const DType types[] = {DType::F32, DType::F16, DType::I8,
                                DType::U8,  DType::I16, DType::I32,
                                DType::I64, DType::U16, DType::U32,
                                DType::U64};
  return types;
}

llvm::ArrayRef<DType> signedDTypes() {
  static const DType types[] = {DType::F32, DType::F16, DType::I8,
                                DType::I16, DType::I32, DType::I64};
  return types;
}

llvm::ArrayRef<DType> floatDTypes() {
  static const DType types[] = {DType::F32, DType::F16};
  return types;
}

double readFloat(const Tensor &t, int64_t i) {
  if (t.getDType() == DType::F16)
    return halfToFloat(t.data<uint16_t>()[i]);
  return t.getAsDouble(i);
}

int64_t readInt(const Tensor &t, int64_t i) {
  if (t.getDType() == DType::F16)
    return static_cast<int64_t>(halfToFloat(t.data<uint16_t>()[i]));
  return t.getAsInt(i);
}

void writeFloat(Tensor &t, int64_t i, double v) {
  if (t.getDType() == DType::F16)
    t.data<uint16_t>()[i] = floatToHalf(static_cast<float>(v));
  else if (t.getDType() == DType::F64)
    t.data<double>()[i] = v;
  else
    t.data<float>()[i] = static_cast<float>(v);
}

void writeInt(Tensor &t, int64_t i, int64_t v) {
  switch (t.getDType()) {
  case DType::I8: t.data<int8_t>()[i] = static_cast<int8_t>(v); return;
  case DType::U8: t.data<uint8_t>()[i] = static_cast<uint8_t>(v); return;
  case DType::I16: t.data<int16_t>()[i] = static_cast<int16_t>(v); return;
  case DType::I32: t.data<int32_t>()[i] = static_cast<int32_t>(v); return;
  case DType::I64: t.data<int64_t>()[i] = v; return;
  case DType::U16: t.data<uint16_t>()[i] = static_cast<uint16_t>(v); return;
  case DType::U32: t.data<uint32_t>()[i] = static_cast<uint32_t>(v); return;
  case DType::U64: t.data<uint64_t>()[i] = static_cast<uint64_t>(v); return;
  case DType::Bool: t.data<uint8_t>()[i] = v != 0; return;
  case DType::F32:
  case DType::F16:
  case DType::F64: writeFloat(t, i, static_cast<double>(v)); return;
  }
}

void forEachBroadcast(
    llvm::ArrayRef<const Tensor *> ins, llvm::ArrayRef<int64_t> outShape,
    llvm::function_ref<void(int64_t, llvm::ArrayRef<int64_t>)> fn) {
  llvm::SmallVector<Shape, 3> strides;
  for (const Tensor *t : ins)
    strides.push_back(broadcastStrides(t->getShape(), outShape));
  StridedIndex it(outShape, strides);
  llvm::SmallVector<int64_t, 3> offsets(ins.size());
  int64_t count = TensorType(DType::F32, outShape).numElements();
  for (int64_t i = 0; i < count; ++i, it.next()) {
    for (size_t k = 0; k < ins.size(); ++k)
      offsets[k] = it.offset(k);
    fn(i, offsets);
  }
}

llvm::Expected<Shape> broadcastInputShapes(const Node &n, unsigned first) {
  Shape out = inputType(n, first).shape;
  for (unsigned i = first + 1; i < n.getNumInputs(); ++i) {
    std::optional<Shape> b = broadcastShapes(out, inputType(n, i).shape);
    if (!b)
      return nodeError(n, llvm::formatv("input shapes {0} and {1} do not "
                                        "broadcast",
                                        shapeStr(out),
                                        shapeStr(inputType(n, i).shape)));
    out = *b;
  }
  return out;
}

llvm::Error expectSameDType(const Node &n, llvm::ArrayRef<DType> allowed,
                            unsigned first) {
  if (llvm::Error e = expectDType(n, first, allowed))
    return e;
  DType t = inputType(n, first).dtype;
  for (unsigned i = first + 1; i < n.getNumInputs(); ++i)
    if (inputType(n, i).dtype != t)
      return nodeError(n, llvm::formatv("input {0} is {1} but input {2} is {3}",
                                        i, inputType(n, i).str(), first,
                                        inputType(n, first).str()));
  return llvm::Error::success();
}

} // namespace kiln
