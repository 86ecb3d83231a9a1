//===- OpDef.h - Declarative op descriptions -------------------*- C++ -*-===//
//
// One OpDef per op: its inputs, attributes, type/shape rule and reference
// semantics. The importer, verifier, printer, interpreter and constant folder
// all read the same description, so adding an op means adding one OpDef (in
// compiler/ops/) and one line to compiler/graph/OpKinds.def.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_GRAPH_OPDEF_H
#define KILN_GRAPH_OPDEF_H

#include "compiler/graph/Attr.h"
#include "compiler/graph/Tensor.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <vector>

namespace kiln {

class Node;

enum class OpKind : uint16_t {
#define KILN_OP(Name) Name,
#include "compiler/graph/OpKinds.def"
};

/// The values an attribute may take within its kind. addNode rejects the
/// others, naming the node, the op and the attribute, so type rules,
/// lowering and kernels only ever see values they handle.
struct AttrDomain {
  enum class Kind : uint8_t {
    Any,
    /// An int, or each of ints, in [min, max].
    IntRange,
    /// A float, or each of floats, that is not NaN (an infinite bound such as
    /// Clip's is meaningful).
    NotNaN,
    /// A float, or each of floats, neither NaN nor infinite.
    Finite,
    /// A string among `strings`.
    OneOf,
  };
  Kind kind = Kind::Any;
  int64_t min = 0, max = 0;
  std::vector<const char *> strings;
};

/// One attribute an op accepts. Attributes with a default are always present
/// on a node after construction; those without one and not `required` may be
/// absent (e.g. Conv's kernel_shape, inferred from the weights).
struct AttrSpec {
  const char *name;
  AttrKind kind;
  std::optional<Attr> defaultValue;
  bool required = false;
  AttrDomain domain = {};
};

/// An int flag, 0 or 1, with default `value`.
inline AttrSpec flagAttr(const char *name, int64_t value) {
  return {name, AttrKind::Int, Attr::ofInt(value), false,
          {AttrDomain::Kind::IntRange, 0, 1, {}}};
}
/// An int (or ints, by `kind`) in [min, max]; no default when `value` is
/// nullopt.
inline AttrSpec intRangeAttr(const char *name, AttrKind kind, std::optional<Attr> value,
                             int64_t min, int64_t max, bool required = false) {
  return {name, kind, std::move(value), required, {AttrDomain::Kind::IntRange, min, max, {}}};
}
/// A finite float with default `value`.
inline AttrSpec finiteAttr(const char *name, float value) {
  return {name, AttrKind::Float, Attr::ofFloat(value), false, {AttrDomain::Kind::Finite}};
}
/// A string among `values`, with default `value`; required where it is null.
inline AttrSpec enumAttr(const char *name, const char *value,
                         std::vector<const char *> values) {
  return {name, AttrKind::String,
          value ? std::optional<Attr>(Attr::ofString(value)) : std::nullopt, !value,
          {AttrDomain::Kind::OneOf, 0, 0, std::move(values)}};
}

/// Computes the output types from the node's inputs (types, and constant
/// data where the rule needs it, e.g. Reshape's shape) and attributes.
using InferFn =
    llvm::Expected<llvm::SmallVector<TensorType, 1>> (*)(const Node &node);

/// Reference semantics: computes `outputs` (pre-allocated with the inferred
/// types, zero-filled) from `inputs` (nullptr for an absent optional input).
/// Plain loops, written for clarity; this is the oracle the compiled code is
/// tested against.
using EvalFn = llvm::Error (*)(const Node &node,
                               llvm::ArrayRef<const Tensor *> inputs,
                               llvm::MutableArrayRef<Tensor> outputs);

/// The code generator's kernel family for a primitive op: the ops lowering
/// leaves in the graph. None for ops lowering rewrites (or import folds).
enum class KernelFamily : uint8_t {
  None,
  /// A view of its input's bytes (Reshape): no kernel.
  View,
  Conv,
  ConvTranspose,
  MatMul,
  /// Every KILN_ELEMENTWISE_OP of OpKinds.def.
  Elementwise,
  /// Every KILN_REDUCE_OP of OpKinds.def.
  Reduce,
  Pool,
  Softmax,
  /// LayerNormalization over contiguous rows (layerNormRows); lowering
  /// rewrites the others.
  LayerNorm,
  Gather,
  Scatter,
  Expand,
  Slice,
  Transpose,
  Concat,
  Pad,
  /// Resize of the last two axes (f32); lowering rewrites the others.
  Resize,
  /// TopKIndices: a selection per row along the axis.
  TopK,
  /// RoiAlign: bilinear samples of run-time regions, pooled per bin.
  RoiAlign,
  /// An int8 LSTM over its whole sequence (IntegerLSTM.h); lowering unrolls
  /// the float recurrent layers.
  Recurrent,
};

llvm::StringRef kernelFamilyName(KernelFamily f);

/// Facts about an op that passes and the back end ask for by name.
enum OpTrait : unsigned {
  /// Each output element depends only on the inputs' elements at the same
  /// (broadcast) position.
  kElementwiseTrait = 1 << 0,
  /// Reduces over axes (KILN_REDUCE_OP).
  kReductionTrait = 1 << 1,
  /// A record of compiler/ops/Activations.def: fuses into Conv and MatMul.
  kActivationTrait = 1 << 2,
  /// The result's values are some of input 0's, moved: an int8 result
  /// carries input 0's (per-tensor) quantization, as TFLite requires of
  /// RESHAPE, TRANSPOSE, PAD, MAX_POOL_2D and the like.
  kQuantPreservingTrait = 1 << 3,
  /// Its int8 form has an integer kernel of its own (TFLite's arithmetic),
  /// chosen as the Int8 strategy; other ops on int8 move bytes, which any
  /// dtype's kernel does.
  kInt8KernelTrait = 1 << 4,
};

struct OpDef {
  OpKind kind;
  /// The ONNX op type where the op is an ONNX op.
  const char *name;
  unsigned minInputs;
  unsigned maxInputs;
  unsigned minOutputs;
  unsigned maxOutputs;
  std::vector<AttrSpec> attrs;
  InferFn infer;
  EvalFn eval;
  /// Set by the op's family where it is primitive; derived for elementwise
  /// ops and reductions.
  KernelFamily kernel = KernelFamily::None;
  /// OpTrait bits, derived from OpKinds.def and Activations.def.
  unsigned traits = 0;

  bool hasTrait(OpTrait t) const { return traits & t; }
  /// Whether the code generator implements the op (lowering leaves it).
  bool isPrimitive() const { return kernel != KernelFamily::None; }

  const AttrSpec *findAttr(llvm::StringRef attrName) const;
};

/// Whether `kind` is a KILN_ELEMENTWISE_OP of OpKinds.def: every output
/// element depends only on the inputs' elements at the same (broadcast)
/// position, so a kernel may overwrite an input element once it has read it.
inline bool isElementwise(OpKind kind) {
  switch (kind) {
#define KILN_OP(Name)
#define KILN_ELEMENTWISE_OP(Name) case OpKind::Name:
#include "compiler/graph/OpKinds.def"
    return true;
  default:
    return false;
  }
}

/// Whether `kind` is a KILN_REDUCE_OP of OpKinds.def.
inline bool isReduction(OpKind kind) {
  switch (kind) {
#define KILN_OP(Name)
#define KILN_REDUCE_OP(Name) case OpKind::Name:
#include "compiler/graph/OpKinds.def"
    return true;
  default:
    return false;
  }
}

/// The description of `kind`.
const OpDef &getOpDef(OpKind kind);
/// The op named `name` ("Conv"), or nullptr.
const OpDef *lookupOpDef(llvm::StringRef name);
/// All ops, in OpKinds.def order.
llvm::ArrayRef<const OpDef *> allOpDefs();

} // namespace kiln

#endif
