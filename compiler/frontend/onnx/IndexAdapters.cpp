//===- IndexAdapters.cpp - ONNX ops imported as gathers and scatters ------===//
//
// ONNX ops that are a Gather, GatherElements or ScatterElements once their
// shape-deciding inputs are constant: Compress (its condition decides which
// slices stay), ReverseSequence (its sequence lengths decide each batch
// entry's permutation) and MaxUnpool (its output shape input, or the window,
// decides the result's shape; the indices stay data).
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/onnx/AdapterUtils.h"


#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

namespace kiln {
namespace {

Value *addIndexConstant(NodeEmitter &e, const PendingNode &n,
                        llvm::StringRef role, Tensor t) {
  Graph &g = e.getGraph();
  return g.addConstant(g.uniqueName(n.name + "/" + role.str()), std::move(t));
}

} // namespace

/// Compress keeps the slices along `axis` (of the flattened input without
/// one) where its condition is true. The condition decides the result's
/// shape, so it must be constant, and then Compress is a Gather of the
/// kept positions.
llvm::Expected<ValueList> emitCompress(NodeEmitter &e, PendingNode &n) {
  if (auto err = checkMaxInputs(n, 2))
    return std::move(err);
  auto condition = constantInput(n, 1, "condition");
  if (!condition)
    return condition.takeError();
  llvm::SmallVector<int64_t, 8> kept;
  for (int64_t i = 0, count = (*condition)->numElements(); i < count; ++i)
    if ((*condition)->getAsDouble(i) != 0)
      kept.push_back(i);
  Value *data = n.inputs[0];
  const TensorType &type = data->getType();
  int64_t axis = 0, extent = type.numElements();
  auto axisAttr = n.attrs.find("axis");
  if (axisAttr != n.attrs.end()) {
    if (axisAttr->second.getKind() != AttrKind::Int)
      return n.error("axis must be an int");
    int64_t rank = static_cast<int64_t>(type.rank());
    axis = axisAttr->second.getInt();
    if (axis < -rank || axis >= rank)
      return n.error(llvm::formatv("axis {0} is out of range for rank {1}",
                                   axis, rank));
    axis = axis < 0 ? axis + rank : axis;
    extent = type.shape[axis];
  } else {
    auto flat = reshapeTo(e, n, data, {extent}, "flatten");
    if (!flat)
      return flat.takeError();
    data = *flat;
  }
  if (!kept.empty() && kept.back() >= extent)
    return n.error(llvm::formatv("condition selects position {0}, beyond the "
                                 "{1} positions of the axis",
                                 kept.back(), extent));
  Tensor indices(TensorType(DType::I64, {int64_t(kept.size())}));
  llvm::copy(kept, indices.data<int64_t>());
  Value *indexValue = addIndexConstant(e, n, "kept", std::move(indices));
  return e.emit(OpKind::Gather, n.name, {data, indexValue},
                {{"axis", Attr::ofInt(axis)}}, n.outputs);
}

/// ReverseSequence reverses the first seq_lens[b] entries along time_axis
/// of each batch entry b: a GatherElements along the time axis.
llvm::Expected<ValueList> emitReverseSequence(NodeEmitter &e,
                                              PendingNode &n) {
  if (auto err = checkMaxInputs(n, 2))
    return std::move(err);
  auto lens = intsInput(n, 1, "sequence_lens");
  if (!lens)
    return lens.takeError();
  auto timeAxis = intAttr(n, "time_axis", 0);
  if (!timeAxis)
    return timeAxis.takeError();
  auto batchAxis = intAttr(n, "batch_axis", 1);
  if (!batchAxis)
    return batchAxis.takeError();
  const TensorType &type = n.inputs[0]->getType();
  int64_t t = *timeAxis, b = *batchAxis;
  if (type.rank() < 2 || (t != 0 && t != 1) || (b != 0 && b != 1) || t == b)
    return n.error("time_axis and batch_axis must be 0 and 1 (in either "
                   "order) of an input of rank >= 2, got " + type.str());
  if (int64_t(lens->size()) != type.shape[b])
    return n.error(llvm::formatv("sequence_lens has {0} entries, the batch "
                                 "{1}",
                                 lens->size(), type.shape[b]));
  Tensor indices(TensorType(DType::I64, type.shape));
  Shape strides(type.rank(), 1);
  for (int64_t d = int64_t(type.rank()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * type.shape[d + 1];
  for (int64_t i = 0, count = type.numElements(); i < count; ++i) {
    int64_t time = i / strides[t] % type.shape[t];
    int64_t len = std::clamp<int64_t>((*lens)[i / strides[b] % type.shape[b]],
                                      0, type.shape[t]);
    indices.data<int64_t>()[i] = time < len ? len - 1 - time : time;
  }
  Value *indexValue = addIndexConstant(e, n, "reversed", std::move(indices));
  return e.emit(OpKind::GatherElements, n.name, {n.inputs[0], indexValue},
                {{"axis", Attr::ofInt(t)}}, n.outputs);
}

/// MaxUnpool puts each input element at the flat position of the result its
/// index names, zeros elsewhere: a ScatterElements into flat zeros.
llvm::Expected<ValueList> emitMaxUnpool(NodeEmitter &e, PendingNode &n) {
  if (auto err = checkMaxInputs(n, 3))
    return std::move(err);
  if (n.inputs.size() < 2 || !n.inputs[1])
    return n.error("expects the indices input");
  const TensorType &x = n.inputs[0]->getType();
  if (x.rank() < 3)
    return n.error("input must be N x C x D1 x ..., got " + x.str());
  int64_t spatial = x.rank() - 2;
  // The indices address the unpooled shape the window implies; a larger
  // output_shape pads that at the end of each spatial axis.
  auto kernel = n.attrs.find("kernel_shape");
  if (kernel == n.attrs.end() || kernel->second.getKind() != AttrKind::Ints ||
      int64_t(kernel->second.getInts().size()) != spatial)
    return n.error("kernel_shape must list one size per spatial axis");
  Shape strides(spatial, 1), pads(2 * spatial, 0);
  auto ints = [&](const char *name, Shape &into) -> llvm::Error {
    auto it = n.attrs.find(name);
    if (it == n.attrs.end())
      return llvm::Error::success();
    if (it->second.getKind() != AttrKind::Ints ||
        it->second.getInts().size() != into.size())
      return n.error(llvm::Twine(name) + " has the wrong length");
    into.assign(it->second.getInts().begin(), it->second.getInts().end());
    return llvm::Error::success();
  };
  if (auto err = ints("strides", strides))
    return std::move(err);
  if (auto err = ints("pads", pads))
    return std::move(err);
  Shape outShape(x.shape.begin(), x.shape.begin() + 2);
  for (int64_t d = 0; d < spatial; ++d)
    outShape.push_back((x.shape[2 + d] - 1) * strides[d] - pads[d] -
                       pads[spatial + d] + kernel->second.getInts()[d]);
  Shape padded = outShape;
  if (n.getInput(2)) {
    auto shape = intsInput(n, 2, "output_shape");
    if (!shape)
      return shape.takeError();
    if (shape->size() != x.rank())
      return n.error("output_shape must have the input's rank");
    padded.assign(shape->begin(), shape->end());
  }
  Shape endPads(2 * x.rank(), 0);
  for (size_t d = 0; d < x.rank(); ++d) {
    endPads[x.rank() + d] = padded[d] - outShape[d];
    if (endPads[x.rank() + d] < 0 || (d < 2 && endPads[x.rank() + d] != 0))
      return n.error("output_shape " + shapeStr(padded) +
                     " is smaller than the unpooled shape " +
                     shapeStr(outShape));
  }
  if (llvm::any_of(outShape, [](int64_t d) { return d < 0; }))
    return n.error("the window gives the unpooled shape " +
                   shapeStr(outShape));
  int64_t total = TensorType(x.dtype, outShape).numElements();
  int64_t count = x.numElements();
  auto flatX = reshapeTo(e, n, n.inputs[0], {count}, "flat_x");
  if (!flatX)
    return flatX.takeError();
  auto flatIndices = reshapeTo(e, n, n.inputs[1], {count}, "flat_indices");
  if (!flatIndices)
    return flatIndices.takeError();
  Value *zeros =
      addIndexConstant(e, n, "zeros", Tensor(TensorType(x.dtype, {total})));
  auto scattered =
      e.emit(OpKind::ScatterElements, n.name, {zeros, *flatIndices, *flatX},
             {{"axis", Attr::ofInt(0)}}, {});
  if (!scattered)
    return scattered.takeError();
  auto y = reshapeTo(e, n, (*scattered)[0], outShape, "unflatten");
  if (!y)
    return y.takeError();
  if (padded == outShape)
    return ValueList{*y};
  return e.emit(OpKind::Pad, n.name + "/to_output_shape", {*y},
                {{"mode", Attr::ofString("constant")},
                 {"pads", Attr::ofInts(endPads)},
                 {"value", Attr::ofFloat(0.0f)}},
                n.outputs);
}

} // namespace kiln
