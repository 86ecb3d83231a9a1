#include "compiler/graph/Attr.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstdlib>

namespace kiln {

llvm::StringRef attrKindName(AttrKind k) {
  switch (k) {
  case AttrKind::Int: return "int";
  case AttrKind::Float: return "float";
  case AttrKind::String: return "string";
  case AttrKind::Ints: return "ints";
  case AttrKind::Floats: return "floats";
  case AttrKind::Tensor: return "tensor";
  case AttrKind::Activation: return "activation";
  case AttrKind::Quant: return "quant";
  }
  return "?";
}

std::string floatStr(float v) {
  for (int digits = 6;; ++digits) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.*g", digits, double(v));
    if (digits >= 9 || std::strtof(buf, nullptr) == v)
      return buf;
  }
}

std::string doubleStr(double v) {
  for (int digits = 15;; ++digits) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    if (digits >= 17 || std::strtod(buf, nullptr) == v)
      return buf;
  }
}

bool Attr::operator==(const Attr &o) const {
  if (kind_ != o.kind_)
    return false;
  switch (kind_) {
  case AttrKind::Int: return i_ == o.i_;
  case AttrKind::Float: return f_ == o.f_;
  case AttrKind::String: return s_ == o.s_;
  case AttrKind::Ints: return ints_ == o.ints_;
  case AttrKind::Floats: return floats_ == o.floats_;
  case AttrKind::Tensor: return t_->bitwiseEqual(*o.t_);
  case AttrKind::Activation: return act_ == o.act_;
  case AttrKind::Quant: return quant_ == o.quant_;
  }
  return false;
}

std::string Attr::str() const {
  std::string s;
  llvm::raw_string_ostream os(s);
  switch (kind_) {
  case AttrKind::Int: os << i_; break;
  case AttrKind::Float: os << floatStr(f_); break;
  case AttrKind::String:
    os << '"';
    os.write_escaped(s_);
    os << '"';
    break;
  case AttrKind::Ints:
    os << '[';
    for (size_t i = 0; i < ints_.size(); ++i)
      os << (i ? "," : "") << ints_[i];
    os << ']';
    break;
  case AttrKind::Floats:
    os << '[';
    for (size_t i = 0; i < floats_.size(); ++i)
      os << (i ? "," : "") << floatStr(floats_[i]);
    os << ']';
    break;
  case AttrKind::Tensor:
    os << "tensor<" << t_->getType().str() << '>' << tensorDataStr(*t_);
    break;
  case AttrKind::Activation: os << act_.str(); break;
  case AttrKind::Quant: os << quantStr(quant_); break;
  }
  return s;
}

} // namespace kiln
