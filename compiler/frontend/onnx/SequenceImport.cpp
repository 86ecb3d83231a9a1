//===- SequenceImport.cpp - ONNX sequences resolved while importing -------===//

#include "compiler/frontend/onnx/SequenceImport.h"
#include "compiler/frontend/onnx/AdapterUtils.h"


#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"

namespace kiln {
namespace {

/// A sequence op's position input `i` (a constant scalar), checked against
/// [lo, hi] and made non-negative by adding `length`; `dflt` when absent.
llvm::Expected<int64_t> positionInput(const PendingNode &n, unsigned i,
                                      int64_t length, int64_t lo, int64_t hi,
                                      std::optional<int64_t> dflt) {
  if (!n.getInput(i)) {
    if (dflt)
      return *dflt;
    return n.error(llvm::formatv("input {0} (position) is missing", i));
  }
  auto t = constantInput(n, i, "position");
  if (!t)
    return t.takeError();
  if ((*t)->numElements() != 1 ||
      ((*t)->getDType() != DType::I64 && (*t)->getDType() != DType::I32))
    return n.error("position must be an int32 or int64 scalar, got " +
                   (*t)->getType().str());
  int64_t pos = (*t)->getAsInt(0);
  if (pos < lo || pos > hi)
    return n.error(llvm::formatv("position {0} is outside [{1}, {2}] for a "
                                 "sequence of {3}",
                                 pos, lo, hi, length));
  return pos < 0 ? pos + length : pos;
}

/// SplitToSequence: a Split, each piece squeezed when there is no `split`
/// input and keepdims is 0.
llvm::Expected<ValueList> splitToSequence(NodeEmitter &e, PendingNode &n) {
  if (n.inputs.empty() || !n.inputs[0])
    return n.error("needs an input tensor");
  const TensorType &xt = n.inputs[0]->getType();
  auto keepDims = intAttr(n, "keepdims", 1);
  if (!keepDims)
    return keepDims.takeError();
  auto axis = axisAttr(n, "axis", 0, xt.rank());
  if (!axis)
    return axis.takeError();
  int64_t len = xt.shape[*axis];
  Shape sizes;
  bool squeeze = false;
  if (!n.getInput(1)) {
    sizes.assign(len, 1);
    squeeze = *keepDims == 0;
  } else {
    auto t = constantInput(n, 1, "split");
    if (!t)
      return t.takeError();
    if ((*t)->getShape().size() > 1 ||
        ((*t)->getDType() != DType::I64 && (*t)->getDType() != DType::I32))
      return n.error("split must be an int scalar or 1-D tensor, got " +
                     (*t)->getType().str());
    if ((*t)->getShape().empty()) {
      int64_t chunk = (*t)->getAsInt(0);
      if (chunk <= 0)
        return n.error(llvm::formatv("split {0} is not positive", chunk));
      for (int64_t done = 0; done < len; done += chunk)
        sizes.push_back(std::min(chunk, len - done));
    } else {
      for (int64_t k = 0; k < (*t)->numElements(); ++k)
        sizes.push_back((*t)->getAsInt(k));
    }
  }
  int64_t total = 0;
  for (int64_t s : sizes) {
    if (s < 0)
      return n.error("split sizes must not be negative");
    total += s;
  }
  if (total != len || sizes.empty())
    return n.error(llvm::formatv("split sizes add up to {0}, not the axis "
                                 "length {1}",
                                 total, len));
  auto pieces = e.emit(
      OpKind::Split, n.name, {n.inputs[0]},
      {{"axis", Attr::ofInt(*axis)}, {"split", Attr::ofInts(sizes)}}, {});
  if (!pieces || !squeeze)
    return pieces;
  Shape squeezed(xt.shape);
  squeezed.erase(squeezed.begin() + *axis);
  ValueList result;
  for (Value *piece : *pieces) {
    auto r = reshapeTo(e, n, piece, squeezed, "squeeze");
    if (!r)
      return r.takeError();
    result.push_back(*r);
  }
  return result;
}

/// ConcatFromSequence: a Concat, along a new axis when new_axis is 1.
llvm::Expected<Value *> concatFromSequence(NodeEmitter &e, PendingNode &n,
                                           const ValueList &seq) {
  if (seq.empty())
    return n.error("cannot concatenate an empty sequence");
  auto newAxis = intAttr(n, "new_axis", 0);
  if (!newAxis)
    return newAxis.takeError();
  int64_t rank = seq[0]->getType().rank() + (*newAxis ? 1 : 0);
  auto axis = axisAttr(n, "axis", std::nullopt, rank);
  if (!axis)
    return axis.takeError();
  ValueList parts;
  for (Value *v : seq) {
    if (!*newAxis) {
      parts.push_back(v);
      continue;
    }
    Shape shape(v->getType().shape);
    shape.insert(shape.begin() + *axis, 1);
    auto r = reshapeTo(e, n, v, shape, "unsqueeze");
    if (!r)
      return r.takeError();
    parts.push_back(*r);
  }
  auto y = e.emit(OpKind::Concat, n.name, parts, {{"axis", Attr::ofInt(*axis)}},
                  {n.getOutputName(0)});
  if (!y)
    return y.takeError();
  return (*y)[0];
}

} // namespace

bool isImportTimeSequenceOp(llvm::StringRef opType) {
  return llvm::StringSwitch<bool>(opType)
      .Cases("SequenceEmpty", "SequenceConstruct", "SequenceInsert",
             "SequenceErase", "SequenceAt", "SequenceLength", true)
      .Cases("ConcatFromSequence", "SplitToSequence", true)
      .Default(false);
}

llvm::Error importSequenceOp(NodeEmitter &e, PendingNode &n,
                             llvm::ArrayRef<std::string> sequenceInputs,
                             ImportScope scope) {
  llvm::StringRef op = n.opType;
  bool takesSequence = op != "SequenceEmpty" && op != "SequenceConstruct" &&
                       op != "SplitToSequence";
  ValueList seq;
  if (takesSequence) {
    if (sequenceInputs.empty() || sequenceInputs[0].empty())
      return n.error("input 0 must be a sequence");
    seq = scope.sequences.find(sequenceInputs[0])->second;
  } else {
    for (unsigned i = 0; i < sequenceInputs.size(); ++i)
      if (!sequenceInputs[i].empty())
        return n.error(llvm::formatv("input {0} must be a tensor", i));
  }
  for (unsigned i = 1; i < sequenceInputs.size(); ++i)
    if (!sequenceInputs[i].empty())
      return n.error(llvm::formatv("input {0} must be a tensor", i));
  if (n.outputs.size() != 1 || n.outputs[0].empty())
    return n.error("expects one output");
  const std::string &out = n.outputs[0];
  if (scope.tensors.count(out) || scope.sequences.count(out))
    return n.error("value '" + out + "' is defined more than once");
  int64_t len = seq.size();

  auto defineSequence = [&](ValueList s) {
    scope.sequences[out] = std::move(s);
    return llvm::Error::success();
  };
  auto defineTensor = [&](llvm::Expected<Value *> v) -> llvm::Error {
    if (!v)
      return v.takeError();
    scope.tensors[out] = *v;
    return llvm::Error::success();
  };

  if (op == "SequenceEmpty")
    return defineSequence({});
  if (op == "SequenceConstruct") {
    if (n.inputs.empty() || llvm::is_contained(n.inputs, nullptr))
      return n.error("needs at least one tensor");
    return defineSequence(ValueList(n.inputs.begin(), n.inputs.end()));
  }
  if (op == "SequenceInsert") {
    if (!n.getInput(1))
      return n.error("needs a tensor to insert");
    auto pos = positionInput(n, 2, len, -len, len, len);
    if (!pos)
      return pos.takeError();
    seq.insert(seq.begin() + *pos, n.inputs[1]);
    return defineSequence(std::move(seq));
  }
  if (op == "SequenceErase") {
    if (len == 0)
      return n.error("cannot erase from an empty sequence");
    auto pos = positionInput(n, 1, len, -len, len - 1, len - 1);
    if (!pos)
      return pos.takeError();
    seq.erase(seq.begin() + *pos);
    return defineSequence(std::move(seq));
  }
  if (op == "SequenceAt") {
    auto pos = positionInput(n, 1, len, -len, len - 1, std::nullopt);
    if (!pos)
      return pos.takeError();
    auto y = e.emit(OpKind::Identity, n.name, {seq[*pos]}, {}, {out});
    if (!y)
      return y.takeError();
    return defineTensor((*y)[0]);
  }
  if (op == "SequenceLength") {
    Graph &g = e.getGraph();
    Tensor t(TensorType(DType::I64, {}));
    t.data<int64_t>()[0] = len;
    return defineTensor(g.addConstant(g.uniqueName(out), std::move(t)));
  }
  if (op == "ConcatFromSequence")
    return defineTensor(concatFromSequence(e, n, seq));
  auto pieces = splitToSequence(e, n);
  if (!pieces)
    return pieces.takeError();
  return defineSequence(std::move(*pieces));
}

} // namespace kiln
