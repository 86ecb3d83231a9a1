//===- CompositeAdapters.cpp - ONNX ops imported as their formulas --------===//
//
// Ops whose definition is a short formula over ops kiln has, imported as
// that formula: BatchNormalization in training mode (normalizing with the
// batch's own statistics and updating the running ones, a deterministic
// function of its inputs), DynamicQuantizeLinear (the u8 quantization whose
// scale and zero point come from the data's range), Gelu, GroupNormalization,
// and Clip and Trilu when a bound or k is computed at run time. Each follows
// the ONNX specification's formula (BatchNormalization-15,
// DynamicQuantizeLinear-11, Gelu-20, GroupNormalization-18 and 21, Clip-13,
// Trilu-14).
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/onnx/AdapterUtils.h"

#include "compiler/ops/OnnxDTypes.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>

namespace kiln {
namespace {

llvm::Expected<float> floatAttr(const PendingNode &n, llvm::StringRef name,
                                float dflt) {
  auto it = n.attrs.find(name);
  if (it == n.attrs.end())
    return dflt;
  if (it->second.getKind() != AttrKind::Float)
    return n.error("attribute '" + name + "' must be a float");
  return it->second.getFloat();
}

} // namespace

llvm::Expected<ValueList> emitTrainingBatchNorm(NodeEmitter &e,
                                                PendingNode &n) {
  if (n.inputs.size() != 5 || llvm::is_contained(n.inputs, nullptr))
    return n.error("expects 5 inputs");
  for (Value *v : n.inputs)
    if (v->getType().dtype != DType::F32)
      return n.error("training mode supports f32 only, got " +
                     v->getType().str());
  const TensorType &xt = n.inputs[0]->getType();
  int64_t rank = xt.rank();
  if (rank < 2)
    return n.error("input must be N x C x ..., got " + xt.str());
  auto epsilon = floatAttr(n, "epsilon", 1e-5f);
  if (!epsilon)
    return epsilon.takeError();
  auto momentum = floatAttr(n, "momentum", 0.9f);
  if (!momentum)
    return momentum.takeError();
  Shape axes{0}, perChannel(rank - 1, 1);
  for (int64_t d = 2; d < rank; ++d)
    axes.push_back(d);
  perChannel[0] = xt.shape[1];
  AttrMap channelShape{{"shape", Attr::ofInts(perChannel)}};
  Formula f(e, n);
  Value *x = n.inputs[0];
  Value *mean = f.reduce("mean", OpKind::ReduceMean, x, axes, true);
  Value *centered = f.add("centered", OpKind::Sub, {x, mean});
  Value *var = f.reduce("var", OpKind::ReduceMean,
                        f.add("sq", OpKind::Mul, {centered, centered}), axes,
                        true);
  Value *stddev = f.add("stddev", OpKind::Sqrt,
                        {f.add("var_eps", OpKind::Add,
                               {var, f.scalar("epsilon", *epsilon)})});
  Value *scale = f.add("scale", OpKind::Reshape, {n.inputs[1]}, channelShape);
  Value *bias = f.add("bias", OpKind::Reshape, {n.inputs[2]}, channelShape);
  Value *y = f.add(
      "y", OpKind::Add,
      {f.add("scaled", OpKind::Mul,
             {f.add("normalized", OpKind::Div, {centered, stddev}), scale}),
       bias},
      {}, n.outputs.empty() ? "" : n.outputs[0]);
  ValueList results{y};
  // running = input * momentum + current * (1 - momentum).
  Value *keep = f.scalar("momentum", *momentum);
  Value *take = f.scalar("one_minus_momentum", 1.0f - *momentum);
  Value *current[] = {mean, var};
  for (unsigned i = 0; i < 2 && i + 1 < n.outputs.size(); ++i) {
    Value *flat = f.add(i ? "current_var" : "current_mean", OpKind::Reshape,
                        {current[i]}, {{"shape", Attr::ofInts({xt.shape[1]})}});
    results.push_back(f.add(
        i ? "running_var" : "running_mean", OpKind::Add,
        {f.add("kept", OpKind::Mul, {n.inputs[3 + i], keep}),
         f.add("taken", OpKind::Mul, {flat, take})},
        {}, n.outputs[i + 1]));
  }
  if (llvm::Error err = f.takeError())
    return std::move(err);
  return results;
}

llvm::Expected<ValueList> emitDynamicQuantizeLinear(NodeEmitter &e,
                                                    PendingNode &n) {
  if (n.inputs.size() != 1 || !n.inputs[0] ||
      n.inputs[0]->getType().dtype != DType::F32)
    return n.error("expects one f32 input");
  Value *x = n.inputs[0];
  Shape all;
  for (size_t d = 0; d < x->getType().rank(); ++d)
    all.push_back(d);
  auto name = [&](unsigned i) {
    return i < n.outputs.size() ? n.outputs[i] : std::string();
  };
  Formula f(e, n);
  Value *zero = f.scalar("zero", 0.0f);
  // The range always includes 0, so that 0 is exactly representable.
  Value *lo = f.add("min", OpKind::Min,
                    {f.reduce("data_min", OpKind::ReduceMin, x, all, false),
                     zero});
  Value *hi = f.add("max", OpKind::Max,
                    {f.reduce("data_max", OpKind::ReduceMax, x, all, false),
                     zero});
  Value *scale = f.add("scale", OpKind::Div,
                       {f.add("range", OpKind::Sub, {hi, lo}),
                        f.scalar("qmax", 255.0f)},
                       {}, name(1));
  Value *zp = f.add(
      "zero_point", OpKind::Cast,
      {f.add("zp_clipped", OpKind::Clip,
             {f.add("zp_rounded", OpKind::Round,
                    {f.add("zp", OpKind::Sub,
                           {zero, f.add("min_scaled", OpKind::Div,
                                        {lo, scale})})})},
             {{"min", Attr::ofFloat(0.0f)}, {"max", Attr::ofFloat(255.0f)}})},
      {{"to", Attr::ofInt(onnxFromDType(DType::U8))}}, name(2));
  Value *y = f.add("quantized", OpKind::QuantizeLinear, {x, scale, zp},
                   {{"axis", Attr::ofInt(1)}}, name(0));
  if (llvm::Error err = f.takeError())
    return std::move(err);
  return ValueList{y, scale, zp};
}

llvm::Expected<ValueList> emitClipOfRuntimeBounds(NodeEmitter &e,
                                                  PendingNode &n) {
  if (!n.getInput(0))
    return n.error("input 0 (input) is missing");
  for (unsigned i : {1u, 2u})
    if (Value *bound = n.getInput(i);
        bound && bound->getType().numElements() != 1)
      return n.error(llvm::formatv("input {0} ({1}) must hold one value, got {2}",
                                   i, i == 1 ? "min" : "max",
                                   bound->getType().str()));
  // ONNX's Clip is min(max(x, lo), hi): hi wins where lo > hi.
  Formula f(e, n);
  Value *lo = n.getInput(1), *hi = n.getInput(2);
  Value *y = n.inputs[0];
  if (lo)
    y = f.add("at_least_min", OpKind::Max, {y, lo}, {},
              hi ? "" : n.getOutputName(0));
  if (hi)
    y = f.add("at_most_max", OpKind::Min, {y, hi}, {}, n.getOutputName(0));
  if (llvm::Error err = f.takeError())
    return std::move(err);
  return ValueList{y};
}

llvm::Expected<ValueList> emitTriluOfRuntimeK(NodeEmitter &e, PendingNode &n) {
  Value *x = n.getInput(0), *k = n.getInput(1);
  if (!x || !k)
    return n.error("expects inputs input and k");
  if (k->getType().numElements() != 1 || k->getType().dtype != DType::I64)
    return n.error("input 1 (k) must be one int64 value, got " +
                   k->getType().str());
  const TensorType &xt = x->getType();
  if (xt.rank() < 2)
    return n.error("input must have rank 2 or more, got " + xt.str());
  auto upper = intAttr(n, "upper", 1);
  if (!upper)
    return upper.takeError();
  if (*upper != 0 && *upper != 1)
    return n.error(llvm::formatv("attribute 'upper' must be 0 or 1, got {0}",
                                 *upper));
  // Element (i, j) of the last two dimensions is kept where j - i >= k
  // (upper) or j - i <= k (lower).
  int64_t rows = xt.shape[xt.rank() - 2], cols = xt.shape[xt.rank() - 1];
  Tensor diagonal(TensorType(DType::I64, {rows, cols}));
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      diagonal.data<int64_t>()[i * cols + j] = j - i;
  Formula f(e, n);
  Value *keep = f.add("keep", *upper ? OpKind::GreaterOrEqual : OpKind::LessOrEqual,
                      {f.constant("diagonal", std::move(diagonal)), k});
  Value *y = f.add("y", OpKind::Where,
                   {keep, x, f.constant("zero", Tensor(TensorType(xt.dtype, {})))},
                   {}, n.getOutputName(0));
  if (llvm::Error err = f.takeError())
    return std::move(err);
  return ValueList{y};
}

llvm::Expected<ValueList> emitGelu(NodeEmitter &e, PendingNode &n) {
  Value *x = n.getInput(0);
  if (!x || n.inputs.size() != 1)
    return n.error("expects one input");
  auto it = n.attrs.find("approximate");
  llvm::StringRef approximate =
      it == n.attrs.end() || it->second.getKind() != AttrKind::String ? "none"
                                                                       : it->second.getString();
  if (approximate != "none" && approximate != "tanh")
    return n.error("attribute 'approximate' must be \"none\" or \"tanh\"");
  Formula f(e, n);
  // x * (1 + erf(x / sqrt(2))) * 0.5, as PyTorch exports it before opset 20
  // and fuse-activation matches it; or tanh's form,
  // x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 x^3))) * 0.5.
  Value *curve;
  if (approximate == "none") {
    curve = f.add("erf", OpKind::Erf,
                  {f.add("scaled", OpKind::Div, {x, f.scalar("sqrt2", std::sqrt(2.0f))})});
  } else {
    Value *cube = f.add("cube", OpKind::Mul, {f.add("square", OpKind::Mul, {x, x}), x});
    Value *inner = f.add("inner", OpKind::Add,
                         {x, f.add("cubic", OpKind::Mul, {cube, f.scalar("c", 0.044715f)})});
    curve = f.add("tanh", OpKind::Tanh,
                  {f.add("scaled", OpKind::Mul,
                         {inner, f.scalar("sqrt_2_over_pi", 0.7978845608028654f)})});
  }
  Value *product =
      f.add("product", OpKind::Mul, {x, f.add("one_plus", OpKind::Add, {curve, f.scalar("one", 1)})});
  Value *y = f.add("y", OpKind::Mul, {product, f.scalar("half", 0.5f)}, {}, n.getOutputName(0));
  if (llvm::Error err = f.takeError())
    return std::move(err);
  return ValueList{y};
}

llvm::Expected<ValueList> emitGroupNormalization(NodeEmitter &e, PendingNode &n) {
  if (n.inputs.size() != 3 || llvm::is_contained(n.inputs, nullptr))
    return n.error("expects 3 inputs");
  Value *x = n.inputs[0], *scale = n.inputs[1], *bias = n.inputs[2];
  const TensorType &xt = x->getType();
  auto groups = intAttr(n, "num_groups", 0);
  if (!groups)
    return groups.takeError();
  auto epsilon = floatAttr(n, "epsilon", 1e-5f);
  if (!epsilon)
    return epsilon.takeError();
  const int64_t rank = xt.rank(), G = *groups;
  if (xt.dtype != DType::F32 || rank < 2)
    return n.error("input must be f32 N x C x ..., got " + xt.str());
  const int64_t N = xt.shape[0], C = xt.shape[1];
  if (G < 1 || C % G != 0)
    return n.error(llvm::formatv("num_groups {0} does not divide the {1} channels", G, C));
  // GroupNormalization-18 has a scale and a bias per group; 21 per channel.
  const int64_t params = e.getOpset() < 21 ? G : C;
  for (Value *v : {scale, bias})
    if (v->getType().shape != Shape{params})
      return n.error(llvm::formatv("scale and bias must be [{0}], got {1}", params,
                                   v->getType().str()));
  Formula f(e, n);
  // Each group of each image normalized as one row (the LayerNorm formula,
  // which fuse-layer-norm makes one kernel), then scaled per channel.
  int64_t row = C / G;
  for (int64_t d = 2; d < rank; ++d)
    row *= xt.shape[d];
  Value *rows = f.add("rows", OpKind::Reshape, {x}, {{"shape", Attr::ofInts({N, G, row})}});
  Value *centered =
      f.add("centered", OpKind::Sub, {rows, f.reduce("mean", OpKind::ReduceMean, rows, {2}, true)});
  Value *var = f.reduce("var", OpKind::ReduceMean,
                        f.add("square", OpKind::Mul, {centered, centered}), {2}, true);
  Value *normalized = f.add(
      "normalized", OpKind::Div,
      {centered, f.add("stddev", OpKind::Sqrt,
                       {f.add("var_eps", OpKind::Add, {var, f.scalar("epsilon", *epsilon)})})});
  Shape perChannel(rank - 1, 1);
  perChannel[0] = C;
  auto channelwise = [&](llvm::StringRef role, Value *v) {
    if (params == G)
      v = f.add((role + "_channels").str(), OpKind::Expand,
                {f.add((role + "_groups").str(), OpKind::Reshape, {v},
                       {{"shape", Attr::ofInts({G, 1})}})},
                {{"shape", Attr::ofInts({G, C / G})}});
    return f.add(role, OpKind::Reshape, {v}, {{"shape", Attr::ofInts(perChannel)}});
  };
  Value *y = f.add(
      "y", OpKind::Add,
      {f.add("scaled", OpKind::Mul,
             {f.add("unrows", OpKind::Reshape, {normalized}, {{"shape", Attr::ofInts(xt.shape)}}),
              channelwise("scale", scale)}),
       channelwise("bias", bias)},
      {}, n.getOutputName(0));
  if (llvm::Error err = f.takeError())
    return std::move(err);
  return ValueList{y};
}

} // namespace kiln
