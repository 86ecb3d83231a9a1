//===- OpsetInputs.h - ONNX inputs kiln holds as attributes ----*- C++ -*-===//
//
// Where ONNX moved attribute-like data to an input (Clip-11's min and max,
// Reshape-5's shape, Slice-10's starts, ...), kiln's IR keeps the attribute:
// it decides a shape or a structural choice, so it must be known at compile
// time. The table here lists every such input; one generic adapter
// (OpsetInputs.cpp) applies it, so supporting another is adding a row. A few
// of them only carry a value; where that is computed at run time, the op is
// imported as a formula that reads it.
// Public so that the tests can walk the table.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_FRONTEND_ONNX_OPSETINPUTS_H
#define KILN_FRONTEND_ONNX_OPSETINPUTS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>

namespace kiln {

/// What the constant behind an input must be, and the attribute it becomes.
enum class InputValue {
  /// A 0-D or 1-D int64/int32 tensor: an ints attribute.
  Ints,
  /// One int64/int32 value: an int attribute.
  Int,
  /// One value of a non-f16 type: a float attribute.
  Float,
  /// One value of a non-f16 type, truncated: an int attribute (OneHot's
  /// depth may be a float).
  IntOfAnyType,
  /// The tensor itself, keeping its dtype (Range's bounds).
  Tensor,
};

/// One ONNX input that the IR holds as an attribute. The rows of an op are
/// consecutive, in input order. The trailing columns are for the few rows
/// that differ from the rest.
struct OpsetInput {
  /// The ONNX op type (default domain).
  const char *opType;
  /// The first opset in which the input exists.
  int64_t sinceOpset;
  unsigned input;
  /// The IR's attribute.
  const char *attr;
  InputValue value;
  bool required;
  /// The input's ONNX name, which errors give, where it is not `attr`.
  const char *onnxName = nullptr;
  /// The first opset in which a model may no longer set the attribute
  /// itself, where it is not `sinceOpset` (Split-1 had both forms).
  int64_t attrRemovedIn = 0;
  /// The attribute's name before opset `renamedIn` (Pad-1's "paddings").
  const char *oldAttr = nullptr;
  int64_t renamedIn = 0;

  llvm::StringRef getInputName() const { return onnxName ? onnxName : attr; }
  int64_t getAttrRemovedIn() const {
    return attrRemovedIn ? attrRemovedIn : sinceOpset;
  }
};

/// The table, grouped by op.
llvm::ArrayRef<OpsetInput> opsetInputs();

/// Whether `opType`'s moved inputs only carry values (Clip's bounds, Trilu's
/// k), so that one computed at run time is an operand, not an error.
bool takesRunTimeValues(llvm::StringRef opType);

} // namespace kiln

#endif
