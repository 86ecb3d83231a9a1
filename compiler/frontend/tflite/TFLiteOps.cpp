#include "compiler/frontend/tflite/TFLiteOps.h"

#include "compiler/ops/ActivationOps.h"
#include "compiler/ops/Int8Eval.h"
#include "compiler/ops/QuantizedTypes.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <cstring>

namespace kiln {
namespace tflite_import {

llvm::Expected<Value *> OpContext::input(unsigned i) const {
  if (i >= inputs.size() || !inputs[i])
    return error(llvm::formatv("input {0} is missing", i));
  return inputs[i];
}

llvm::Expected<const Tensor *> OpContext::constantInput(unsigned i) const {
  auto v = input(i);
  if (!v)
    return v.takeError();
  if (!(*v)->isConstant())
    return error(llvm::formatv("input {0} ('{1}') must be constant", i,
                               (*v)->getName()));
  return &(*v)->getConstant();
}

llvm::Expected<Value *> OpContext::add(OpKind kind, llvm::ArrayRef<Value *> in,
                                       AttrMap attrs, llvm::StringRef suffix) {
  auto n = g.addNode(kind,
                     g.uniqueName(suffix.empty() ? name : name + "/" + suffix.str()),
                     in, std::move(attrs));
  if (!n)
    return n.takeError();
  return (*n)->getOutput();
}

namespace {

constexpr int64_t kToNCHW[] = {0, 3, 1, 2};
constexpr int64_t kToNHWC[] = {0, 2, 3, 1};

bool isInt8(const Value *v) { return v->getType().dtype == DType::I8; }

/// The attributes every op producing TFLite output 0 carries: its
/// quantization where the output is int8.
AttrMap resultAttrs(const OpContext &ctx) {
  AttrMap attrs;
  if (ctx.outputTypes[0].quant.isQuantized())
    attrs.emplace(kQuantAttr, Attr::ofQuant(ctx.outputTypes[0].quant));
  return attrs;
}

/// `t` with its axes permuted (output axis j is input axis perm[j]); a
/// per-channel axis moves with its dimension.
Tensor permuted(const Tensor &t, llvm::ArrayRef<int64_t> perm) {
  TensorType type = t.getType();
  Shape inShape = type.shape;
  for (size_t j = 0; j < perm.size(); ++j)
    type.shape[j] = inShape[perm[j]];
  if (type.quant.isPerChannel())
    for (size_t j = 0; j < perm.size(); ++j)
      if (perm[j] == type.quant.axis) {
        type.quant.axis = j;
        break;
      }
  Tensor out(type);
  size_t rank = perm.size(), elem = dtypeSize(type.dtype);
  Shape inStrides(rank, 1);
  for (int64_t d = int64_t(rank) - 2; d >= 0; --d)
    inStrides[d] = inStrides[d + 1] * inShape[d + 1];
  Shape idx(rank, 0);
  for (int64_t i = 0, e = out.numElements(); i < e; ++i) {
    int64_t src = 0;
    for (size_t j = 0; j < rank; ++j)
      src += idx[j] * inStrides[perm[j]];
    std::memcpy(out.rawData() + i * elem, t.rawData() + src * elem, elem);
    for (int64_t j = int64_t(rank) - 1; j >= 0; --j) {
      if (++idx[j] < type.shape[j])
        break;
      idx[j] = 0;
    }
  }
  return out;
}

llvm::Expected<Value *> transposed(OpContext &ctx, Value *v,
                                   llvm::ArrayRef<int64_t> perm,
                                   llvm::StringRef suffix) {
  return ctx.add(OpKind::Transpose, {v}, {{"perm", Attr::ofInts(perm)}}, suffix);
}

/// The fused activation as a kiln activation; none for NONE.
llvm::Expected<Activation>
fusedActivation(const OpContext &ctx, tflite::ActivationFunctionType f) {
  switch (f) {
  case tflite::ActivationFunctionType_NONE: return Activation();
  case tflite::ActivationFunctionType_RELU:
    return *Activation::make(ActivationKind::Relu);
  case tflite::ActivationFunctionType_RELU6:
    return *Activation::make(ActivationKind::Clip, {0.0f, 6.0f});
  case tflite::ActivationFunctionType_RELU_N1_TO_1:
    return *Activation::make(ActivationKind::Clip, {-1.0f, 1.0f});
  case tflite::ActivationFunctionType_TANH:
    return *Activation::make(ActivationKind::Tanh);
  default:
    // EnumName is empty for a value outside the schema's enum.
    llvm::StringRef name = tflite::EnumNameActivationFunctionType(f);
    if (name.empty())
      return ctx.error(llvm::formatv("fused activation {0} is not a TFLite activation",
                                     int(f)));
    return ctx.error("fused activation " + name + " is not supported");
  }
}

/// Puts the fused activation `f` on the node's attributes where the op
/// takes one (`fuses`), or after `v` as its own node (float only: an int8
/// op clamps inside its requantization).
llvm::Expected<Value *> withActivation(OpContext &ctx,
                                       tflite::ActivationFunctionType f,
                                       OpKind kind, llvm::ArrayRef<Value *> in,
                                       AttrMap attrs, bool fuses) {
  auto act = fusedActivation(ctx, f);
  if (!act)
    return act.takeError();
  if (!act->isNone() && fuses) {
    attrs.emplace(kActivationAttr, Attr::ofActivation(*act));
    return ctx.add(kind, in, std::move(attrs));
  }
  if (act->isNone())
    return ctx.add(kind, in, std::move(attrs));
  if (ctx.outputTypes[0].dtype == DType::I8)
    return ctx.error("a fused activation on this int8 op is not supported");
  auto v = ctx.add(kind, in, std::move(attrs), "pre_activation");
  if (!v)
    return v.takeError();
  return ctx.add(activationOpKind(act->getKind()), {*v},
                 activationOpAttrs(*act));
}

/// TFLite's SAME padding for one spatial dimension: the output is
/// ceil(in / stride), and an odd total puts the extra row at the end.
std::pair<int64_t, int64_t> samePads(int64_t in, int64_t k, int64_t stride,
                                     int64_t dilation) {
  int64_t out = (in + stride - 1) / stride;
  int64_t total = std::max<int64_t>((out - 1) * stride + (k - 1) * dilation + 1 - in, 0);
  return {total / 2, total - total / 2};
}

struct Window {
  int64_t kh, kw, sh, sw, dh = 1, dw = 1;
  tflite::Padding padding;
};

/// Conv/pool attributes for an NCHW input of shape `nhwc` (N,H,W,C).
llvm::Expected<AttrMap> windowAttrs(const OpContext &ctx, const Shape &nhwc,
                                    const Window &w) {
  if (w.padding != tflite::Padding_SAME && w.padding != tflite::Padding_VALID)
    return ctx.error(llvm::formatv("padding {0} is neither SAME nor VALID", int(w.padding)));
  if (w.sh < 1 || w.sw < 1 || w.dh < 1 || w.dw < 1 || w.kh < 1 || w.kw < 1)
    return ctx.error(llvm::formatv("window {0}x{1}, strides {2}x{3} and "
                                   "dilations {4}x{5} must be positive",
                                   w.kh, w.kw, w.sh, w.sw, w.dh, w.dw));
  if (nhwc.size() != 4)
    return ctx.error("input must be 4-D (NHWC), got " + shapeStr(nhwc));
  std::pair<int64_t, int64_t> ph{0, 0}, pw{0, 0};
  if (w.padding == tflite::Padding_SAME) {
    ph = samePads(nhwc[1], w.kh, w.sh, w.dh);
    pw = samePads(nhwc[2], w.kw, w.sw, w.dw);
  }
  AttrMap attrs;
  attrs.emplace("kernel_shape", Attr::ofInts({w.kh, w.kw}));
  attrs.emplace("strides", Attr::ofInts({w.sh, w.sw}));
  attrs.emplace("pads", Attr::ofInts({ph.first, pw.first, ph.second, pw.second}));
  return attrs;
}

/// CONV_2D and DEPTHWISE_CONV_2D: NHWC -> Transpose -> Conv -> Transpose.
llvm::Error importConv(OpContext &ctx, bool depthwise) {
  auto x = ctx.input(0);
  auto w = ctx.constantInput(1);
  if (!x || !w)
    return x ? w.takeError() : x.takeError();
  const Shape &xs = (*x)->getType().shape;
  llvm::ArrayRef<int64_t> ws = (*w)->getShape();
  if (ws.size() != 4 || xs.size() != 4)
    return ctx.error("input and filter must be 4-D, got " + shapeStr(xs) +
                     " and " + shapeStr(ws));
  Window win;
  tflite::ActivationFunctionType act;
  int64_t group = 1;
  Tensor weights;
  if (depthwise) {
    const auto *o = ctx.op.builtin_options_as_DepthwiseConv2DOptions();
    if (!o)
      return ctx.error("DepthwiseConv2DOptions are missing");
    win = {ws[1], ws[2], o->stride_h(), o->stride_w(), o->dilation_h_factor(),
           o->dilation_w_factor(), o->padding()};
    act = o->fused_activation_function();
    // [1, KH, KW, C*M] -> [C*M, 1, KH, KW]: group C, output channel c*M+m
    // reads input channel c, as TFLite's depthwise does.
    if (ws[0] != 1 || xs[3] == 0 || ws[3] % xs[3] != 0)
      return ctx.error("depthwise filter " + shapeStr(ws) +
                       " does not fit input " + shapeStr(xs));
    group = xs[3];
    weights = permuted(**w, {3, 0, 1, 2});
  } else {
    const auto *o = ctx.op.builtin_options_as_Conv2DOptions();
    if (!o)
      return ctx.error("Conv2DOptions are missing");
    win = {ws[1], ws[2], o->stride_h(), o->stride_w(), o->dilation_h_factor(),
           o->dilation_w_factor(), o->padding()};
    act = o->fused_activation_function();
    // OHWI -> OIHW; an input with more channels than the filter is grouped.
    if (ws[3] == 0 || xs[3] % ws[3] != 0)
      return ctx.error("filter " + shapeStr(ws) + " does not fit input " +
                       shapeStr(xs));
    group = xs[3] / ws[3];
    weights = permuted(**w, {0, 3, 1, 2});
  }
  if ((*x)->getType().dtype == DType::F32 && weights.getDType() == DType::I8)
    weights = dequantizedTensor(weights);
  auto attrs = windowAttrs(ctx, xs, win);
  if (!attrs)
    return attrs.takeError();
  attrs->emplace("dilations", Attr::ofInts({win.dh, win.dw}));
  attrs->emplace("group", Attr::ofInt(group));
  for (auto &kv : resultAttrs(ctx))
    attrs->insert(kv);
  auto xt = transposed(ctx, *x, kToNCHW, "nchw");
  if (!xt)
    return xt.takeError();
  Value *wv = ctx.g.addConstant(ctx.name + "/filter", std::move(weights));
  llvm::SmallVector<Value *, 3> in{*xt, wv};
  if (ctx.inputs.size() > 2 && ctx.inputs[2])
    in.push_back(ctx.inputs[2]);
  auto y = withActivation(ctx, act, OpKind::Conv, in, std::move(*attrs), true);
  if (!y)
    return y.takeError();
  auto out = transposed(ctx, *y, kToNHWC, "");
  return ctx.result(std::move(out));
}

llvm::Error importConv2D(OpContext &ctx) { return importConv(ctx, false); }
llvm::Error importDepthwiseConv2D(OpContext &ctx) { return importConv(ctx, true); }

/// FULLY_CONNECTED: the input flattened to [batch, in], then MatMul by the
/// transposed [in, out] weights, with the bias.
llvm::Error importFullyConnected(OpContext &ctx) {
  const auto *o = ctx.op.builtin_options_as_FullyConnectedOptions();
  if (o && o->weights_format() != tflite::FullyConnectedOptionsWeightsFormat_DEFAULT)
    return ctx.error("shuffled weights are not supported");
  auto x = ctx.input(0);
  auto w = ctx.constantInput(1);
  if (!x || !w)
    return x ? w.takeError() : x.takeError();
  llvm::ArrayRef<int64_t> ws = (*w)->getShape();
  const TensorType &xt = (*x)->getType();
  if (ws.size() != 2 || ws[1] == 0 || xt.numElements() % ws[1] != 0)
    return ctx.error("weights " + shapeStr(ws) + " do not fit input " + xt.str());
  int64_t batch = xt.numElements() / ws[1];
  Value *in = *x;
  if (xt.shape != Shape{batch, ws[1]}) {
    auto r = ctx.add(OpKind::Reshape, {in},
                     {{"shape", Attr::ofInts({batch, ws[1]})}}, "flatten");
    if (!r)
      return r.takeError();
    in = *r;
  }
  Tensor weights = permuted(**w, {1, 0});
  if (xt.dtype == DType::F32 && weights.getDType() == DType::I8)
    weights = dequantizedTensor(weights);
  Value *wt = ctx.g.addConstant(ctx.name + "/weights", std::move(weights));
  llvm::SmallVector<Value *, 3> ins{in, wt};
  if (ctx.inputs.size() > 2 && ctx.inputs[2])
    ins.push_back(ctx.inputs[2]);
  bool keepDims = o && o->keep_num_dims() && xt.rank() != 2;
  if (keepDims && xt.rank() == 0)
    return ctx.error("keep_num_dims needs an input of rank 1 or more, not " + xt.str());
  auto y = withActivation(ctx,
                          o ? o->fused_activation_function()
                            : tflite::ActivationFunctionType_NONE,
                          OpKind::MatMul, ins, resultAttrs(ctx), true);
  if (!y)
    return y.takeError();
  if (keepDims) {
    Shape s = xt.shape;
    s.back() = ws[0];
    y = ctx.add(OpKind::Reshape, {*y}, {{"shape", Attr::ofInts(s)}}, "unflatten");
    if (!y)
      return y.takeError();
  }
  ctx.results.push_back(*y);
  return llvm::Error::success();
}

llvm::Error importPool(OpContext &ctx, OpKind kind) {
  const auto *o = ctx.op.builtin_options_as_Pool2DOptions();
  if (!o)
    return ctx.error("Pool2DOptions are missing");
  auto x = ctx.input(0);
  if (!x)
    return x.takeError();
  Window win{o->filter_height(), o->filter_width(), o->stride_h(),
             o->stride_w(), 1, 1, o->padding()};
  auto attrs = windowAttrs(ctx, (*x)->getType().shape, win);
  if (!attrs)
    return attrs.takeError();
  // TFLite averages over the window's elements inside the input only.
  if (kind == OpKind::AveragePool)
    attrs->emplace("count_include_pad", Attr::ofInt(0));
  auto xt = transposed(ctx, *x, kToNCHW, "nchw");
  if (!xt)
    return xt.takeError();
  auto y = withActivation(ctx, o->fused_activation_function(), kind, {*xt},
                          std::move(*attrs), false);
  if (!y)
    return y.takeError();
  auto out = transposed(ctx, *y, kToNHWC, "");
  return ctx.result(std::move(out));
}

llvm::Error importAveragePool(OpContext &ctx) {
  return importPool(ctx, OpKind::AveragePool);
}
llvm::Error importMaxPool(OpContext &ctx) { return importPool(ctx, OpKind::MaxPool); }

/// ADD, SUB, MUL: numpy broadcasting, as kiln's.
llvm::Error importBinary(OpContext &ctx, OpKind kind,
                         tflite::ActivationFunctionType act) {
  auto a = ctx.input(0), b = ctx.input(1);
  if (!a || !b)
    return a ? b.takeError() : a.takeError();
  // An int8 op clamps inside its requantization; a float one is followed
  // by the activation, which the LIR's elementwise chains fuse.
  auto y = withActivation(ctx, act, kind, {*a, *b}, resultAttrs(ctx), isInt8(*a));
  return ctx.result(std::move(y));
}

llvm::Error importAdd(OpContext &ctx) {
  const auto *o = ctx.op.builtin_options_as_AddOptions();
  return importBinary(ctx, OpKind::Add,
                      o ? o->fused_activation_function()
                        : tflite::ActivationFunctionType_NONE);
}
llvm::Error importSub(OpContext &ctx) {
  const auto *o = ctx.op.builtin_options_as_SubOptions();
  return importBinary(ctx, OpKind::Sub,
                      o ? o->fused_activation_function()
                        : tflite::ActivationFunctionType_NONE);
}
llvm::Error importMul(OpContext &ctx) {
  const auto *o = ctx.op.builtin_options_as_MulOptions();
  return importBinary(ctx, OpKind::Mul,
                      o ? o->fused_activation_function()
                        : tflite::ActivationFunctionType_NONE);
}

/// The int32/int64 values of a constant input.
llvm::Expected<llvm::SmallVector<int64_t, 4>> intValues(const OpContext &ctx,
                                                        unsigned i) {
  auto t = ctx.constantInput(i);
  if (!t)
    return t.takeError();
  if ((*t)->getDType() != DType::I32 && (*t)->getDType() != DType::I64)
    return ctx.error(llvm::formatv("input {0} must be int32", i));
  llvm::SmallVector<int64_t, 4> out;
  for (int64_t k = 0, e = (*t)->numElements(); k < e; ++k)
    out.push_back((*t)->getAsInt(k));
  return out;
}

/// A Reshape to TFLite's declared output shape, after checking it against
/// the element count (RESHAPE, SQUEEZE).
llvm::Error reshapeToDeclared(OpContext &ctx) {
  auto x = ctx.input(0);
  if (!x)
    return x.takeError();
  const Shape &s = ctx.outputTypes[0].shape;
  if (TensorType(DType::F32, s).numElements() != (*x)->getType().numElements())
    return ctx.error("cannot reshape " + (*x)->getType().str() + " to " +
                     shapeStr(s));
  auto y = ctx.add(OpKind::Reshape, {*x}, {{"shape", Attr::ofInts(s)}});
  return ctx.result(std::move(y));
}

llvm::Error importReshape(OpContext &ctx) { return reshapeToDeclared(ctx); }
llvm::Error importSqueeze(OpContext &ctx) { return reshapeToDeclared(ctx); }

llvm::Error importTranspose(OpContext &ctx) {
  auto x = ctx.input(0);
  auto perm = intValues(ctx, 1);
  if (!x || !perm)
    return x ? perm.takeError() : x.takeError();
  auto y = transposed(ctx, *x, *perm, "");
  return ctx.result(std::move(y));
}

llvm::Error importMean(OpContext &ctx) {
  const auto *o = ctx.op.builtin_options_as_ReducerOptions();
  auto x = ctx.input(0);
  auto axes = intValues(ctx, 1);
  if (!x || !axes)
    return x ? axes.takeError() : x.takeError();
  AttrMap attrs = resultAttrs(ctx);
  attrs.emplace("axes", Attr::ofInts(*axes));
  attrs.emplace("keepdims", Attr::ofInt(o && o->keep_dims() ? 1 : 0));
  auto y = ctx.add(OpKind::ReduceMean, {*x}, std::move(attrs));
  return ctx.result(std::move(y));
}

llvm::Error importConcatenation(OpContext &ctx) {
  const auto *o = ctx.op.builtin_options_as_ConcatenationOptions();
  if (!o)
    return ctx.error("ConcatenationOptions are missing");
  llvm::SmallVector<Value *, 4> in;
  for (unsigned i = 0; i < ctx.inputs.size(); ++i) {
    auto v = ctx.input(i);
    if (!v)
      return v.takeError();
    // An int8 input quantized otherwise than the result is requantized
    // first, as QUANTIZE int8 -> int8 does (TFLite's converter writes
    // equal parameters; other producers may not).
    const QuantParams &outQuant = ctx.outputTypes[0].quant;
    if (isInt8(*v) && !((*v)->getType().quant == outQuant)) {
      v = ctx.add(OpKind::Quantize, {*v}, resultAttrs(ctx),
                  "requantize" + std::to_string(i));
      if (!v)
        return v.takeError();
    }
    in.push_back(*v);
  }
  AttrMap attrs;
  attrs.emplace("axis", Attr::ofInt(o->axis()));
  auto y = withActivation(ctx, o->fused_activation_function(), OpKind::Concat,
                          in, std::move(attrs), false);
  return ctx.result(std::move(y));
}

llvm::Error importPad(OpContext &ctx) {
  auto x = ctx.input(0);
  auto pads = intValues(ctx, 1);
  if (!x || !pads)
    return x ? pads.takeError() : x.takeError();
  size_t rank = (*x)->getType().rank();
  if (pads->size() != 2 * rank)
    return ctx.error(llvm::formatv("paddings must be [{0}, 2], got {1} values",
                                   rank, pads->size()));
  llvm::SmallVector<int64_t, 8> onnxPads(2 * rank);
  for (size_t d = 0; d < rank; ++d) {
    onnxPads[d] = (*pads)[2 * d];
    onnxPads[rank + d] = (*pads)[2 * d + 1];
  }
  // TFLite pads with the real value 0: an int8 tensor's zero point.
  const QuantParams &q = (*x)->getType().quant;
  float value = q.isQuantized() ? float(q.zeroPoints[0]) : 0.0f;
  auto y = ctx.add(OpKind::Pad, {*x},
                   {{"pads", Attr::ofInts(onnxPads)}, {"value", Attr::ofFloat(value)}});
  return ctx.result(std::move(y));
}

/// STRIDED_SLICE without ellipsis or new axes: a Slice, then a Reshape
/// dropping the shrunk axes.
llvm::Error importStridedSlice(OpContext &ctx) {
  const auto *o = ctx.op.builtin_options_as_StridedSliceOptions();
  if (!o)
    return ctx.error("StridedSliceOptions are missing");
  if (o->ellipsis_mask() || o->new_axis_mask() || o->offset())
    return ctx.error("ellipsis_mask, new_axis_mask and offset are not supported");
  auto x = ctx.input(0);
  auto begin = intValues(ctx, 1), end = intValues(ctx, 2), strides = intValues(ctx, 3);
  if (!x)
    return x.takeError();
  if (!begin || !end || !strides) {
    llvm::consumeError(begin.takeError());
    llvm::consumeError(end.takeError());
    llvm::consumeError(strides.takeError());
    return ctx.error("begin, end and strides must be constant int32");
  }
  const Shape &s = (*x)->getType().shape;
  size_t rank = s.size();
  if (begin->size() != rank || end->size() != rank || strides->size() != rank)
    return ctx.error("begin, end and strides must each have one value per "
                     "dimension");
  llvm::SmallVector<int64_t, 4> starts, ends, steps, axes;
  for (size_t d = 0; d < rank; ++d) {
    int64_t step = (*strides)[d];
    if (step == 0)
      return ctx.error("a stride is 0");
    bool shrink = o->shrink_axis_mask() & (1 << d);
    int64_t b = (*begin)[d], e = (*end)[d];
    if (o->begin_mask() & (1 << d))
      b = step > 0 ? 0 : s[d] - 1;
    if (shrink) {
      b = b < 0 ? b + s[d] : b;
      e = b + 1;
      step = 1;
    } else if (o->end_mask() & (1 << d)) {
      e = step > 0 ? INT64_MAX : INT64_MIN;
    }
    starts.push_back(b);
    ends.push_back(e);
    steps.push_back(step);
    axes.push_back(d);
  }
  auto y = ctx.add(OpKind::Slice, {*x},
                   {{"starts", Attr::ofInts(starts)},
                    {"ends", Attr::ofInts(ends)},
                    {"axes", Attr::ofInts(axes)},
                    {"steps", Attr::ofInts(steps)}},
                   o->shrink_axis_mask() ? "slice" : "");
  if (!y)
    return y.takeError();
  if (o->shrink_axis_mask()) {
    y = ctx.add(OpKind::Reshape, {*y},
                {{"shape", Attr::ofInts(ctx.outputTypes[0].shape)}});
    if (!y)
      return y.takeError();
  }
  ctx.results.push_back(*y);
  return llvm::Error::success();
}

llvm::Error importSoftmax(OpContext &ctx) {
  const auto *o = ctx.op.builtin_options_as_SoftmaxOptions();
  float beta = o ? o->beta() : 1.0f;
  auto x = ctx.input(0);
  if (!x)
    return x.takeError();
  AttrMap attrs;
  attrs.emplace("axis", Attr::ofInt(-1));
  Value *in = *x;
  if (beta != 1.0f) {
    if (isInt8(in))
      attrs.emplace(kSoftmaxBetaAttr, Attr::ofFloat(beta));
    else {
      Value *b = ctx.g.addConstant(ctx.name + "/beta",
                                   Tensor::fromValues<float>(DType::F32, {}, {beta}));
      auto scaled = ctx.add(OpKind::Mul, {in, b}, {}, "beta");
      if (!scaled)
        return scaled.takeError();
      in = *scaled;
    }
  }
  auto y = ctx.add(OpKind::Softmax, {in}, std::move(attrs));
  return ctx.result(std::move(y));
}

/// QUANTIZE, f32 or int8 to int8; DEQUANTIZE, int8 to f32.
llvm::Error importQuantize(OpContext &ctx) {
  auto x = ctx.input(0);
  if (!x)
    return x.takeError();
  return ctx.result(ctx.add(OpKind::Quantize, {*x}, resultAttrs(ctx)));
}

llvm::Error importDequantize(OpContext &ctx) {
  auto x = ctx.input(0);
  if (!x)
    return x.takeError();
  return ctx.result(ctx.add(OpKind::Dequantize, {*x}, {}));
}

/// The activation ops: one kiln activation each.
template <ActivationKind Kind>
llvm::Error importActivation(OpContext &ctx) {
  auto x = ctx.input(0);
  if (!x)
    return x.takeError();
  llvm::SmallVector<float, 2> params;
  if constexpr (Kind == ActivationKind::LeakyRelu) {
    const auto *o = ctx.op.builtin_options_as_LeakyReluOptions();
    params.push_back(o ? o->alpha() : 0.2f);
  }
  auto act = Activation::make(Kind, params);
  AttrMap attrs = activationOpAttrs(*act);
  for (auto &kv : resultAttrs(ctx))
    attrs.insert(kv);
  auto y = ctx.add(activationOpKind(Kind), {*x}, std::move(attrs));
  return ctx.result(std::move(y));
}

llvm::Error importClip(OpContext &ctx, float lo, float hi) {
  auto x = ctx.input(0);
  if (!x)
    return x.takeError();
  AttrMap attrs = activationOpAttrs(*Activation::make(ActivationKind::Clip, {lo, hi}));
  for (auto &kv : resultAttrs(ctx))
    attrs.insert(kv);
  auto y = ctx.add(OpKind::Clip, {*x}, std::move(attrs));
  return ctx.result(std::move(y));
}
llvm::Error importRelu6(OpContext &ctx) { return importClip(ctx, 0, 6); }
llvm::Error importReluN1To1(OpContext &ctx) { return importClip(ctx, -1, 1); }

struct OpEntry {
  int32_t code;
  OpImportFn import;
};

constexpr OpEntry kOps[] = {
    {tflite::BuiltinOperator_ADD, importAdd},
    {tflite::BuiltinOperator_AVERAGE_POOL_2D, importAveragePool},
    {tflite::BuiltinOperator_CONCATENATION, importConcatenation},
    {tflite::BuiltinOperator_CONV_2D, importConv2D},
    {tflite::BuiltinOperator_DEPTHWISE_CONV_2D, importDepthwiseConv2D},
    {tflite::BuiltinOperator_DEQUANTIZE, importDequantize},
    {tflite::BuiltinOperator_FULLY_CONNECTED, importFullyConnected},
    {tflite::BuiltinOperator_HARD_SWISH, importActivation<ActivationKind::HardSwish>},
    {tflite::BuiltinOperator_LEAKY_RELU, importActivation<ActivationKind::LeakyRelu>},
    {tflite::BuiltinOperator_LOGISTIC, importActivation<ActivationKind::Sigmoid>},
    {tflite::BuiltinOperator_MAX_POOL_2D, importMaxPool},
    {tflite::BuiltinOperator_MEAN, importMean},
    {tflite::BuiltinOperator_MUL, importMul},
    {tflite::BuiltinOperator_PAD, importPad},
    {tflite::BuiltinOperator_QUANTIZE, importQuantize},
    {tflite::BuiltinOperator_RELU, importActivation<ActivationKind::Relu>},
    {tflite::BuiltinOperator_RELU6, importRelu6},
    {tflite::BuiltinOperator_RELU_N1_TO_1, importReluN1To1},
    {tflite::BuiltinOperator_RESHAPE, importReshape},
    {tflite::BuiltinOperator_SOFTMAX, importSoftmax},
    {tflite::BuiltinOperator_SQUEEZE, importSqueeze},
    {tflite::BuiltinOperator_STRIDED_SLICE, importStridedSlice},
    {tflite::BuiltinOperator_SUB, importSub},
    {tflite::BuiltinOperator_TANH, importActivation<ActivationKind::Tanh>},
    {tflite::BuiltinOperator_TRANSPOSE, importTranspose},
    {tflite::BuiltinOperator_UNIDIRECTIONAL_SEQUENCE_LSTM, importUnidirectionalSequenceLSTM},
};

} // namespace

OpImportFn findOpImporter(int32_t code) {
  for (const OpEntry &e : kOps)
    if (e.code == code)
      return e.import;
  return nullptr;
}

} // namespace tflite_import
} // namespace kiln
