//===- Tensor.h - Owned tensor data ----------------------------*- C++ -*-===//
//
// A Tensor owns the bytes of one TensorType. Constants in the graph, the
// reference interpreter's values and test data are all Tensors.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_GRAPH_TENSOR_H
#define KILN_GRAPH_TENSOR_H

#include "compiler/graph/Type.h"

#include "llvm/ADT/ArrayRef.h"

#include <cassert>
#include <cstring>
#include <string>
#include <vector>

namespace kiln {

class Tensor {
public:
  Tensor() = default;
  /// Zero-filled tensor of the given type.
  explicit Tensor(TensorType type)
      : type_(std::move(type)), bytes_(type_.sizeInBytes()) {}
  Tensor(TensorType type, llvm::ArrayRef<uint8_t> raw) : type_(std::move(type)) {
    assert(raw.size() == type_.sizeInBytes() && "raw data size mismatch");
    bytes_.assign(raw.begin(), raw.end());
  }

  template <typename T>
  static Tensor fromValues(DType dtype, llvm::ArrayRef<int64_t> shape,
                           llvm::ArrayRef<T> values) {
    Tensor t(TensorType(dtype, shape));
    assert(values.size() * sizeof(T) == t.sizeInBytes() && "size mismatch");
    std::memcpy(t.rawData(), values.data(), t.sizeInBytes());
    return t;
  }

  const TensorType &getType() const { return type_; }
  DType getDType() const { return type_.dtype; }
  llvm::ArrayRef<int64_t> getShape() const { return type_.shape; }
  int64_t numElements() const { return type_.numElements(); }
  size_t sizeInBytes() const { return bytes_.size(); }

  uint8_t *rawData() { return bytes_.data(); }
  const uint8_t *rawData() const { return bytes_.data(); }
  llvm::ArrayRef<uint8_t> raw() const { return bytes_; }

  template <typename T> T *data() {
    return reinterpret_cast<T *>(bytes_.data());
  }
  template <typename T> const T *data() const {
    return reinterpret_cast<const T *>(bytes_.data());
  }
  template <typename T> llvm::ArrayRef<T> values() const {
    return llvm::ArrayRef<T>(data<T>(), numElements());
  }

  /// Element `i` converted to double / int64, whatever the dtype
  /// (F16 is not supported here).
  double getAsDouble(int64_t i) const;
  int64_t getAsInt(int64_t i) const;
  /// Stores `v` converted to this tensor's dtype.
  void setFromDouble(int64_t i, double v);
  /// Stores `v` exactly in an i64 or u64 tensor, converted in any other.
  void setFromInt(int64_t i, int64_t v);

  /// Same bytes, new shape (element count must match).
  Tensor reshaped(llvm::ArrayRef<int64_t> shape) const {
    Tensor t = *this;
    t.type_.shape.assign(shape.begin(), shape.end());
    assert(t.type_.sizeInBytes() == bytes_.size());
    return t;
  }

  bool bitwiseEqual(const Tensor &o) const {
    return type_ == o.type_ && bytes_ == o.bytes_;
  }

private:
  TensorType type_;
  std::vector<uint8_t> bytes_;
};

/// Tensors of at most this many elements are printed with their data.
inline constexpr int64_t kPrintedElements = 16;

/// The elements of `t` as "[a,b,...]", flat in row-major order, in a form
/// that reads back to the same bits; empty when `t` has more than
/// kPrintedElements elements or is f16.
std::string tensorDataStr(const Tensor &t);

} // namespace kiln

#endif
