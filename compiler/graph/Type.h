//===- Type.h - Element types, shapes and tensor types ---------*- C++ -*-===//
//
// Every value in kiln's IR has a TensorType: an element type, a static shape
// and (for quantized tensors) quantization parameters. The DType numbering is
// the public kiln_dtype numbering of runtime_min/kiln.h, so it can be written
// straight into a bundle's tensor table.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_GRAPH_TYPE_H
#define KILN_GRAPH_TYPE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace kiln {

/// Element types. Values match kiln_dtype in runtime_min/kiln.h (checked in
/// compiler/abi/KilnABI.h, which the code generator writes them through).
enum class DType : uint8_t {
  F32 = 1,
  I8 = 2,
  U8 = 3,
  I16 = 4,
  I32 = 5,
  I64 = 6,
  Bool = 7,
  F16 = 8,
  F64 = 9,
  U16 = 10,
  U32 = 11,
  U64 = 12,
};

/// Size of one element in bytes.
size_t dtypeSize(DType t);
/// Short lower-case name ("f32", "i64", ...), used by the printer.
llvm::StringRef dtypeName(DType t);
/// Parses a name produced by dtypeName.
std::optional<DType> parseDType(llvm::StringRef name);

using Shape = llvm::SmallVector<int64_t, 6>;

/// Affine quantization: real = scale * (q - zeroPoint). One scale/zero point
/// per tensor, or one per slice along `axis` (per-channel). Empty scales mean
/// the tensor is not quantized.
struct QuantParams {
  llvm::SmallVector<float, 1> scales;
  llvm::SmallVector<int32_t, 1> zeroPoints;
  int32_t axis = -1;

  bool isQuantized() const { return !scales.empty(); }
  bool isPerChannel() const { return scales.size() > 1; }
  bool operator==(const QuantParams &o) const {
    return scales == o.scales && zeroPoints == o.zeroPoints && axis == o.axis;
  }
};

/// "q:0.5,-128" (per channel: "q:0.5,0;0.25,0@0"), as TensorType::str
/// prints it.
std::string quantStr(const QuantParams &q);

/// Element type + static shape (+ quantization). Rank 0 is a scalar.
/// The most elements a tensor may have: every extent product kiln computes
/// then fits in int64 with room to spare, and element offsets in int32.
constexpr int64_t kMaxTensorElements = 2147483647;

struct TensorType {
  DType dtype = DType::F32;
  Shape shape;
  QuantParams quant;

  TensorType() = default;
  TensorType(DType dtype, llvm::ArrayRef<int64_t> shape)
      : dtype(dtype), shape(shape.begin(), shape.end()) {}

  size_t rank() const { return shape.size(); }
  int64_t numElements() const;
  size_t sizeInBytes() const { return numElements() * dtypeSize(dtype); }
  bool operator==(const TensorType &o) const {
    return dtype == o.dtype && shape == o.shape && quant == o.quant;
  }
  bool operator!=(const TensorType &o) const { return !(*this == o); }
  /// "f32[1,3,224,224]" (with "{q:scale,zp}" when quantized).
  std::string str() const;
};

/// "[1,3,224,224]"
std::string shapeStr(llvm::ArrayRef<int64_t> shape);

} // namespace kiln

#endif
