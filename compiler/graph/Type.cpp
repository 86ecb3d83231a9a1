#include "compiler/graph/Type.h"

#include "compiler/graph/Attr.h"

#include "llvm/Support/raw_ostream.h"

namespace kiln {

size_t dtypeSize(DType t) {
  switch (t) {
  case DType::F32:
  case DType::I32:
  case DType::U32:
    return 4;
  case DType::I8:
  case DType::U8:
  case DType::Bool:
    return 1;
  case DType::I16:
  case DType::U16:
  case DType::F16:
    return 2;
  case DType::I64:
  case DType::U64:
  case DType::F64:
    return 8;
  }
  return 0;
}

llvm::StringRef dtypeName(DType t) {
  switch (t) {
  case DType::F32: return "f32";
  case DType::I8: return "i8";
  case DType::U8: return "u8";
  case DType::I16: return "i16";
  case DType::I32: return "i32";
  case DType::I64: return "i64";
  case DType::Bool: return "bool";
  case DType::F16: return "f16";
  case DType::F64: return "f64";
  case DType::U16: return "u16";
  case DType::U32: return "u32";
  case DType::U64: return "u64";
  }
  return "?";
}

std::optional<DType> parseDType(llvm::StringRef name) {
  for (DType t : {DType::F32, DType::I8, DType::U8, DType::I16, DType::I32,
                  DType::I64, DType::Bool, DType::F16, DType::F64,
                  DType::U16, DType::U32, DType::U64})
    if (dtypeName(t) == name)
      return t;
  return std::nullopt;
}

int64_t TensorType::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

std::string shapeStr(llvm::ArrayRef<int64_t> shape) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << '[';
  for (size_t i = 0; i < shape.size(); ++i)
    os << (i ? "," : "") << shape[i];
  os << ']';
  return s;
}

std::string TensorType::str() const {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << dtypeName(dtype) << shapeStr(shape);
  if (quant.isQuantized())
    os << '{' << quantStr(quant) << '}';
  return s;
}

std::string quantStr(const QuantParams &q) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << 'q';
  for (size_t i = 0; i < q.scales.size(); ++i)
    os << (i ? ";" : ":") << floatStr(q.scales[i]) << ','
       << (i < q.zeroPoints.size() ? q.zeroPoints[i] : 0);
  if (q.isPerChannel())
    os << "@" << q.axis;
  return s;
}

} // namespace kiln
