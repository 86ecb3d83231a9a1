#include "compiler/quantize/QDQInsertion.h"

#include "compiler/graph/AxisIndex.h"
#include "compiler/graph/Rewrite.h"
#include "compiler/ops/ActivationOps.h"
#include "compiler/ops/OpViews.h"
#include "compiler/passes/QDQGroups.h"

#include <algorithm>
#include <cmath>

namespace kiln {
namespace {

llvm::Error quantizeError(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

/// Whether the only use of `v` is a clamp that its producer's int8 form
/// takes fused, so that the clamp's result is the group's.
bool feedsFusedClamp(const Graph &g, const Value &v) {
  if (!v.isResult() || !takesFusedClamp(*v.getProducer()))
    return false;
  std::vector<Node *> users = g.getUsers(&v);
  if (users.size() != 1 || !hasSingleUser(g, &v, users[0]))
    return false;
  std::optional<Activation> a = activationOf(*users[0]);
  return a && isFusableClamp(*a);
}

bool isQuantizedAlready(const Node &n) {
  return n.is(OpKind::QuantizeLinear) || n.is(OpKind::DequantizeLinear) ||
         llvm::any_of(n.getOutputs(), [](const Value *v) {
           return v->getType().quant.isQuantized();
         });
}

/// The output-channel axis of `n`'s weights (input 1), if `n` has constant
/// f32 weights quantized per channel.
std::optional<int64_t> weightChannelAxis(const Node &n) {
  const Tensor *w = constantF32(n.getInput(1));
  if (!w)
    return std::nullopt;
  if (n.is(OpKind::Conv))
    return 0;
  if (n.is(OpKind::Gemm))
    return GemmView(n).transB() ? 0 : 1;
  if (n.is(OpKind::MatMul) && w->getType().rank() == 2)
    return 1;
  return std::nullopt;
}

Tensor scalarI8(int8_t v) { return Tensor::fromValues<int8_t>(DType::I8, {}, {v}); }

/// Weights quantized symmetric per output channel: int8 values in
/// [-127, 127] and one scale (max|w| / 127) per channel.
struct PerChannelInt8 {
  Tensor values;
  std::vector<float> scales;
  int64_t axis;
  AxisIndex channelOf;

  float dequantized(int64_t i) const {
    return float(values.data<int8_t>()[i]) * scales[channelOf(i)];
  }
};

PerChannelInt8 quantizePerChannel(const Tensor &w, int64_t axis) {
  llvm::ArrayRef<int64_t> shape = w.getShape();
  PerChannelInt8 q{Tensor(TensorType(DType::I8, shape)),
                   std::vector<float>(shape[axis], 0.0f), axis,
                   AxisIndex(shape, axis)};
  llvm::ArrayRef<float> values = w.values<float>();
  for (int64_t i = 0; i < w.numElements(); ++i)
    q.scales[q.channelOf(i)] =
        std::max(q.scales[q.channelOf(i)], std::fabs(values[i]));
  for (float &s : q.scales)
    s = s > 0 ? s / 127 : 1.0f;
  for (int64_t i = 0; i < w.numElements(); ++i)
    q.values.data<int8_t>()[i] = int8_t(std::clamp<double>(
        std::nearbyint(values[i] / q.scales[q.channelOf(i)]), -127, 127));
  return q;
}

/// DequantizeLinear(int8 weights) for `q`, before `user`.
llvm::Expected<Value *> quantizedWeights(Graph &g, Node &user,
                                         const PerChannelInt8 &q) {
  int64_t channels = q.scales.size();
  std::string base = user.getName().str() + "/weights";
  Value *qv = g.addConstant(g.uniqueName(base + "_int8"), q.values);
  Value *sv = g.addConstant(g.uniqueName(base + "_scale"),
                            Tensor::fromValues<float>(DType::F32, {channels}, q.scales));
  Value *zv = g.addConstant(
      g.uniqueName(base + "_zero_point"),
      Tensor::fromValues<int8_t>(DType::I8, {channels},
                                 std::vector<int8_t>(channels, 0)));
  auto dq = addHelperNode(g, user, "weights_dequantize", OpKind::DequantizeLinear,
                          {qv, sv, zv}, {{"axis", Attr::ofInt(q.axis)}});
  if (!dq)
    return dq.takeError();
  return (*dq)->getOutput();
}

/// Per output channel of `n` (a Conv or Gemm), how much the rounding of its
/// weights `w` to `q` shifts the output's mean: sum over the weights of the
/// channel of (dequantized - float) x the mean of the input channel each
/// multiplies.
std::vector<double> meanShift(const Node &n, const Tensor &w,
                              const PerChannelInt8 &q,
                              llvm::ArrayRef<double> inputMeans) {
  std::vector<double> shift(q.scales.size(), 0.0);
  llvm::ArrayRef<int64_t> shape = w.getShape();
  llvm::ArrayRef<float> values = w.values<float>();
  for (int64_t i = 0; i < w.numElements(); ++i) {
    int64_t out = q.channelOf(i), in;
    if (n.is(OpKind::Conv)) {
      // [OC, IC / group, k...]: group g's outputs read its inputs.
      int64_t taps = q.channelOf.inner() / shape[1];
      int64_t perGroupOut = shape[0] / ConvView(n).group();
      in = out / perGroupOut * shape[1] + (i / taps) % shape[1];
    } else {
      // Gemm's B: [K, N], or [N, K] with transB.
      in = q.axis == 1 ? i / shape[1] : i % shape[1];
    }
    shift[out] += (double(q.dequantized(i)) - values[i]) * inputMeans[in];
  }
  return shift;
}

/// Gives `n` the bias that cancels `shift`: Conv's B or Gemm's C (of N
/// values; C scaled by alpha / beta), added where absent. Returns the node
/// now holding the op (a new one where the bias was added); unchanged where
/// the bias has another form (a Gemm's C of [M, N], beta = 0).
llvm::Expected<Node *> correctBias(Graph &g, Node &n,
                                   llvm::ArrayRef<double> shift) {
  int64_t channels = shift.size();
  double factor = 1.0;
  if (n.is(OpKind::Gemm)) {
    GemmView gemm(n);
    float beta = gemm.beta();
    if (beta == 0)
      return &n;
    factor = gemm.alpha() / beta;
  }
  Tensor bias = Tensor::fromValues<float>(DType::F32, {channels},
                                          std::vector<float>(channels, 0.0f));
  if (Value *old = n.getInput(2)) {
    const Tensor *b = constantF32(old);
    if (!b || b->numElements() != channels ||
        b->getShape().back() != channels)
      return &n;
    bias = b->reshaped({channels});
  }
  for (int64_t c = 0; c < channels; ++c)
    bias.data<float>()[c] -= float(shift[c] * factor);
  Value *corrected = g.addConstant(
      g.uniqueName(n.getName().str() + "/corrected_bias"),
      n.getInput(2) ? bias.reshaped(n.getInput(2)->getType().shape) : bias);
  llvm::SmallVector<Value *, 3> in(n.getInputs().begin(), n.getInputs().end());
  in.resize(3);
  in[2] = corrected;
  return rebuildNode(g, &n, in, n.getAttrs());
}

/// QuantizeLinear -> DequantizeLinear of `v` with `q`, read by all of `v`'s
/// uses.
llvm::Error insertPair(Graph &g, Value *v, const QuantParams &q) {
  std::vector<Node *> users = g.getUsers(v);
  Node *before = users.empty() ? nullptr : users.front();
  std::string base = v->getName().str();
  Value *scale = g.addConstant(g.uniqueName(base + "/scale"),
                               Tensor::fromValues<float>(DType::F32, {}, {q.scales[0]}));
  Value *zp = g.addConstant(g.uniqueName(base + "/zero_point"),
                            scalarI8(int8_t(q.zeroPoints[0])));
  auto quantize = g.addNode(OpKind::QuantizeLinear,
                            freshNodeName(g, base + "/quantize"), {v, scale, zp},
                            {}, before);
  if (!quantize)
    return quantize.takeError();
  auto dequantize = g.addNode(OpKind::DequantizeLinear,
                              freshNodeName(g, base + "/dequantize"),
                              {(*quantize)->getOutput(), scale, zp}, {}, before);
  if (!dequantize)
    return dequantize.takeError();
  g.replaceAllUsesWith(v, (*dequantize)->getOutput());
  (*quantize)->setInput(0, v);
  return llvm::Error::success();
}

} // namespace

std::vector<std::string> quantizationPreparePipeline() {
  return {"constant-folding", "fold-batchnorm", "fold-pad-into-conv", "dce"};
}

llvm::Expected<std::vector<Value *>> quantizationPoints(const Graph &g) {
  std::vector<Value *> points;
  for (Value *in : g.getInputs())
    if (in->getType().dtype == DType::F32)
      points.push_back(in);
  for (Node *n : g.getNodes()) {
    if (isQuantizedAlready(*n))
      return quantizeError("node '" + n->getName() + "' (" + n->getOpName() +
                           ") is quantized already; --quantize takes a float "
                           "model");
    if (isQuantMove(*n))
      continue;
    for (Value *r : n->getOutputs())
      if (r->getType().dtype == DType::F32 && !feedsFusedClamp(g, *r))
        points.push_back(r);
  }
  bool anyWeights = llvm::any_of(
      g.getNodes(), [](const Node *n) { return hasQuantizableWeights(*n); });
  if (points.empty() || !anyWeights)
    return quantizeError("the model has no float Conv, Gemm or MatMul with "
                         "constant weights to quantize");
  return std::move(points);
}

bool hasQuantizableWeights(const Node &n) {
  return weightChannelAxis(n).has_value();
}

std::vector<BiasCorrectionInput>
biasCorrectionInputs(const Graph &g, const llvm::StringSet<> &keepFloat) {
  std::vector<BiasCorrectionInput> inputs;
  for (const Node *n : g.getNodes())
    if ((n->is(OpKind::Conv) || n->is(OpKind::Gemm)) && weightChannelAxis(*n) &&
        !keepFloat.count(n->getName()))
      inputs.push_back({n, n->getInput(0),
                        n->is(OpKind::Gemm) && GemmView(*n).transA() ? 0 : 1});
  return inputs;
}

llvm::Error insertQDQ(Graph &g, const llvm::StringMap<QuantParams> &activations,
                      const WeightQuantization &weights) {
  llvm::SmallVector<Value *, 32> points;
  for (Value *in : g.getInputs())
    points.push_back(in);
  for (Node *n : g.getNodes())
    for (Value *r : n->getOutputs())
      points.push_back(r);
  for (Value *v : points) {
    auto it = activations.find(v->getName());
    if (it != activations.end())
      if (auto err = insertPair(g, v, it->second))
        return err;
  }
  for (Node *n : g.getNodes()) {
    std::optional<int64_t> axis = weightChannelAxis(*n);
    if (!axis || weights.keepFloat.count(n->getName()))
      continue;
    const Tensor &w = n->getInput(1)->getConstant();
    PerChannelInt8 q = quantizePerChannel(w, *axis);
    auto means = weights.inputChannelMeans.find(n->getName());
    if (means != weights.inputChannelMeans.end()) {
      auto corrected =
          correctBias(g, *n, meanShift(*n, w, q, means->second));
      if (!corrected)
        return corrected.takeError();
      n = *corrected;
    }
    auto dq = quantizedWeights(g, *n, q);
    if (!dq)
      return dq.takeError();
    n->setInput(1, *dq);
  }
  g.eraseUnusedConstants();
  return llvm::Error::success();
}

void makeIOInt8(Graph &g) {
  for (Value *in : g.getInputs()) {
    std::vector<Node *> users = g.getUsers(in);
    if (in->getType().dtype != DType::F32 || users.size() != 1 ||
        !users[0]->is(OpKind::QuantizeLinear) || g.isGraphOutput(in))
      continue;
    Node *q = users[0];
    in->setType(q->getOutput()->getType());
    g.replaceAllUsesWith(q->getOutput(), in);
    g.eraseNode(q);
  }
  for (const GraphOutput &o : g.getOutputs()) {
    Value *y = o.value;
    Node *dq = y->isResult() && y->getProducer()->is(OpKind::DequantizeLinear)
                   ? y->getProducer()
                   : nullptr;
    Value *raw = dq ? LinearQuantView(*dq).input() : nullptr;
    if (!raw || !raw->isResult() ||
        !raw->getProducer()->is(OpKind::QuantizeLinear))
      continue;
    // Nodes that read the dequantized value keep reading it.
    std::vector<Node *> users = g.getUsers(y);
    g.replaceAllUsesWith(y, raw);
    for (Node *u : users)
      for (unsigned i = 0; i < u->getNumInputs(); ++i)
        if (u->getInput(i) == raw)
          u->setInput(i, y);
    if (!g.hasUses(y))
      g.eraseNode(dq);
  }
}

} // namespace kiln
