//===- CompositeAdapters.cpp - ONNX ops imported as their formulas --------===//
//
// Ops whose definition is a short formula over ops kiln has, imported as
// that formula: BatchNormalization in training mode (normalizing with the
// batch's own statistics and updating the running ones, a deterministic
// function of its inputs) and DynamicQuantizeLinear (the u8 quantization
// whose scale and zero point come from the data's range). Each follows the
// ONNX specification's formula (BatchNormalization-15,
// DynamicQuantizeLinear-11).
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/onnx/AdapterUtils.h"

#include "compiler/ops/OpHelpers.h"

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

} // namespace kiln
