//===- OpsetAdapters.cpp - ONNX opset differences -> kiln semantics -------===//

#include "compiler/frontend/onnx/OpsetAdapters.h"

#include "llvm/Support/FormatVariadic.h"

namespace kiln {
namespace {

/// The constant behind input `i`, or an error naming the input when it is
/// computed at run time.
llvm::Expected<const Tensor *> constantInput(const PendingNode &n, unsigned i,
                                             llvm::StringRef what) {
  Value *v = n.getInput(i);
  if (!v)
    return n.error(llvm::formatv("input {0} ({1}) is missing", i, what));
  if (!v->isConstant())
    return n.error(llvm::formatv(
        "input {0} ({1}) must be a constant; '{2}' is computed at run time", i,
        what, v->getName()));
  return &v->getConstant();
}

/// A constant int64 vector input (pads, shape, axes).
llvm::Expected<llvm::SmallVector<int64_t, 8>>
intsInput(const PendingNode &n, unsigned i, llvm::StringRef what) {
  auto t = constantInput(n, i, what);
  if (!t)
    return t.takeError();
  if ((*t)->getDType() != DType::I64 || (*t)->getShape().size() > 1)
    return n.error(llvm::formatv("input {0} ({1}) must be a 1-D int64 "
                                 "tensor, got {2}",
                                 i, what, (*t)->getType().str()));
  llvm::ArrayRef<int64_t> v = (*t)->values<int64_t>();
  return llvm::SmallVector<int64_t, 8>(v.begin(), v.end());
}

/// A constant one-element input (Clip's bounds, Pad's value), as a float
/// attribute holds it.
llvm::Expected<float> scalarInput(const PendingNode &n, unsigned i,
                                  llvm::StringRef what) {
  auto t = constantInput(n, i, what);
  if (!t)
    return t.takeError();
  if ((*t)->numElements() != 1 || (*t)->getDType() == DType::F16)
    return n.error(llvm::formatv("input {0} ({1}) must be a one-element "
                                 "tensor of a non-f16 type, got {2}",
                                 i, what, (*t)->getType().str()));
  return static_cast<float>((*t)->getAsDouble(0));
}

/// Rejects an attribute that `sinceOpset` turned into an input, so a model
/// cannot set the IR attribute directly.
llvm::Error rejectAttr(const PendingNode &n, llvm::StringRef attr,
                       int64_t sinceOpset) {
  if (!n.attrs.count(attr))
    return llvm::Error::success();
  return n.error(llvm::formatv("attribute '{0}' is an input since opset {1}",
                               attr, sinceOpset));
}

llvm::Error checkMaxInputs(const PendingNode &n, unsigned maxInputs) {
  if (n.inputs.size() <= maxInputs)
    return llvm::Error::success();
  return n.error(llvm::formatv("expects at most {0} inputs, got {1}", maxInputs,
                               n.inputs.size()));
}

/// Reads an int attribute that an adapter interprets itself.
llvm::Expected<int64_t> intAttr(const PendingNode &n, llvm::StringRef attr,
                                int64_t dflt) {
  auto it = n.attrs.find(attr);
  if (it == n.attrs.end())
    return dflt;
  if (it->second.getKind() != AttrKind::Int)
    return n.error("attribute '" + attr + "' must be int");
  return it->second.getInt();
}

/// Clip-11 moved min and max from attributes to optional inputs.
llvm::Expected<ValueList> emitClip(NodeEmitter &e, PendingNode &n) {
  if (e.getOpset() < 11)
    return e.emit(n);
  static const char *const bounds[] = {"min", "max"};
  for (const char *b : bounds)
    if (auto err = rejectAttr(n, b, 11))
      return err;
  if (auto err = checkMaxInputs(n, 3))
    return err;
  for (unsigned i = 1; i < n.inputs.size(); ++i) {
    if (!n.inputs[i])
      continue;
    auto v = scalarInput(n, i, bounds[i - 1]);
    if (!v)
      return v.takeError();
    n.attrs[bounds[i - 1]] = Attr::ofFloat(*v);
  }
  n.inputs.resize(1);
  return e.emit(n);
}

/// Pad-11 moved pads and the constant value to inputs.
llvm::Expected<ValueList> emitPad(NodeEmitter &e, PendingNode &n) {
  if (e.getOpset() < 11)
    return e.emit(n);
  for (const char *a : {"pads", "value"})
    if (auto err = rejectAttr(n, a, 11))
      return err;
  if (auto err = checkMaxInputs(n, 3))
    return err;
  auto pads = intsInput(n, 1, "pads");
  if (!pads)
    return pads.takeError();
  n.attrs["pads"] = Attr::ofInts(*pads);
  if (n.getInput(2)) {
    auto value = scalarInput(n, 2, "constant_value");
    if (!value)
      return value.takeError();
    n.attrs["value"] = Attr::ofFloat(*value);
  }
  n.inputs.resize(1);
  return e.emit(n);
}

/// Reshape-5 (below kiln's opset floor) moved the shape to an input.
llvm::Expected<ValueList> emitReshape(NodeEmitter &e, PendingNode &n) {
  if (auto err = rejectAttr(n, "shape", 5))
    return err;
  if (auto err = checkMaxInputs(n, 2))
    return err;
  auto shape = intsInput(n, 1, "shape");
  if (!shape)
    return shape.takeError();
  n.attrs["shape"] = Attr::ofInts(*shape);
  n.inputs.resize(1);
  return e.emit(n);
}

/// Squeeze-13 and Unsqueeze-13 moved the axes to an input (optional for
/// Squeeze, which then removes every 1-dimension).
llvm::Expected<ValueList> emitAxesOp(NodeEmitter &e, PendingNode &n,
                                     bool axesRequired) {
  if (e.getOpset() < 13)
    return e.emit(n);
  if (auto err = rejectAttr(n, "axes", 13))
    return err;
  if (auto err = checkMaxInputs(n, 2))
    return err;
  if (axesRequired || n.getInput(1)) {
    auto axes = intsInput(n, 1, "axes");
    if (!axes)
      return axes.takeError();
    n.attrs["axes"] = Attr::ofInts(*axes);
  }
  n.inputs.resize(1);
  return e.emit(n);
}

/// Dropout is the identity in inference, so its ratio is irrelevant; only
/// Dropout-12's training_mode input could change that, and it must be a
/// constant false.
llvm::Expected<ValueList> emitDropout(NodeEmitter &e, PendingNode &n) {
  n.attrs.erase("ratio");
  n.attrs.erase("is_test");
  if (e.getOpset() >= 12) {
    if (auto err = checkMaxInputs(n, 3))
      return err;
    if (n.getInput(2)) {
      auto mode = constantInput(n, 2, "training_mode");
      if (!mode)
        return mode.takeError();
      if ((*mode)->getDType() != DType::Bool || (*mode)->numElements() != 1 ||
          (*mode)->values<uint8_t>()[0] != 0)
        return n.error("training_mode must be a constant false; kiln "
                       "compiles for inference");
    }
    n.inputs.resize(std::min<size_t>(n.inputs.size(), 1));
  }
  return e.emit(n);
}

/// Before opset 13, Softmax coerced its input to 2-D at `axis` (default 1)
/// and normalized whole rows. kiln's Softmax normalizes along one axis
/// (opset-13 semantics), which agrees when `axis` is the last one; otherwise
/// the old semantics become Flatten(axis) -> Softmax(axis 1) -> Reshape.
llvm::Expected<ValueList> emitSoftmax(NodeEmitter &e, PendingNode &n) {
  if (e.getOpset() >= 13 || n.inputs.size() != 1 || !n.inputs[0])
    return e.emit(n);
  auto axisOrErr = intAttr(n, "axis", 1);
  if (!axisOrErr)
    return axisOrErr.takeError();
  Value *x = n.inputs[0];
  int64_t rank = x->getType().rank();
  int64_t axis = *axisOrErr;
  if (axis < -rank || axis >= rank)
    return n.error(
        llvm::formatv("axis {0} is out of range for rank {1}", axis, rank));
  if (axis < 0)
    axis += rank;
  n.attrs["axis"] = Attr::ofInt(axis == rank - 1 ? axis : 1);
  if (axis == rank - 1)
    return e.emit(n);

  auto flat = e.emit(OpKind::Flatten, n.name + "/flatten", {x},
                     {{"axis", Attr::ofInt(axis)}}, {});
  if (!flat)
    return flat.takeError();
  auto soft = e.emit(OpKind::Softmax, n.name, {(*flat)[0]}, n.attrs, {});
  if (!soft)
    return soft.takeError();
  llvm::ArrayRef<int64_t> shape = x->getType().shape;
  AttrMap reshapeAttrs{{"shape", Attr::ofInts(shape)}};
  // Reshape's 0 means "copy the input dimension" unless allowzero is set.
  if (llvm::is_contained(shape, 0))
    reshapeAttrs["allowzero"] = Attr::ofInt(1);
  return e.emit(OpKind::Reshape, n.name + "/reshape", {(*soft)[0]},
                std::move(reshapeAttrs), n.outputs);
}

/// BatchNormalization before opset 9 had `spatial` (only 1, the per-channel
/// form, exists in kiln); opset 14 added training_mode, which must be off.
llvm::Expected<ValueList> emitBatchNorm(NodeEmitter &e, PendingNode &n) {
  // Leftovers of opset 6 some converters keep; meaningless in inference.
  n.attrs.erase("consumed_inputs");
  n.attrs.erase("is_test");
  if (e.getOpset() < 9) {
    auto spatial = intAttr(n, "spatial", 1);
    if (!spatial)
      return spatial.takeError();
    if (*spatial != 1)
      return n.error("spatial=0 (per-element statistics) is not supported");
    n.attrs.erase("spatial");
  }
  if (e.getOpset() >= 14) {
    auto training = intAttr(n, "training_mode", 0);
    if (!training)
      return training.takeError();
    if (*training != 0)
      return n.error("training_mode must be 0; kiln compiles for inference");
    n.attrs.erase("training_mode");
  }
  return e.emit(n);
}

} // namespace

llvm::Expected<ValueList> emitAdapted(NodeEmitter &e, PendingNode &n) {
  switch (n.kind) {
  case OpKind::Clip: return emitClip(e, n);
  case OpKind::Pad: return emitPad(e, n);
  case OpKind::Reshape: return emitReshape(e, n);
  case OpKind::Squeeze: return emitAxesOp(e, n, /*axesRequired=*/false);
  case OpKind::Unsqueeze: return emitAxesOp(e, n, /*axesRequired=*/true);
  case OpKind::Dropout: return emitDropout(e, n);
  case OpKind::Softmax: return emitSoftmax(e, n);
  case OpKind::BatchNormalization: return emitBatchNorm(e, n);
  case OpKind::Gemm:
    // Gemm-6's `broadcast` only allowed what kiln's Gemm always does.
    n.attrs.erase("broadcast");
    return e.emit(n);
  default: return e.emit(n);
  }
}

} // namespace kiln
