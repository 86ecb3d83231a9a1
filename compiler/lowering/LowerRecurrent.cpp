//===- LowerRecurrent.cpp - RNN, GRU, LSTM -> unrolled primitives ---------===//
//
// A recurrent layer becomes its recurrence unrolled over the (static)
// sequence: the input projection X W^T + Wb is one MatMul over all time
// steps; each step adds h R^T + Rb (a MatMul), applies the gates'
// activations (f, g and h: by default Sigmoid and Tanh) and combines them
// elementwise. With sequence lengths, a Where per step keeps an entry's
// state once its sequence has ended and zeroes its output. Layout 1 is
// transposed to layout 0 on the way in and back on the way out. The graph
// grows with the sequence length, which suits the short sequences of
// embedded models.
//
//===----------------------------------------------------------------------===//
#include "compiler/lowering/LowerRules.h"
#include "compiler/ops/ActivationOps.h"
#include "compiler/ops/IntegerLSTM.h"
#include "compiler/ops/OpViews.h"
#include "compiler/ops/RecurrentShape.h"
#include "compiler/graph/Rewrite.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

namespace kiln {
namespace {

/// Step results one Concat joins (Unroller::concat; one more for the last).
constexpr size_t kConcatGroup = 32;

class Unroller : public HelperNodeBuilder {
public:
  Unroller(Graph &g, Node &n, const RecurrentDims &d)
      : HelperNodeBuilder(g, n), n(n), d(d) {}

  /// v[start:end] along `axis`, every other axis whole.
  Value *slice(llvm::StringRef role, Value *v, int64_t axis, int64_t start,
               int64_t end) {
    if (!v)
      return nullptr;
    const TensorType &t = v->getType();
    Shape starts(t.rank(), 0), ends(t.shape.begin(), t.shape.end());
    starts[axis] = start;
    ends[axis] = end;
    return add(role, OpKind::Slice, {v}, sliceAttrs(starts, ends));
  }
  Value *reshape(llvm::StringRef role, Value *v, llvm::ArrayRef<int64_t> s) {
    return add(role, OpKind::Reshape, {v}, reshapeAttrs(s));
  }
  Value *transpose(llvm::StringRef role, Value *v,
                   llvm::ArrayRef<int64_t> perm) {
    return add(role, OpKind::Transpose, {v}, {{"perm", Attr::ofInts(perm)}});
  }
  /// Steps' results joined in groups of kConcatGroup first: one Concat of
  /// a thousand inputs is a kernel of a thousand copies in one straight
  /// line, over which LLVM's SLP vectorizer takes quadratic time (4 of a
  /// 1000-step GRU's 22 s of compiling). The groups' results become slices
  /// of the whole (ElideConcat: each starts a multiple of 32 steps in, so
  /// 64-byte aligned), so the same bytes are copied once. A last group of
  /// one step would be that step's Reshape, which ElideConcat does not
  /// take: the group before takes it.
  Value *concat(llvm::StringRef role, llvm::ArrayRef<Value *> vs,
                int64_t axis) {
    if (vs.size() == 1)
      return vs[0];
    if (vs.size() <= kConcatGroup + 1)
      return add(role, OpKind::Concat, vs, {{"axis", Attr::ofInt(axis)}});
    llvm::SmallVector<Value *, 32> groups;
    for (size_t i = 0; i < vs.size();) {
      size_t left = vs.size() - i;
      size_t size = left == kConcatGroup + 1 ? left : std::min(kConcatGroup, left);
      groups.push_back(concat(role, vs.slice(i, size), axis));
      i += size;
    }
    return concat(role, groups, axis);
  }
  Value *clip(Value *v) {
    std::optional<float> c = RecurrentView(n).clip();
    if (!c)
      return v;
    return add("clip", OpKind::Clip, {v},
               {{"min", Attr::ofFloat(-*c)}, {"max", Attr::ofFloat(*c)}});
  }
  /// Activation `slot` (0: f, 1: g, 2: h) on `v`, clipped first when
  /// `clipped` (the gates' inputs; not LSTM's cell state).
  Value *activate(unsigned slot, Value *v, bool clipped = true) {
    const Activation &a = recurrentActivation(n, slot);
    return add(a.getName().lower(), activationOpKind(a.getKind()), {clipped ? clip(v) : v},
               activationOpAttrs(a));
  }
  /// Direction `dir`'s slice of a [dirs, ...] parameter, without that axis.
  Value *perDirection(llvm::StringRef role, Value *v, int64_t dir) {
    if (!v)
      return nullptr;
    Shape rest(v->getType().shape.begin() + 1, v->getType().shape.end());
    return reshape(role, slice(role, v, 0, dir, dir + 1), rest);
  }

  /// Runs one direction; returns Y's [seq, 1, batch, hidden] part and the
  /// final states ([1, batch, hidden] each).
  struct Result {
    Value *y, *h, *c;
  };
  Result direction(int64_t dir, Value *x, Value *h0, Value *c0);

private:
  Node &n;
  const RecurrentDims &d;
};

Unroller::Result Unroller::direction(int64_t dir, Value *x, Value *h0,
                                     Value *c0) {
  int64_t H = d.hidden, G = d.gates, B = d.batch;
  bool isLSTM = n.is(OpKind::LSTM), isGRU = n.is(OpKind::GRU);
  bool linearBeforeReset = isGRU && GRUView(n).linearBeforeReset();
  bool reverse = d.direction == "reverse" || dir == 1;
  RecurrentView rnn(n);
  Value *wT = transpose("w_t", perDirection("w", rnn.w(), dir), {1, 0});
  Value *rT = transpose("r_t", perDirection("r", rnn.r(), dir), {1, 0});
  Value *bias = perDirection("b", rnn.b(), dir);
  Value *wb = bias ? slice("wb", bias, 0, 0, G * H) : nullptr;
  Value *rb = bias ? slice("rb", bias, 0, G * H, 2 * G * H) : nullptr;
  // GRU without linear_before_reset applies R_h to the reset state, so its
  // columns (and bias) go apart from z's and r's.
  bool splitR = isGRU && !linearBeforeReset;
  Value *rTh = splitR ? slice("r_t_h", rT, 1, 2 * H, 3 * H) : nullptr;
  Value *rbh = splitR && rb ? slice("rb_h", rb, 0, 2 * H, 3 * H) : nullptr;
  if (splitR) {
    rT = slice("r_t_zr", rT, 1, 0, 2 * H);
    rb = rb ? slice("rb_zr", rb, 0, 0, 2 * H) : nullptr;
  }
  // X W^T + Wb for all steps at once: [seq, batch, G*H].
  Value *xw = add("xw", OpKind::MatMul, {x, wT});
  if (wb)
    xw = add("xw_b", OpKind::Add, {xw, wb});
  Value *p = isLSTM ? perDirection("p", LSTMView(n).peepholes(), dir) : nullptr;
  Value *h = h0 ? reshape("h0", perDirection("h0", h0, dir), {B, H})
                : constant("h0", Tensor(TensorType(DType::F32, {B, H})));
  Value *c = nullptr;
  if (isLSTM)
    c = c0 ? reshape("c0", perDirection("c0", c0, dir), {B, H})
           : constant("c0", Tensor(TensorType(DType::F32, {B, H})));
  Value *lens = rnn.sequenceLens();
  Value *zeros = constant("zeros", Tensor(TensorType(DType::F32, {B, H})));
  llvm::SmallVector<Value *, 16> ys(d.seq, nullptr);
  for (int64_t step = 0; step < d.seq; ++step) {
    int64_t t = reverse ? d.seq - 1 - step : step;
    Value *xt = reshape("x_w", slice("x_w", xw, 0, t, t + 1), {B, G * H});
    Value *hr = add("h_r", OpKind::MatMul, {h, rT});
    if (rb)
      hr = add("h_r_b", OpKind::Add, {hr, rb});
    auto gate = [&](Value *v, int64_t k) {
      return slice("gate", v, 1, k * H, (k + 1) * H);
    };
    Value *newH, *newC = nullptr;
    if (isLSTM) {
      Value *pre = add("pre", OpKind::Add, {xt, hr});
      auto peep = [&](Value *v, int64_t k, Value *state) {
        if (!p)
          return v;
        return add("peep", OpKind::Add,
                   {v, add("peep_c", OpKind::Mul,
                           {slice("p_k", p, 0, k * H, (k + 1) * H), state})});
      };
      Value *i = activate(0, peep(gate(pre, 0), 0, c));
      Value *f = activate(0, peep(gate(pre, 2), 2, c));
      Value *cc = activate(1, gate(pre, 3));
      newC = add("c", OpKind::Add, {add("f_c", OpKind::Mul, {f, c}),
                                    add("i_cc", OpKind::Mul, {i, cc})});
      if (std::optional<float> bound = LSTMView(n).cellClip())
        newC = add("c_clip", OpKind::Clip, {newC},
                   {{"min", Attr::ofFloat(-*bound)}, {"max", Attr::ofFloat(*bound)}});
      Value *o = activate(0, peep(gate(pre, 1), 1, newC));
      newH = add("h", OpKind::Mul, {o, activate(2, newC, /*clipped=*/false)});
    } else if (isGRU) {
      Value *z = activate(0, add("z_pre", OpKind::Add, {gate(xt, 0), gate(hr, 0)}));
      Value *r = activate(0, add("r_pre", OpKind::Add, {gate(xt, 1), gate(hr, 1)}));
      Value *recurrent;
      if (linearBeforeReset) {
        recurrent = add("r_hr", OpKind::Mul, {r, gate(hr, 2)});
      } else {
        recurrent = add("rh_r", OpKind::MatMul,
                        {add("r_h", OpKind::Mul, {r, h}), rTh});
        if (rbh)
          recurrent = add("rh_r_b", OpKind::Add, {recurrent, rbh});
      }
      Value *cand = activate(1, add("cand_pre", OpKind::Add, {gate(xt, 2), recurrent}));
      // (1 - z) * cand + z * h = cand + z * (h - cand).
      newH = add("h", OpKind::Add,
                 {cand, add("z_d", OpKind::Mul,
                            {z, add("d", OpKind::Sub, {h, cand})})});
    } else {
      newH = activate(0, add("pre", OpKind::Add, {xt, hr}));
    }
    Value *y = newH;
    if (lens) {
      Tensor tt(TensorType(lens->getType().dtype, {}));
      tt.setFromDouble(0, double(t));
      Value *live = reshape("live", add("live", OpKind::Less,
                                        {constant("t", std::move(tt)), lens}),
                            {B, 1});
      y = add("y_masked", OpKind::Where, {live, newH, zeros});
      newH = add("h_kept", OpKind::Where, {live, newH, h});
      if (newC)
        newC = add("c_kept", OpKind::Where, {live, newC, c});
    }
    ys[t] = reshape("y_t", y, {1, 1, B, H});
    h = newH;
    if (newC)
      c = newC;
  }
  return {concat("y", ys, 0), reshape("h_n", h, {1, B, H}),
          isLSTM ? reshape("c_n", c, {1, B, H}) : nullptr};
}

} // namespace

llvm::Expected<bool> lowerRecurrent(Graph &g, Node *n) {
  // The int8 LSTM is a kernel of its own (IntegerLSTM.h).
  if (isInt8LSTM(*n))
    return false;
  auto dims = recurrentDims(*n);
  if (!dims)
    return dims.takeError();
  RecurrentDims d = *dims;
  uint64_t maxSteps = g.getLimits().maxUnrolledSteps;
  if (uint64_t(d.seq) * uint64_t(d.dirs) > maxSteps)
    return nodeError(*n, llvm::formatv("{0} time steps x {1} directions to unroll, over the "
                                       "limit of {2} (--max-unrolled-steps)",
                                       d.seq, d.dirs, maxSteps));
  RecurrentView rnn(*n);
  if (rnn.sequenceLens() && d.direction != "forward")
    return nodeError(*n, "sequence_lens is supported for the forward "
                         "direction only");
  Unroller u(g, *n, d);
  Value *x = rnn.x(), *h0 = rnn.initialH();
  Value *c0 = n->is(OpKind::LSTM) ? LSTMView(*n).initialC() : nullptr;
  if (d.layout) {
    x = u.transpose("x", x, {1, 0, 2});
    h0 = h0 ? u.transpose("h0", h0, {1, 0, 2}) : nullptr;
    c0 = c0 ? u.transpose("c0", c0, {1, 0, 2}) : nullptr;
  }
  llvm::SmallVector<Value *, 2> ys, hs, cs;
  for (int64_t dir = 0; dir < d.dirs; ++dir) {
    auto r = u.direction(dir, x, h0, c0);
    ys.push_back(r.y);
    hs.push_back(r.h);
    cs.push_back(r.c);
  }
  bool isLSTM = n->is(OpKind::LSTM);
  Value *results[] = {u.concat("y", ys, 1), u.concat("h", hs, 0),
                      isLSTM ? u.concat("c", cs, 0) : nullptr};
  if (d.layout) {
    results[0] = u.transpose("y", results[0], {2, 0, 1, 3});
    results[1] = u.transpose("h", results[1], {1, 0, 2});
    if (isLSTM)
      results[2] = u.transpose("c", results[2], {1, 0, 2});
  }
  return u.replaceOrigin(results);
}

} // namespace kiln
