#include "compiler/ops/RecurrentShape.h"

#include "compiler/ops/IntegerLSTM.h"
#include "compiler/ops/OpViews.h"
#include "compiler/ops/TypeRuleHelpers.h"

#include "llvm/Support/FormatVariadic.h"

namespace kiln {

Shape RecurrentDims::outputShape() const {
  return layout ? Shape{batch, seq, dirs, hidden}
                : Shape{seq, dirs, batch, hidden};
}

Shape RecurrentDims::stateShape() const {
  return layout ? Shape{batch, dirs, hidden} : Shape{dirs, batch, hidden};
}

unsigned recurrentActivationCount(OpKind kind) {
  return kind == OpKind::LSTM ? 3 : kind == OpKind::GRU ? 2 : 1;
}

Activation defaultRecurrentActivation(OpKind kind, unsigned slot) {
  bool sigmoid = slot == 0 && kind != OpKind::RNN;
  return *Activation::make(sigmoid ? ActivationKind::Sigmoid : ActivationKind::Tanh);
}

const Activation &recurrentActivation(const Node &n, unsigned slot) {
  return n.getActivation(kRecurrentActivationAttrs[slot]);
}

llvm::Expected<RecurrentDims> recurrentDims(const Node &n) {
  RecurrentDims d;
  d.gates = n.is(OpKind::LSTM) ? 4 : n.is(OpKind::GRU) ? 3 : 1;
  RecurrentView recurrent(n);
  d.layout = recurrent.layout();
  d.direction = recurrent.direction().str();
  if (n.is(OpKind::LSTM) && LSTMView(n).inputForget())
    return nodeError(n, "input_forget=1 is not supported");
  if (n.is(OpKind::LSTM) && LSTMView(n).cellClip() && !(*LSTMView(n).cellClip() > 0))
    return nodeError(n, "kiln.cell_clip must be positive");
  d.dirs = d.direction == "bidirectional" ? 2 : 1;
  // The int8 form's types are inferLSTMInt8's to check.
  if (!isInt8LSTM(n))
    for (unsigned i = 0; i < n.getNumInputs(); ++i)
      if (n.getInput(i) && i != 4)
        if (llvm::Error e = expectDType(n, i, {DType::F32}))
          return std::move(e);
  const TensorType &x = inputType(n, 0), &w = inputType(n, 1),
                   &r = inputType(n, 2);
  if (x.rank() != 3 || w.rank() != 3 || r.rank() != 3)
    return nodeError(n, "X, W and R must be 3-D, got " + x.str() + ", " +
                            w.str() + ", " + r.str());
  d.seq = x.shape[d.layout ? 1 : 0];
  d.batch = x.shape[d.layout ? 0 : 1];
  d.input = x.shape[2];
  d.hidden = r.shape[2];
  std::optional<int64_t> hiddenSize = recurrent.hiddenSize();
  if (hiddenSize && *hiddenSize != d.hidden)
    return nodeError(n, llvm::formatv("hidden_size {0} disagrees with R {1}",
                                      *hiddenSize, r.str()));
  Shape wantW{d.dirs, d.gates * d.hidden, d.input};
  Shape wantR{d.dirs, d.gates * d.hidden, d.hidden};
  if (w.shape != wantW || r.shape != wantR)
    return nodeError(n, "W " + w.str() + " and R " + r.str() +
                            " must be " + shapeStr(wantW) + " and " +
                            shapeStr(wantR));
  auto check = [&](unsigned i, Shape want,
                   llvm::StringRef what) -> llvm::Error {
    if (!n.getInput(i) || inputType(n, i).shape == want)
      return llvm::Error::success();
    return nodeError(n, what + " " + inputType(n, i).str() + " must be " +
                            shapeStr(want));
  };
  if (llvm::Error e = check(3, {d.dirs, 2 * d.gates * d.hidden}, "B"))
    return std::move(e);
  if (n.getInput(4)) {
    if (llvm::Error e = expectDType(n, 4, {DType::I32, DType::I64}))
      return std::move(e);
    if (llvm::Error e = check(4, {d.batch}, "sequence_lens"))
      return std::move(e);
  }
  if (llvm::Error e = check(5, d.stateShape(), "initial_h"))
    return std::move(e);
  if (llvm::Error e = check(6, d.stateShape(), "initial_c"))
    return std::move(e);
  if (llvm::Error e = check(7, {d.dirs, 3 * d.hidden}, "P"))
    return std::move(e);
  return d;
}

} // namespace kiln
