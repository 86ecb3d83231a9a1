//===- Attr.h - Node attributes --------------------------------*- C++ -*-===//
//
// Attributes use ONNX's names and kinds so the importer can convert them
// generically. An AttrMap is ordered by name, which keeps printing and
// hashing deterministic.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_GRAPH_ATTR_H
#define KILN_GRAPH_ATTR_H

#include "compiler/graph/Activation.h"
#include "compiler/graph/Tensor.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace kiln {

enum class AttrKind { Int, Float, String, Ints, Floats, Tensor, Activation, Quant };

llvm::StringRef attrKindName(AttrKind k);

/// The shortest decimal form of `v` that reads back as `v` (0.1f is "0.1").
std::string floatStr(float v);
/// The same for a double.
std::string doubleStr(double v);

class Attr {
public:
  Attr() = default;
  static Attr ofInt(int64_t v) { Attr a(AttrKind::Int); a.i_ = v; return a; }
  static Attr ofFloat(float v) { Attr a(AttrKind::Float); a.f_ = v; return a; }
  static Attr ofString(llvm::StringRef v) {
    Attr a(AttrKind::String); a.s_ = v.str(); return a;
  }
  static Attr ofInts(llvm::ArrayRef<int64_t> v) {
    Attr a(AttrKind::Ints); a.ints_.assign(v.begin(), v.end()); return a;
  }
  static Attr ofFloats(llvm::ArrayRef<float> v) {
    Attr a(AttrKind::Floats); a.floats_.assign(v.begin(), v.end()); return a;
  }
  static Attr ofTensor(Tensor t) {
    Attr a(AttrKind::Tensor);
    a.t_ = std::make_shared<Tensor>(std::move(t));
    return a;
  }

  static Attr ofActivation(Activation v) {
    Attr a(AttrKind::Activation); a.act_ = std::move(v); return a;
  }
  static Attr ofQuant(QuantParams v) {
    Attr a(AttrKind::Quant); a.quant_ = std::move(v); return a;
  }

  AttrKind getKind() const { return kind_; }
  int64_t getInt() const { return i_; }
  float getFloat() const { return f_; }
  llvm::StringRef getString() const { return s_; }
  llvm::ArrayRef<int64_t> getInts() const { return ints_; }
  llvm::ArrayRef<float> getFloats() const { return floats_; }
  const Tensor &getTensor() const { return *t_; }
  const Activation &getActivation() const { return act_; }
  const QuantParams &getQuant() const { return quant_; }

  bool operator==(const Attr &o) const;
  bool operator!=(const Attr &o) const { return !(*this == o); }
  /// Printer form: 3, 0.5, "NOTSET", [1,1], [0.5,1], tensor<f32[1]>[0]
  /// (the data only when tensorDataStr prints it), Clip(0,6).
  std::string str() const;

private:
  explicit Attr(AttrKind k) : kind_(k) {}
  AttrKind kind_ = AttrKind::Int;
  int64_t i_ = 0;
  float f_ = 0;
  std::string s_;
  std::vector<int64_t> ints_;
  std::vector<float> floats_;
  std::shared_ptr<const Tensor> t_;
  Activation act_;
  QuantParams quant_;
};

using AttrMap = std::map<std::string, Attr, std::less<>>;

} // namespace kiln

#endif
