//===- LowerWindow.cpp - Explicit convolution and pooling windows ---------===//
//
// ONNX lets a window op leave its geometry implicit (absent strides, pads,
// dilations, kernel_shape; auto_pad). resolveConvGeometry is the one place
// that decides what that means, so lowering writes its answer into the
// attributes and the code generator reads explicit numbers only.
//
//===----------------------------------------------------------------------===//
#include "compiler/lowering/LowerRules.h"
#include "compiler/ops/OpGeometry.h"
#include "compiler/ops/OpViews.h"
#include "compiler/graph/Rewrite.h"

namespace kiln {

llvm::Expected<bool> makeWindowExplicit(Graph &g, Node *n) {
  llvm::ArrayRef<int64_t> x = WindowView(*n).input()->getType().shape;
  Shape kernel =
      n->is(OpKind::Conv)
          ? Shape(llvm::ArrayRef(ConvView(*n).weights()->getType().shape)
                      .drop_front(2))
          : Shape(PoolView(*n).kernelShape());
  auto geom = resolveConvGeometry(*n, x.drop_front(2), kernel);
  if (!geom)
    return geom.takeError();
  Shape pads = geom->padsBegin;
  pads.append(geom->padsEnd.begin(), geom->padsEnd.end());
  AttrMap attrs;
  attrs["auto_pad"] = Attr::ofString("NOTSET");
  attrs["kernel_shape"] = Attr::ofInts(kernel);
  attrs["strides"] = Attr::ofInts(geom->strides);
  attrs["pads"] = Attr::ofInts(pads);
  // AveragePool has no dilations attribute (its windows are dense).
  if (n->getDef().findAttr("dilations"))
    attrs["dilations"] = Attr::ofInts(geom->dilations);

  return updateAttrs(g, *n, attrs);
}

llvm::Expected<bool> makeConvTransposeExplicit(Graph &g, Node *n) {
  ConvTransposeView convT(*n);
  const TensorType &xt = convT.input()->getType();
  const TensorType &wt = convT.weights()->getType();
  Shape kernel(llvm::ArrayRef(wt.shape).drop_front(2));
  auto geom = resolveConvTransposeGeometry(
      *n, llvm::ArrayRef(xt.shape).drop_front(2), kernel);
  if (!geom)
    return geom.takeError();
  // output_padding and output_shape become (possibly negative) end pads.
  Shape pads = geom->padsBegin;
  for (size_t i = 0; i < kernel.size(); ++i)
    pads.push_back(geom->padsEnd[i] - convT.outputPadding(i));
  AttrMap attrs;
  attrs["auto_pad"] = Attr::ofString("NOTSET");
  attrs["kernel_shape"] = Attr::ofInts(kernel);
  attrs["strides"] = Attr::ofInts(geom->strides);
  attrs["dilations"] = Attr::ofInts(geom->dilations);
  attrs["pads"] = Attr::ofInts(pads);
  attrs["output_padding"] = Attr::ofInts(Shape(kernel.size(), 0));
  return updateAttrs(g, *n, attrs, {"output_shape"});
}

/// Conv `conv`'s weights as `shape`: a constant reshaped here, keeping its
/// quantization (a Reshape node would drop int8 weights' per-channel
/// scales: inferTypes passes per-tensor ones only), else a Reshape.
static llvm::Expected<Value *> reshapedWeights(Graph &g, Node &conv, Shape shape) {
  Value *w = ConvView(conv).weights();
  if (const Tensor *t = constantData(w)) {
    TensorType type = t->getType();
    type.shape = std::move(shape);
    return g.addConstant(conv.getName().str() + "/w2d", Tensor(std::move(type), t->raw()));
  }
  auto r = addHelperNode(g, conv, "w2d", OpKind::Reshape, {w},
                         {{"shape", Attr::ofInts(shape)}});
  if (!r)
    return r.takeError();
  return (*r)->getOutput();
}

llvm::Expected<bool> lowerConv1D(Graph &g, Node *conv) {
  ConvView view(*conv);
  const TensorType &xt = view.input()->getType();
  const TensorType &wt = view.weights()->getType();
  auto geom = resolveConvGeometry(*conv, llvm::ArrayRef(xt.shape).drop_front(2),
                                  llvm::ArrayRef(wt.shape).drop_front(2));
  if (!geom)
    return geom.takeError();
  auto unsqueeze = [&](Value *v,
                       llvm::StringRef role) -> llvm::Expected<Value *> {
    Shape shape = v->getType().shape;
    shape.insert(shape.begin() + 2, 1);
    auto r = addHelperNode(g, *conv, role, OpKind::Reshape, {v},
                           {{"shape", Attr::ofInts(shape)}});
    if (!r)
      return r.takeError();
    return (*r)->getOutput();
  };
  auto x = unsqueeze(view.input(), "x2d");
  if (!x)
    return x.takeError();
  Shape w2dShape = wt.shape;
  w2dShape.insert(w2dShape.begin() + 2, 1);
  auto w = reshapedWeights(g, *conv, std::move(w2dShape));
  if (!w)
    return w.takeError();
  llvm::SmallVector<Value *, 3> inputs{*x, *w};
  if (view.bias())
    inputs.push_back(view.bias());
  AttrMap attrs = conv->getAttrs();
  attrs["auto_pad"] = Attr::ofString("NOTSET");
  attrs["kernel_shape"] = Attr::ofInts({1, geom->kernel[0]});
  attrs["strides"] = Attr::ofInts({1, geom->strides[0]});
  attrs["dilations"] = Attr::ofInts({1, geom->dilations[0]});
  attrs["pads"] = Attr::ofInts({0, geom->padsBegin[0], 0, geom->padsEnd[0]});
  auto conv2d = addReplacementNode(g, *conv, OpKind::Conv, inputs, attrs);
  if (!conv2d)
    return conv2d.takeError();
  auto y = addHelperNode(
      g, *conv, "y1d", OpKind::Reshape, {(*conv2d)->getOutput()},
      {{"shape", Attr::ofInts(conv->getOutput()->getType().shape)}});
  if (!y)
    return y.takeError();
  return replaceNode(g, conv, (*y)->getOutput());
}

/// A 1-D f32 MaxPool or AveragePool of stride 1 as the 2-D one of height 1,
/// which the plane kernel vectorizes. Strided ones stay: the plane kernel
/// would first copy each row into stride phases, where the generic kernel
/// reads each input about once (M5's MaxPool1d(4) took 2x as long). One
/// window over the whole padded row (adaptive_max_pool1d(x, 1)) has no stride.
llvm::Expected<bool> lowerPool1D(Graph &g, Node *pool) {
  const TensorType &xt = WindowView(*pool).input()->getType();
  auto geom = resolveConvGeometry(*pool, llvm::ArrayRef(xt.shape).drop_front(2),
                                  PoolView(*pool).kernelShape());
  if (!geom)
    return geom.takeError();
  if (xt.shape[2] + geom->padsBegin[0] + geom->padsEnd[0] ==
      geom->dilations[0] * (geom->kernel[0] - 1) + 1)
    geom->strides[0] = 1;
  if (xt.dtype != DType::F32 || pool->getNumOutputs() != 1 || geom->strides[0] != 1)
    return makeWindowExplicit(g, pool);
  HelperNodeBuilder b(g, *pool);
  Shape shape2d = xt.shape;
  shape2d.insert(shape2d.begin() + 2, 1);
  Value *x = b.add("x2d", OpKind::Reshape, {WindowView(*pool).input()},
                   {{"shape", Attr::ofInts(shape2d)}});
  AttrMap attrs = pool->getAttrs();
  attrs["auto_pad"] = Attr::ofString("NOTSET");
  attrs["kernel_shape"] = Attr::ofInts({1, geom->kernel[0]});
  attrs["strides"] = Attr::ofInts({1, geom->strides[0]});
  attrs["pads"] = Attr::ofInts({0, geom->padsBegin[0], 0, geom->padsEnd[0]});
  if (pool->getDef().findAttr("dilations"))
    attrs["dilations"] = Attr::ofInts({1, geom->dilations[0]});
  Value *y2d = b.add("pool2d", pool->getKind(), {x}, attrs);
  Value *y = b.add("y1d", OpKind::Reshape, {y2d},
                   {{"shape", Attr::ofInts(pool->getOutput()->getType().shape)}});
  return b.replaceOrigin({y});
}

/// 3-D Conv as one 2-D Conv: every output depth `od` gathers the input
/// depths it reads (od * stride + t * dilation, after zero padding) as extra
/// channels, and the output depths become extra batch rows:
///   x[N, C, D, H, W] -> Pad depth -> Gather [Do, KD] -> [N, C, Do, KD, H, W]
///   -> Transpose [N, Do, C, KD, H, W] -> Reshape [N*Do, C*KD, H, W],
///   w[O, C/g, KD, KH, KW] -> Reshape [O, C/g*KD, KH, KW],
/// and the 2-D result [N*Do, O, Ho, Wo] -> [N, Do, O, Ho, Wo] -> Transpose.
/// Merged channel c*KD+t keeps each group's channels contiguous, so `group`
/// carries over. The gathered input is KD/stride times the input, fine for
/// the volumes of embedded models; the 2-D kernels do the arithmetic.
llvm::Expected<bool> lowerConv3D(Graph &g, Node *conv) {
  ConvView view(*conv);
  const TensorType &xt = view.input()->getType();
  const TensorType &wt = view.weights()->getType();
  const TensorType &yt = conv->getOutput()->getType();
  auto geom = resolveConvGeometry(*conv, llvm::ArrayRef(xt.shape).drop_front(2),
                                  llvm::ArrayRef(wt.shape).drop_front(2));
  if (!geom)
    return geom.takeError();
  int64_t n = xt.shape[0], kd = wt.shape[2], outDepth = yt.shape[2];
  HelperNodeBuilder b(g, *conv);
  Value *x2d = depthWindowsAsChannels(b, view.input(), geom->padsBegin[0], geom->padsEnd[0],
                                      outDepth, kd, geom->strides[0], geom->dilations[0]);
  auto w2d = reshapedWeights(g, *conv, {wt.shape[0], wt.shape[1] * kd, wt.shape[3], wt.shape[4]});
  if (!w2d)
    return w2d.takeError();
  if (auto err = b.takeError())
    return std::move(err);
  llvm::SmallVector<Value *, 3> inputs{x2d, *w2d};
  if (view.bias())
    inputs.push_back(view.bias());
  AttrMap attrs = conv->getAttrs();
  attrs["auto_pad"] = Attr::ofString("NOTSET");
  attrs["kernel_shape"] = Attr::ofInts({wt.shape[3], wt.shape[4]});
  attrs["strides"] = Attr::ofInts({geom->strides[1], geom->strides[2]});
  attrs["dilations"] = Attr::ofInts({geom->dilations[1], geom->dilations[2]});
  attrs["pads"] = Attr::ofInts({geom->padsBegin[1], geom->padsBegin[2],
                                geom->padsEnd[1], geom->padsEnd[2]});
  auto conv2d = addReplacementNode(g, *conv, OpKind::Conv, inputs, attrs);
  if (!conv2d)
    return conv2d.takeError();
  Value *y5 = b.add("y_rows", OpKind::Reshape, {(*conv2d)->getOutput()},
                    {{"shape", Attr::ofInts({n, outDepth, yt.shape[1],
                                             yt.shape[3], yt.shape[4]})}});
  return b.replaceOrigin({b.add("y3d", OpKind::Transpose, {y5},
                                {{"perm", Attr::ofInts({0, 2, 1, 3, 4})}})});
}

Value *depthWindowsAsChannels(HelperNodeBuilder &b, Value *x, int64_t padBegin, int64_t padEnd,
                              int64_t windows, int64_t taps, int64_t stride, int64_t dilation) {
  llvm::ArrayRef<int64_t> shape = x->getType().shape;
  int64_t n = shape[0], c = shape[1], h = shape[3], w = shape[4];
  if (padBegin || padEnd) {
    Shape pads(10, 0);
    pads[2] = padBegin;
    pads[7] = padEnd;
    // An int8 tensor's zero is its zero point (TFLite's PAD).
    const QuantParams &q = x->getType().quant;
    float zero = q.isQuantized() ? float(q.zeroPoints[0]) : 0.0f;
    x = b.add("depth_padded", OpKind::Pad, {x},
              {{"mode", Attr::ofString("constant")},
               {"pads", Attr::ofInts(pads)},
               {"value", Attr::ofFloat(zero)}});
  }
  Tensor depths(TensorType(DType::I64, {windows, taps}));
  for (int64_t m = 0; m < windows; ++m)
    for (int64_t t = 0; t < taps; ++t)
      depths.data<int64_t>()[m * taps + t] = m * stride + t * dilation;
  Value *gathered = b.add("depth_windows", OpKind::Gather,
                          {x, b.constant("depths", std::move(depths))},
                          {{"axis", Attr::ofInt(2)}});
  Value *rows = b.add("depth_rows", OpKind::Transpose, {gathered},
                      {{"perm", Attr::ofInts({0, 2, 1, 3, 4, 5})}});
  return b.add("x2d", OpKind::Reshape, {rows},
               {{"shape", Attr::ofInts({n * windows, c * taps, h, w})}});
}

/// A global pool is the pool whose window is the input's spatial extent. An
/// f32 input of other than two spatial dimensions is pooled as [N, C, 1, S],
/// S its spatial size, which the plane kernel reduces in place (the generic
/// pooling kernel is scalar).
llvm::Expected<bool> lowerGlobalPool(Graph &g, Node *gap) {
  const TensorType &xt = gap->getInput(0)->getType();
  OpKind kind = gap->is(OpKind::GlobalMaxPool) ? OpKind::MaxPool : OpKind::AveragePool;
  Shape spatial(llvm::ArrayRef(xt.shape).drop_front(2));
  auto poolAttrs = [&](const Shape &window) {
    AttrMap attrs;
    attrs["kernel_shape"] = Attr::ofInts(window);
    attrs["strides"] = Attr::ofInts(Shape(window.size(), 1));
    attrs["pads"] = Attr::ofInts(Shape(2 * window.size(), 0));
    if (kind == OpKind::MaxPool)
      attrs["dilations"] = Attr::ofInts(Shape(window.size(), 1));
    return attrs;
  };
  if (xt.dtype != DType::F32 || spatial.size() == 2) {
    auto pool = addReplacementNode(g, *gap, kind, {gap->getInput(0)}, poolAttrs(spatial));
    if (!pool)
      return pool.takeError();
    return replaceNode(g, gap, (*pool)->getOutput());
  }
  HelperNodeBuilder b(g, *gap);
  int64_t size = 1;
  for (int64_t d : spatial)
    size *= d;
  Value *x = b.add("x2d", OpKind::Reshape, {gap->getInput(0)},
                   {{"shape", Attr::ofInts({xt.shape[0], xt.shape[1], 1, size})}});
  Value *y2d = b.add("pool2d", kind, {x}, poolAttrs({1, size}));
  return b.replaceOrigin({b.add("y", OpKind::Reshape, {y2d},
                                {{"shape", Attr::ofInts(gap->getOutput()->getType().shape)}})});
}

} // namespace kiln
