#include "compiler/graph/Tensor.h"

#include "compiler/graph/Attr.h"

#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/raw_ostream.h"

namespace kiln {

double Tensor::getAsDouble(int64_t i) const {
  switch (getDType()) {
  case DType::F32: return data<float>()[i];
  case DType::I8: return data<int8_t>()[i];
  case DType::U8: return data<uint8_t>()[i];
  case DType::I16: return data<int16_t>()[i];
  case DType::I32: return data<int32_t>()[i];
  case DType::I64: return static_cast<double>(data<int64_t>()[i]);
  case DType::Bool: return data<uint8_t>()[i] ? 1.0 : 0.0;
  case DType::F64: return data<double>()[i];
  case DType::U16: return data<uint16_t>()[i];
  case DType::U32: return data<uint32_t>()[i];
  case DType::U64: return static_cast<double>(data<uint64_t>()[i]);
  case DType::F16: break;
  }
  llvm_unreachable("getAsDouble: unsupported dtype");
}

int64_t Tensor::getAsInt(int64_t i) const {
  if (getDType() == DType::I64)
    return data<int64_t>()[i];
  if (getDType() == DType::U64)
    return static_cast<int64_t>(data<uint64_t>()[i]);
  return static_cast<int64_t>(getAsDouble(i));
}

void Tensor::setFromDouble(int64_t i, double v) {
  switch (getDType()) {
  case DType::F32: data<float>()[i] = static_cast<float>(v); return;
  case DType::I8: data<int8_t>()[i] = static_cast<int8_t>(v); return;
  case DType::U8: data<uint8_t>()[i] = static_cast<uint8_t>(v); return;
  case DType::I16: data<int16_t>()[i] = static_cast<int16_t>(v); return;
  case DType::I32: data<int32_t>()[i] = static_cast<int32_t>(v); return;
  case DType::I64: data<int64_t>()[i] = static_cast<int64_t>(v); return;
  case DType::Bool: data<uint8_t>()[i] = v != 0.0; return;
  case DType::F64: data<double>()[i] = v; return;
  case DType::U16: data<uint16_t>()[i] = static_cast<uint16_t>(v); return;
  case DType::U32: data<uint32_t>()[i] = static_cast<uint32_t>(v); return;
  case DType::U64: data<uint64_t>()[i] = static_cast<uint64_t>(v); return;
  case DType::F16: break;
  }
  llvm_unreachable("setFromDouble: unsupported dtype");
}

void Tensor::setFromInt(int64_t i, int64_t v) {
  if (getDType() == DType::I64)
    data<int64_t>()[i] = v;
  else if (getDType() == DType::U64)
    data<uint64_t>()[i] = static_cast<uint64_t>(v);
  else
    setFromDouble(i, static_cast<double>(v));
}

std::string tensorDataStr(const Tensor &t) {
  if (t.numElements() > kPrintedElements || t.getDType() == DType::F16)
    return "";
  std::string s;
  llvm::raw_string_ostream os(s);
  os << '[';
  for (int64_t i = 0; i < t.numElements(); ++i) {
    os << (i ? "," : "");
    switch (t.getDType()) {
    case DType::F32: os << floatStr(t.data<float>()[i]); break;
    case DType::F64: os << doubleStr(t.data<double>()[i]); break;
    case DType::U64: os << t.data<uint64_t>()[i]; break;
    default: os << t.getAsInt(i); break;
    }
  }
  os << ']';
  return s;
}

} // namespace kiln
