//===- OpsetAdapters.cpp - ONNX opset differences -> kiln semantics -------===//

#include "compiler/frontend/onnx/OpsetAdapters.h"
#include "compiler/frontend/onnx/AdapterUtils.h"
#include "compiler/frontend/onnx/OnnxImporter.h"

#include "compiler/ops/OnnxDTypes.h"

#include "llvm/Support/FormatVariadic.h"

#include <climits>

namespace kiln {
namespace {

/// Whether Dropout-12's ratio input (0.5 when absent) is 0. Training mode
/// needs it constant: only a ratio of 0 makes training deterministic.
llvm::Expected<bool> isZeroRatio(const PendingNode &n) {
  if (!n.getInput(1))
    return false;
  auto ratio = constantInput(n, 1, "ratio");
  if (!ratio)
    return ratio.takeError();
  const Tensor &t = **ratio;
  if (t.numElements() != 1 || t.getDType() == DType::F16)
    return n.error("ratio must be one f32 or f64 value");
  return t.getAsDouble(0) == 0.0;
}

/// Dropout is the identity in inference; only Dropout-12's training_mode
/// input could change that, and it must be a constant false (or the ratio 0).
llvm::Expected<ValueList> emitDropout(NodeEmitter &e, PendingNode &n) {
  if (e.getOpset() >= 12) {
    if (auto err = checkMaxInputs(n, 3))
      return err;
    if (n.getInput(2)) {
      auto mode = constantInput(n, 2, "training_mode");
      if (!mode)
        return mode.takeError();
      if ((*mode)->getDType() != DType::Bool || (*mode)->numElements() != 1)
        return n.error("training_mode must be one bool");
      // Training with a ratio of 0 drops nothing: it is inference.
      bool training = (*mode)->values<uint8_t>()[0] != 0;
      auto zeroRatio = training ? isZeroRatio(n) : llvm::Expected<bool>(false);
      if (!zeroRatio)
        return zeroRatio.takeError();
      if (training && !*zeroRatio)
        return n.error("training mode is not supported: training_mode must "
                       "be a constant false, or the ratio a constant 0 (a "
                       "random mask cannot be reproduced); kiln compiles for "
                       "inference");
    }
    n.inputs.resize(std::min<size_t>(n.inputs.size(), 1));
  }
  return e.emit(n);
}

/// RoiAlign-10 had no coordinate_transformation_mode: its regions were
/// output_half_pixel ones, where RoiAlign-16's default is half_pixel.
llvm::Expected<ValueList> emitRoiAlign(NodeEmitter &e, PendingNode &n) {
  if (e.getOpset() < 16)
    n.attrs["coordinate_transformation_mode"] = Attr::ofString("output_half_pixel");
  return e.emit(n);
}

/// Before opset 13, Softmax, LogSoftmax and Hardmax coerced their input to
/// 2-D at `axis` (default 1) and normalized whole rows. kiln's ops normalize
/// along one axis (opset-13 semantics), which agrees when `axis` is the last
/// one; otherwise the old semantics become Flatten(axis) -> op(axis 1) ->
/// Reshape.
llvm::Expected<ValueList> emitSoftmax(NodeEmitter &e, PendingNode &n) {
  if (e.getOpset() >= 13 || n.inputs.size() != 1 || !n.inputs[0])
    return e.emit(n);
  Value *x = n.inputs[0];
  int64_t rank = x->getType().rank();
  auto axisOrErr = axisAttr(n, "axis", 1, rank);
  if (!axisOrErr)
    return axisOrErr.takeError();
  int64_t axis = *axisOrErr;
  n.attrs["axis"] = Attr::ofInt(axis == rank - 1 ? axis : 1);
  if (axis == rank - 1)
    return e.emit(n);

  auto flat = e.emit(OpKind::Flatten, n.name + "/flatten", {x},
                     {{"axis", Attr::ofInt(axis)}}, {});
  if (!flat)
    return flat.takeError();
  auto soft = e.emit(n.kind, n.name, {(*flat)[0]}, n.attrs, {});
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
    n.attrs.erase("training_mode");
    if (*training != 0)
      return emitTrainingBatchNorm(e, n);
  }
  return e.emit(n);
}

/// Before opset 7, binary ops broadcast only with broadcast=1, and then B
/// matched A's dimensions starting at `axis` (by default the trailing
/// ones). Numpy-style broadcasting covers this once B gets trailing 1s.
llvm::Expected<ValueList> emitLegacyBroadcast(NodeEmitter &e, PendingNode &n) {
  if (e.getOpset() >= 7)
    return e.emit(n);
  auto broadcast = intAttr(n, "broadcast", 0);
  if (!broadcast)
    return broadcast.takeError();
  auto axis = intAttr(n, "axis", INT64_MIN);
  if (!axis)
    return axis.takeError();
  n.attrs.erase("broadcast");
  n.attrs.erase("axis");
  if (!*broadcast || *axis == INT64_MIN || n.inputs.size() != 2 ||
      !n.inputs[0] || !n.inputs[1])
    return e.emit(n);
  int64_t rankA = n.inputs[0]->getType().rank();
  const TensorType &b = n.inputs[1]->getType();
  int64_t start = *axis < 0 ? *axis + rankA : *axis;
  int64_t trailing = rankA - start - int64_t(b.rank());
  if (start < 0 || trailing < 0)
    return n.error(llvm::formatv("axis {0} does not place B {1} inside A of "
                                 "rank {2}",
                                 *axis, b.str(), rankA));
  if (trailing > 0 && b.rank() > 0) {
    Shape shape = b.shape;
    shape.append(trailing, 1);
    auto reshaped = reshapeTo(e, n, n.inputs[1], shape, "broadcast");
    if (!reshaped)
      return reshaped.takeError();
    n.inputs[1] = *reshaped;
  }
  return e.emit(n);
}

/// PRelu before opset 7 applied a 1-D slope of C values per channel.
llvm::Expected<ValueList> emitPRelu(NodeEmitter &e, PendingNode &n) {
  if (e.getOpset() >= 7 || n.inputs.size() != 2 || !n.inputs[0] ||
      !n.inputs[1])
    return e.emit(n);
  const TensorType &x = n.inputs[0]->getType(), &slope = n.inputs[1]->getType();
  if (x.rank() > 2 && slope.rank() == 1 && slope.shape[0] == x.shape[1] &&
      slope.shape[0] != 1) {
    Shape shape = slope.shape;
    shape.append(x.rank() - 2, 1);
    auto reshaped = reshapeTo(e, n, n.inputs[1], shape, "slope");
    if (!reshaped)
      return reshaped.takeError();
    n.inputs[1] = *reshaped;
  }
  return e.emit(n);
}

/// Cast before opset 6 named the target type with a string ("FLOAT");
/// CastLike casts to the type of its second input.
llvm::Expected<ValueList> emitCast(NodeEmitter &e, PendingNode &n) {
  if (n.opType == "CastLike") {
    if (n.inputs.size() != 2 || !n.inputs[1])
      return n.error("expects 2 inputs");
    n.attrs["to"] = Attr::ofInt(onnxFromDType(n.inputs[1]->getType().dtype));
    n.inputs.resize(1);
    return e.emit(n);
  }
  auto it = n.attrs.find("to");
  if (it == n.attrs.end() || it->second.getKind() != AttrKind::String)
    return e.emit(n);
  llvm::StringRef name = it->second.getString();
  for (int64_t t = 1; onnxDTypeName(t) != "unknown"; ++t)
    if (onnxDTypeName(t) == name) {
      it->second = Attr::ofInt(t);
      return e.emit(n);
    }
  return n.error("unknown target type '" + name + "'");
}

/// AveragePool-19's dilations: only dense windows (every dilation 1).
llvm::Expected<ValueList> emitAveragePool(NodeEmitter &e, PendingNode &n) {
  auto it = n.attrs.find("dilations");
  if (it != n.attrs.end()) {
    if (it->second.getKind() != AttrKind::Ints ||
        llvm::any_of(it->second.getInts(), [](int64_t d) { return d != 1; }))
      return n.error("dilations other than 1 are not supported");
    n.attrs.erase(it);
  }
  return e.emit(n);
}

/// Concat before opset 4 had a default axis of 1.
llvm::Expected<ValueList> emitConcat(NodeEmitter &e, PendingNode &n) {
  if (e.getOpset() < 4 && !n.attrs.count("axis"))
    n.attrs["axis"] = Attr::ofInt(1);
  return e.emit(n);
}

/// An attribute of older opsets, or of converters, that changes nothing in
/// inference: dropped on import.
struct IgnoredAttr {
  /// nullptr: every op.
  const char *opType;
  const char *attr;
  /// Dropped below this opset; 0: at every opset.
  int64_t untilOpset = 0;
};

// clang-format off
const IgnoredAttr kIgnoredAttrs[] = {
  // An optimization hint of the first ONNX runtimes, on many ops before
  // opset 7; some converters keep it on BatchNormalization later.
  {nullptr,              "consumed_inputs", 7},
  {"BatchNormalization", "consumed_inputs"},
  {"BatchNormalization", "is_test"},
  // Dropout is the identity in inference (Dropout-12's inputs are checked).
  {"Dropout",            "is_test"},
  {"Dropout",            "ratio"},
  // Gemm-6's broadcast only allowed what kiln's Gemm always does.
  {"Gemm",               "broadcast"},
  // Opset 19's saturate rounds to float8 types, which kiln has not.
  {"Cast",               "saturate"},
  {"CastLike",           "saturate"},
  {"QuantizeLinear",     "saturate"},
};
// clang-format on

void dropIgnoredAttrs(PendingNode &n, int64_t opset) {
  for (const IgnoredAttr &row : kIgnoredAttrs)
    if ((!row.opType || n.opType == row.opType) &&
        (!row.untilOpset || opset < row.untilOpset))
      n.attrs.erase(row.attr);
}

using FormulaEmitter = llvm::Expected<ValueList> (*)(NodeEmitter &,
                                                     PendingNode &);
/// ONNX ops without a kiln op, imported as the ops that compute them.
const std::pair<const char *, FormulaEmitter> kFormulaOps[] = {
    {"ConvInteger", emitConvInteger},
    {"DFT", emitDft},
    {"Einsum", emitEinsum},
    {"Gelu", emitGelu},
    {"GridSample", emitGridSample},
    {"GroupNormalization", emitGroupNormalization},
    {"MatMulInteger", emitMatMulInteger},
    {"MelWeightMatrix", emitMelWeightMatrix},
    {"QLinearConv", emitQLinearConv},
    {"QLinearMatMul", emitQLinearMatMul},
    {"STFT", emitStft},
    {"TopK", emitTopK}};

} // namespace

const OpDef *lookupOnnxOp(llvm::StringRef opType) {
  static const std::pair<const char *, const char *> aliases[] = {
      {"CastLike", "Cast"},
      {"Compress", "Gather"},
      {"DynamicQuantizeLinear", "QuantizeLinear"},
      {"MaxUnpool", "ScatterElements"},
      {"ReverseSequence", "GatherElements"},
      {"Scatter", "ScatterElements"},
      {"Upsample", "Resize"}};
  for (auto [alias, op] : aliases)
    if (opType == alias)
      return lookupOpDef(op);
  // A formula op's node carries a nominal kind; its adapter emits the rest.
  for (auto [formula, emit] : kFormulaOps)
    if (opType == formula)
      return &getOpDef(OpKind::Identity);
  return lookupOpDef(opType);
}

llvm::Expected<ValueList> emitAdapted(NodeEmitter &e, PendingNode &n) {
  dropIgnoredAttrs(n, e.getOpset());
  if (n.kind == OpKind::Pad)
    if (auto err = takePadAxes(e, n))
      return std::move(err);
  auto runtimeForm = takeOpsetInputs(n, e.getOpset());
  if (!runtimeForm)
    return runtimeForm.takeError();
  if (*runtimeForm)
    return (*runtimeForm)(e, n);
  for (auto [formula, emit] : kFormulaOps)
    if (n.opType == formula)
      return emit(e, n);
  switch (n.kind) {
  case OpKind::Add:
  case OpKind::Sub:
  case OpKind::Mul:
  case OpKind::Div:
  case OpKind::Pow:
  case OpKind::And:
  case OpKind::Or:
  case OpKind::Xor:
  case OpKind::Equal:
  case OpKind::Less:
  case OpKind::Greater:
    return emitLegacyBroadcast(e, n);
  case OpKind::PRelu: return emitPRelu(e, n);
  case OpKind::Cast: return emitCast(e, n);
  case OpKind::Concat: return emitConcat(e, n);
  case OpKind::Dropout: return emitDropout(e, n);
  case OpKind::Softmax:
  case OpKind::LogSoftmax:
  case OpKind::Hardmax: return emitSoftmax(e, n);
  case OpKind::Split: return emitSplit(e, n);
  case OpKind::Tile: return emitTile(e, n);
  case OpKind::Resize: return emitResize(e, n);
  case OpKind::RoiAlign: return emitRoiAlign(e, n);
  case OpKind::Gather:
    return n.opType == "Compress" ? emitCompress(e, n) : e.emit(n);
  case OpKind::QuantizeLinear:
    return n.opType == "DynamicQuantizeLinear"
               ? emitDynamicQuantizeLinear(e, n)
               : emitLinearQuantization(e, n);
  case OpKind::DequantizeLinear: return emitLinearQuantization(e, n);
  case OpKind::GatherElements:
    return n.opType == "ReverseSequence" ? emitReverseSequence(e, n)
                                         : e.emit(n);
  case OpKind::ScatterElements:
    return n.opType == "MaxUnpool" ? emitMaxUnpool(e, n) : e.emit(n);
  case OpKind::BatchNormalization: return emitBatchNorm(e, n);
  case OpKind::AveragePool: return emitAveragePool(e, n);
  case OpKind::MaxPool:
    return n.outputs.size() > 1 && !n.outputs[1].empty()
               ? emitMaxPoolWithIndices(e, n)
               : e.emit(n);
  default: return e.emit(n);
  }
}

} // namespace kiln
