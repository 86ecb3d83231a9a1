//===- OpViews.h - Typed views of nodes, from OpViews.def -------*- C++ -*-===//
//
// A view names a node's operands and gives its attributes their types:
//
//   ConvView conv(node);
//   if (conv.group() > 1 || conv.strides(0) != 1) ...
//   Value *w = conv.weights();
//
// Each view is generated from one entry of OpViews.def, which a test checks
// against the op records; a view is a reference to the node and costs nothing
// to make. Constructing one for a node of another op, or reading a required
// operand or attribute the node lacks, is a fatal error in every build: it is
// a bug in the reader, and an assert would let a release build read garbage.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_OPS_OPVIEWS_H
#define KILN_OPS_OPVIEWS_H

#include "compiler/graph/Graph.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Compiler.h"
#include "llvm/Support/ErrorHandling.h"

#include <optional>
#include <type_traits>

namespace kiln {
namespace op_view_detail {

/// The C++ type of an attribute of kind AttrKind::K, and its read.
template <AttrKind K> struct AttrAccess;
template <> struct AttrAccess<AttrKind::Int> {
  using Type = int64_t;
  static Type get(const Attr &a) { return a.getInt(); }
};
template <> struct AttrAccess<AttrKind::Float> {
  using Type = float;
  static Type get(const Attr &a) { return a.getFloat(); }
};
template <> struct AttrAccess<AttrKind::String> {
  using Type = llvm::StringRef;
  static Type get(const Attr &a) { return a.getString(); }
};
template <> struct AttrAccess<AttrKind::Ints> {
  using Type = llvm::ArrayRef<int64_t>;
  static Type get(const Attr &a) { return a.getInts(); }
};
template <> struct AttrAccess<AttrKind::Floats> {
  using Type = llvm::ArrayRef<float>;
  static Type get(const Attr &a) { return a.getFloats(); }
};
template <> struct AttrAccess<AttrKind::Activation> {
  using Type = const Activation &;
  static Type get(const Attr &a) { return a.getActivation(); }
};
template <> struct AttrAccess<AttrKind::Tensor> {
  using Type = const Tensor &;
  static Type get(const Attr &a) { return a.getTensor(); }
};

/// Reports a view read against the records (a bug, not bad input); cold and
/// out of line so that the checks cost a compare and a branch.
[[noreturn]] LLVM_ATTRIBUTE_NOINLINE inline void
misread(const Node &n, const llvm::Twine &what) {
  llvm::report_fatal_error(llvm::Twine("op view of ") + n.getDef().name +
                           " node '" + n.getName() + "': " + what);
}

/// An attribute the record guarantees (a default, or required).
template <AttrKind K>
typename AttrAccess<K>::Type present(const Node &n, llvm::StringRef key) {
  const Attr *a = n.getAttr(key);
  if (LLVM_UNLIKELY(!a || a->getKind() != K))
    misread(n, llvm::Twine("attribute '") + key +
                   "' missing or of another kind");
  return AttrAccess<K>::get(*a);
}

/// An attribute the node may lack: a std::optional, or for a tensor a pointer
/// (null when absent), which spares copying it.
template <AttrKind K> auto optional(const Node &n, llvm::StringRef key) {
  using T =
      std::remove_cv_t<std::remove_reference_t<typename AttrAccess<K>::Type>>;
  using Result =
      std::conditional_t<K == AttrKind::Tensor, const T *, std::optional<T>>;
  const Attr *a = n.getAttr(key);
  if (!a)
    return Result();
  if (LLVM_UNLIKELY(a->getKind() != K))
    misread(n, llvm::Twine("attribute '") + key + "' of another kind");
  if constexpr (K == AttrKind::Tensor)
    return Result(&a->getTensor());
  else
    return Result(AttrAccess<K>::get(*a));
}

inline llvm::ArrayRef<int64_t> ints(const Node &n, llvm::StringRef key) {
  const Attr *a = n.getAttr(key);
  return a ? a->getInts() : llvm::ArrayRef<int64_t>();
}

inline int64_t intsAt(const Node &n, llvm::StringRef key, size_t i,
                      int64_t dflt) {
  llvm::ArrayRef<int64_t> v = ints(n, key);
  return i < v.size() ? v[i] : dflt;
}

} // namespace op_view_detail

#define KILN_VIEW(Name, ...)                                                   \
  class Name##View {                                                           \
  public:                                                                      \
    static constexpr OpKind kKinds[] = {__VA_ARGS__};                          \
    static bool accepts(const Node &n) {                                       \
      return llvm::is_contained(kKinds, n.getKind());                          \
    }                                                                          \
    explicit Name##View(const Node &n) : node_(n) {                            \
      if (LLVM_UNLIKELY(!accepts(n)))                                          \
        op_view_detail::misread(n, "not an op of " #Name "View");              \
    }                                                                          \
    const Node &node() const { return node_; }                                 \
                                                                               \
  private:                                                                     \
    const Node &node_;                                                         \
                                                                               \
  public:
#define KILN_OPERAND(name, index)                                              \
  Value *name() const {                                                        \
    Value *v = node_.getInput(index);                                          \
    if (LLVM_UNLIKELY(!v))                                                     \
      op_view_detail::misread(node_, "required operand " #name " absent");     \
    return v;                                                                  \
  }
#define KILN_OPTIONAL_OPERAND(name, index)                                     \
  Value *name() const { return node_.getInput(index); }
#define KILN_ATTR(name, key, Kind)                                             \
  op_view_detail::AttrAccess<AttrKind::Kind>::Type name() const {              \
    return op_view_detail::present<AttrKind::Kind>(node_, key);                \
  }
#define KILN_OPTIONAL_ATTR(name, key, Kind)                                    \
  auto name() const {                                                          \
    return op_view_detail::optional<AttrKind::Kind>(node_, key);               \
  }
#define KILN_INTS_ATTR(name, key, dflt)                                        \
  llvm::ArrayRef<int64_t> name() const {                                       \
    return op_view_detail::ints(node_, key);                                   \
  }                                                                            \
  int64_t name(size_t i) const {                                               \
    return op_view_detail::intsAt(node_, key, i, dflt);                        \
  }                                                                            \
  std::optional<llvm::ArrayRef<int64_t>> name##IfGiven() const {               \
    return op_view_detail::optional<AttrKind::Ints>(node_, key);               \
  }
#define KILN_END_VIEW(Name)                                                    \
  }                                                                            \
  ;
#include "compiler/ops/OpViews.def"

} // namespace kiln

#endif
