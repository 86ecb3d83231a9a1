//===- RecurrentOps.cpp - RNN, GRU, LSTM ----------------------------------===//
//
// The recurrent layers of ONNX (RNN-14, GRU-14, LSTM-14) with any of kiln's
// activations as f, g and h (RecurrentShape.h; the same in both
// directions), any direction, both layouts, an optional clip of the gate
// inputs and optional sequence lengths (forward only: a batch entry's state
// stops at its length and its later outputs are 0). Gate order in W, R and B is ONNX's:
// GRU z, r, h; LSTM i, o, f, c (peepholes P: i, o, f).
//
//===----------------------------------------------------------------------===//
#include "compiler/graph/Graph.h"
#include "compiler/ops/ActivationFormula.h"
#include "compiler/ops/IntegerLSTM.h"
#include "compiler/ops/OpFamilies.h"
#include "compiler/ops/OpViews.h"
#include "compiler/ops/QuantizedTypes.h"
#include "compiler/ops/TypeRuleHelpers.h"
#include "compiler/ops/RecurrentShape.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>

namespace kiln {
namespace {

llvm::Expected<TypeList> inferRecurrent(const Node &n) {
  if (isInt8LSTM(n))
    return inferLSTMInt8(n);
  auto dims = recurrentDims(n);
  if (!dims)
    return dims.takeError();
  TensorType state(DType::F32, dims->stateShape());
  TypeList types{TensorType(DType::F32, dims->outputShape()), state};
  if (n.is(OpKind::LSTM))
    types.push_back(state);
  return types;
}

/// The recurrent state of one direction for one batch entry.
struct Cell {
  std::vector<double> h, c;
};

llvm::Error evalRecurrent(const Node &n, llvm::ArrayRef<const Tensor *> in,
                          llvm::MutableArrayRef<Tensor> out) {
  if (isInt8LSTM(n))
    return evalLSTMInt8(n, in, out);
  RecurrentDims d = *recurrentDims(n);
  auto input = [&](unsigned i) {
    return i < in.size() ? in[i] : nullptr;
  };
  const Tensor &x = *in[0], &w = *in[1], &r = *in[2];
  const Tensor *b = input(3), *lens = input(4), *h0 = input(5);
  const Tensor *c0 = input(6), *p = input(7);
  bool isLSTM = n.is(OpKind::LSTM), isGRU = n.is(OpKind::GRU);
  bool linearBeforeReset = isGRU && GRUView(n).linearBeforeReset();
  std::optional<double> clip;
  if (std::optional<float> given = RecurrentView(n).clip())
    clip = *given;
  int64_t H = d.hidden, G = d.gates;
  auto clipped = [&](double v) {
    return clip ? std::clamp(v, -*clip, *clip) : v;
  };
  // f, g and h of the clipped gate input.
  Activation acts[3];
  for (unsigned i = 0; i < recurrentActivationCount(n.getKind()); ++i)
    acts[i] = recurrentActivation(n, i);
  auto f = [&](double v) { return applyActivation(acts[0], clipped(v)); };
  auto g = [&](double v) { return applyActivation(acts[1], clipped(v)); };
  std::optional<double> cellClip;
  if (isLSTM)
    if (std::optional<float> given = LSTMView(n).cellClip())
      cellClip = *given;
  auto xAt = [&](int64_t t, int64_t bi, int64_t k) {
    int64_t at = d.layout ? (bi * d.seq + t) * d.input + k
                          : (t * d.batch + bi) * d.input + k;
    return double(x.data<float>()[at]);
  };
  for (int64_t dir = 0; dir < d.dirs; ++dir) {
    bool reverse = d.direction == "reverse" || dir == 1;
    const float *W = w.data<float>() + dir * G * H * d.input;
    const float *R = r.data<float>() + dir * G * H * H;
    const float *B = b ? b->data<float>() + dir * 2 * G * H : nullptr;
    const float *P = p ? p->data<float>() + dir * 3 * H : nullptr;
    for (int64_t bi = 0; bi < d.batch; ++bi) {
      int64_t len = lens ? lens->getAsInt(bi) : d.seq;
      len = std::clamp<int64_t>(len, 0, d.seq);
      Cell s{std::vector<double>(H, 0.0), std::vector<double>(H, 0.0)};
      int64_t stateAt = d.layout ? (bi * d.dirs + dir) * H : (dir * d.batch + bi) * H;
      if (h0)
        for (int64_t j = 0; j < H; ++j)
          s.h[j] = h0->data<float>()[stateAt + j];
      if (c0)
        for (int64_t j = 0; j < H; ++j)
          s.c[j] = c0->data<float>()[stateAt + j];
      for (int64_t step = 0; step < len; ++step) {
        int64_t t = reverse ? len - 1 - step : step;
        // Gate pre-activations: x W^T + Wb, and h R^T + Rb apart (GRU's
        // linear_before_reset needs them apart).
        std::vector<double> xw(G * H), hr(G * H);
        for (int64_t g = 0; g < G * H; ++g) {
          double a = B ? B[g] : 0.0, c = B ? B[G * H + g] : 0.0;
          for (int64_t k = 0; k < d.input; ++k)
            a += xAt(t, bi, k) * W[g * d.input + k];
          for (int64_t k = 0; k < H; ++k)
            c += s.h[k] * R[g * H + k];
          xw[g] = a;
          hr[g] = c;
        }
        std::vector<double> h(H), c(H);
        for (int64_t j = 0; j < H; ++j) {
          if (isLSTM) {
            double pi = P ? P[j] : 0, po = P ? P[H + j] : 0,
                   pf = P ? P[2 * H + j] : 0;
            double i = f(xw[j] + hr[j] + pi * s.c[j]);
            double ft = f(xw[2 * H + j] + hr[2 * H + j] + pf * s.c[j]);
            double cc = g(xw[3 * H + j] + hr[3 * H + j]);
            c[j] = ft * s.c[j] + i * cc;
            if (cellClip)
              c[j] = std::clamp(c[j], -*cellClip, *cellClip);
            double o = f(xw[H + j] + hr[H + j] + po * c[j]);
            h[j] = o * applyActivation(acts[2], c[j]);
          } else if (isGRU) {
            double z = f(xw[j] + hr[j]);
            double rr = f(xw[H + j] + hr[H + j]);
            double cand;
            if (linearBeforeReset) {
              cand = xw[2 * H + j] + rr * hr[2 * H + j];
            } else {
              // (r . h) R_h^T + Rb_h, recomputed with the reset state.
              double acc = B ? B[G * H + 2 * H + j] : 0.0;
              for (int64_t k = 0; k < H; ++k) {
                double rk = f(xw[H + k] + hr[H + k]);
                acc += rk * s.h[k] * R[(2 * H + j) * H + k];
              }
              cand = xw[2 * H + j] + acc;
            }
            double hh = g(cand);
            h[j] = (1 - z) * hh + z * s.h[j];
          } else {
            h[j] = f(xw[j] + hr[j]);
          }
        }
        s.h = h;
        if (isLSTM)
          s.c = c;
        for (int64_t j = 0; j < H; ++j) {
          int64_t at = d.layout ? ((bi * d.seq + t) * d.dirs + dir) * H + j
                                : ((t * d.dirs + dir) * d.batch + bi) * H + j;
          out[0].data<float>()[at] = static_cast<float>(h[j]);
        }
      }
      for (int64_t j = 0; j < H; ++j) {
        out[1].data<float>()[stateAt + j] = static_cast<float>(s.h[j]);
        if (isLSTM && out.size() > 2)
          out[2].data<float>()[stateAt + j] = static_cast<float>(s.c[j]);
      }
    }
  }
  return llvm::Error::success();
}

std::vector<AttrSpec> recurrentAttrs(OpKind kind) {
  std::vector<AttrSpec> attrs{
      {"clip", AttrKind::Float, std::nullopt, false, {AttrDomain::Kind::Finite}},
      enumAttr("direction", "forward", {"forward", "reverse", "bidirectional"}),
      {"hidden_size", AttrKind::Int, std::nullopt},
      flagAttr("layout", 0)};
  for (unsigned i = 0; i < recurrentActivationCount(kind); ++i)
    attrs.push_back({kRecurrentActivationAttrs[i], AttrKind::Activation,
                     Attr::ofActivation(defaultRecurrentActivation(kind, i))});
  if (kind == OpKind::GRU)
    attrs.push_back(flagAttr("linear_before_reset", 0));
  if (kind == OpKind::LSTM) {
    attrs.push_back(flagAttr("input_forget", 0));
    // TFLite's cell_clip: the cell state bounded to [-v, v] after each
    // update (ONNX has no such attribute; TFLite's importer sets it).
    attrs.push_back({"kiln.cell_clip", AttrKind::Float, std::nullopt, false,
                     {AttrDomain::Kind::Finite}});
    // Y's quantization in the int8 form.
    attrs.push_back(quantAttrSpec());
  }
  return attrs;
}

} // namespace

void registerRecurrentOps(std::vector<OpDef> &defs) {
  defs.push_back({OpKind::RNN, "RNN", 3, 6, 1, 2, recurrentAttrs(OpKind::RNN),
                  inferRecurrent, evalRecurrent});
  defs.push_back({OpKind::GRU, "GRU", 3, 6, 1, 2, recurrentAttrs(OpKind::GRU),
                  inferRecurrent, evalRecurrent});
  defs.push_back({OpKind::LSTM, "LSTM", 3, 8, 1, 3,
                  recurrentAttrs(OpKind::LSTM), inferRecurrent,
                  evalRecurrent});
  // Lowering unrolls the float LSTM into MatMuls and elementwise ops; the
  // int8 one (IntegerLSTM.h) is a kernel of its own.
  defs.back().kernel = KernelFamily::Recurrent;
  defs.back().traits |= kInt8KernelTrait;
}

} // namespace kiln
