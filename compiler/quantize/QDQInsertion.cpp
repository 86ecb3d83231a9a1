#include "compiler/quantize/QDQInsertion.h"

#include "compiler/graph/Rewrite.h"
#include "compiler/ops/ActivationOps.h"
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
    return n.getInt("transB") ? 0 : 1;
  if (n.is(OpKind::MatMul) && w->getType().rank() == 2)
    return 1;
  return std::nullopt;
}

Tensor scalarI8(int8_t v) { return Tensor::fromValues<int8_t>(DType::I8, {}, {v}); }

/// DequantizeLinear(int8 weights) for the f32 weights `w`, per channel
/// along `axis`, before `user`.
llvm::Expected<Value *> quantizedWeights(Graph &g, Node &user, const Tensor &w,
                                         int64_t axis) {
  llvm::ArrayRef<int64_t> shape = w.getShape();
  int64_t channels = shape[axis], inner = 1;
  for (size_t d = axis + 1; d < shape.size(); ++d)
    inner *= shape[d];
  std::vector<float> scales(channels, 0.0f);
  auto channelOf = [&](int64_t i) { return (i / inner) % channels; };
  llvm::ArrayRef<float> values = w.values<float>();
  for (int64_t i = 0; i < w.numElements(); ++i)
    scales[channelOf(i)] = std::max(scales[channelOf(i)], std::fabs(values[i]));
  for (float &s : scales)
    s = s > 0 ? s / 127 : 1.0f;
  Tensor q(TensorType(DType::I8, shape));
  for (int64_t i = 0; i < w.numElements(); ++i)
    q.data<int8_t>()[i] = int8_t(std::clamp<double>(
        std::nearbyint(values[i] / scales[channelOf(i)]), -127, 127));
  std::string base = user.getName().str() + "/weights";
  Value *qv = g.addConstant(g.uniqueName(base + "_int8"), std::move(q));
  Value *sv = g.addConstant(g.uniqueName(base + "_scale"),
                            Tensor::fromValues<float>(DType::F32, {channels}, scales));
  Value *zv = g.addConstant(
      g.uniqueName(base + "_zero_point"),
      Tensor::fromValues<int8_t>(DType::I8, {channels},
                                 std::vector<int8_t>(channels, 0)));
  auto dq = addHelperNode(g, user, "weights_dequantize", OpKind::DequantizeLinear,
                          {qv, sv, zv}, {{"axis", Attr::ofInt(axis)}});
  if (!dq)
    return dq.takeError();
  return (*dq)->getOutput();
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

llvm::Error insertQDQ(Graph &g, const llvm::StringMap<QuantParams> &activations,
                      const llvm::StringSet<> &keepFloat) {
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
    if (!axis || keepFloat.count(n->getName()))
      continue;
    auto w = quantizedWeights(g, *n, n->getInput(1)->getConstant(), *axis);
    if (!w)
      return w.takeError();
    n->setInput(1, *w);
  }
  g.eraseUnusedConstants();
  return llvm::Error::success();
}

} // namespace kiln
