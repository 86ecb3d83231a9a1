//===- OpsetInputs.cpp - ONNX inputs that kiln holds as attributes --------===//
//
// The table of OpsetInputs.h and the one adapter that applies it: from the
// opset that made the data an input, the attribute is rejected (so a model
// cannot set the IR's attribute directly), the constant behind each input
// becomes the attribute and the input is dropped. An input that is not
// constant once the importer has folded what it can is an error naming the
// node and the input, unless it only carries a value: then the op's runtime
// form computes with it.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/onnx/OpsetInputs.h"
#include "compiler/frontend/onnx/AdapterUtils.h"
#include "compiler/graph/CheckedMath.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FormatVariadic.h"

namespace kiln {
namespace {

constexpr InputValue Ints = InputValue::Ints, Int = InputValue::Int,
                     Float = InputValue::Float,
                     IntOfAnyType = InputValue::IntOfAnyType,
                     TensorValue = InputValue::Tensor;
constexpr bool Req = true, Opt = false;

// clang-format off
const OpsetInput kOpsetInputs[] = {
  // op, since opset, input, attribute, value, required
  {"Reshape",          5, 1, "shape",   Ints,         Req},
  {"Tile",             6, 1, "repeats", Ints,         Req},
  {"Expand",           8, 1, "shape",   Ints,         Req},
  {"ConstantOfShape",  9, 0, "shape",   Ints,         Req},
  {"OneHot",           9, 1, "depth",   IntOfAnyType, Req},
  {"Slice",           10, 1, "starts",  Ints,         Req},
  {"Slice",           10, 2, "ends",    Ints,         Req},
  {"Slice",           10, 3, "axes",    Ints,         Opt},
  {"Slice",           10, 4, "steps",   Ints,         Opt},
  {"TopK",            10, 1, "k",       Int,          Req, "K"},
  {"Clip",            11, 1, "min",     Float,        Opt},
  {"Clip",            11, 2, "max",     Float,        Opt},
  {"Pad",             11, 1, "pads",    Ints,         Req, "pads", 11,
   /*oldAttr=*/"paddings", /*renamedIn=*/2},
  {"Pad",             11, 2, "value",   Float,        Opt, "constant_value"},
  {"CumSum",          11, 1, "axis",    Int,          Req},
  {"Range",           11, 0, "start",   TensorValue,  Req},
  {"Range",           11, 1, "limit",   TensorValue,  Req},
  {"Range",           11, 2, "delta",   TensorValue,  Req},
  // Split-2 to Split-12 have only the attribute; an input is taken anyway.
  {"Split",            1, 1, "split",   Ints,         Opt, "split", 13},
  {"ReduceSum",       13, 1, "axes",    Ints,         Opt},
  // The other reductions followed at opset 18.
  {"ReduceMean",      18, 1, "axes",    Ints,         Opt},
  {"ReduceMax",       18, 1, "axes",    Ints,         Opt},
  {"ReduceMin",       18, 1, "axes",    Ints,         Opt},
  {"ReduceProd",      18, 1, "axes",    Ints,         Opt},
  {"ReduceL1",        18, 1, "axes",    Ints,         Opt},
  {"ReduceL2",        18, 1, "axes",    Ints,         Opt},
  {"ReduceLogSum",    18, 1, "axes",    Ints,         Opt},
  {"ReduceLogSumExp", 18, 1, "axes",    Ints,         Opt},
  {"ReduceSumSquare", 18, 1, "axes",    Ints,         Opt},
  // Without axes, Squeeze removes every 1-dimension.
  {"Squeeze",         13, 1, "axes",    Ints,         Opt},
  {"Unsqueeze",       13, 1, "axes",    Ints,         Req},
  {"Trilu",           14, 1, "k",       Int,          Opt},
  {"HannWindow",      17, 0, "size",    Int,          Req},
  {"HammingWindow",   17, 0, "size",    Int,          Req},
  {"BlackmanWindow",  17, 0, "size",    Int,          Req},
};
// clang-format on

/// Ops whose rows above only carry values: where one is computed at run
/// time, the op is emitted as a formula that reads it as an operand.
const std::pair<const char *, RuntimeValueForm> kRuntimeValueForms[] = {
    {"Clip", emitClipOfRuntimeBounds},
    {"Trilu", emitTriluOfRuntimeK},
};

RuntimeValueForm runtimeValueForm(llvm::StringRef opType) {
  for (auto [op, form] : kRuntimeValueForms)
    if (opType == op)
      return form;
  return nullptr;
}

llvm::Error rejectAttr(const PendingNode &n, const OpsetInput &row) {
  if (!n.attrs.count(row.attr))
    return llvm::Error::success();
  return n.error(llvm::formatv("attribute '{0}' is an input since opset {1}",
                               row.attr, row.getAttrRemovedIn()));
}

/// The attribute the constant behind `row`'s input holds.
llvm::Expected<Attr> attrOfInput(const PendingNode &n, const OpsetInput &row) {
  llvm::StringRef name = row.getInputName();
  switch (row.value) {
  case InputValue::Ints: {
    auto v = intsInput(n, row.input, name);
    if (!v)
      return v.takeError();
    return Attr::ofInts(*v);
  }
  case InputValue::Int: {
    auto v = scalarIntInput(n, row.input, name);
    if (!v)
      return v.takeError();
    return Attr::ofInt(*v);
  }
  case InputValue::Float:
  case InputValue::IntOfAnyType: {
    auto v = scalarInput(n, row.input, name);
    if (!v)
      return v.takeError();
    if (row.value == InputValue::Float)
      return Attr::ofFloat(*v);
    std::optional<int64_t> i = checkedTruncToInt64(*v);
    if (!i)
      return n.error(llvm::formatv("input '{0}' holds {1}, which is not an int64", name, *v));
    return Attr::ofInt(*i);
  }
  case InputValue::Tensor: {
    auto t = constantInput(n, row.input, name);
    if (!t)
      return t.takeError();
    return Attr::ofTensor(**t);
  }
  }
  llvm_unreachable("unknown InputValue");
}

} // namespace

llvm::ArrayRef<OpsetInput> opsetInputs() { return kOpsetInputs; }

bool takesRunTimeValues(llvm::StringRef opType) {
  return runtimeValueForm(opType) != nullptr;
}

llvm::Expected<RuntimeValueForm> takeOpsetInputs(PendingNode &n,
                                                 int64_t opset) {
  llvm::SmallVector<const OpsetInput *, 4> rows;
  for (const OpsetInput &row : kOpsetInputs) {
    if (n.opType != row.opType)
      continue;
    if (row.oldAttr && opset < row.renamedIn) {
      auto old = n.attrs.find(row.oldAttr);
      if (old != n.attrs.end()) {
        n.attrs[row.attr] = old->second;
        n.attrs.erase(old);
      }
    }
    if (opset >= row.sinceOpset)
      rows.push_back(&row);
  }
  if (rows.empty())
    return nullptr;
  for (const OpsetInput *row : rows)
    if (opset >= row->getAttrRemovedIn())
      if (auto err = rejectAttr(n, *row))
        return std::move(err);
  // The ONNX form takes the IR op's inputs and the ones the table moves.
  if (auto err = checkMaxInputs(n, getOpDef(n.kind).maxInputs + rows.size()))
    return std::move(err);
  if (RuntimeValueForm form = runtimeValueForm(n.opType))
    for (const OpsetInput *row : rows)
      if (Value *v = n.getInput(row->input); v && !v->isConstant())
        return form;
  for (const OpsetInput *row : rows) {
    if (!row->required && !n.getInput(row->input))
      continue;
    auto attr = attrOfInput(n, *row);
    if (!attr)
      return attr.takeError();
    n.attrs[row->attr] = std::move(*attr);
  }
  for (const OpsetInput *row : llvm::reverse(rows))
    if (row->input < n.inputs.size())
      n.inputs.erase(n.inputs.begin() + row->input);
  return nullptr;
}

} // namespace kiln
