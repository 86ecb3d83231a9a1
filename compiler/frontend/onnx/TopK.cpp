//===- TopK.cpp - TopK as ranks counted from comparisons ------------------===//
//
// TopK with a constant k is a fixed selection, so kiln imports it as
// elementwise ops and reductions instead of a sort: along the axis (moved
// last), each element's rank is the number of elements that come before
// it in the result,
//   rank[i] = #{ j : x[j] beats x[i], or x[j] == x[i] and j < i },
// (beats: greater, or less for largest = 0; equal values keep the lower
// index first, as ONNX specifies), and output position p takes the element
// whose rank is p. The comparisons take axis-length squared elements,
// fine for the short axes (class scores, detections) TopK sees in embedded
// models.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/onnx/AdapterUtils.h"

#include "compiler/ops/OnnxDTypes.h"
#include "compiler/ops/ShapeIndexing.h"

#include "llvm/Support/FormatVariadic.h"

namespace kiln {

llvm::Expected<ValueList> emitTopK(NodeEmitter &e, PendingNode &n) {
  // TopK-10's K input is the attribute k by now (OpsetInputs.cpp).
  if (auto err = checkMaxInputs(n, 1))
    return std::move(err);
  auto kAttr = intAttr(n, "k", -1);
  if (!kAttr)
    return kAttr.takeError();
  int64_t k = *kAttr;
  if (n.inputs.empty() || !n.inputs[0])
    return n.error("needs an input X");
  auto largest = intAttr(n, "largest", 1);
  if (!largest)
    return largest.takeError();
  // sorted = 0 allows any order, so the sorted order always does.
  Value *x = n.inputs[0];
  const TensorType &xt = x->getType();
  if (xt.dtype != DType::F32 && xt.dtype != DType::I32 &&
      xt.dtype != DType::I64)
    return n.error("supports f32, i32 and i64 inputs, got " + xt.str());
  int64_t rank = xt.rank();
  auto axis = axisAttr(n, "axis", -1, rank);
  if (!axis)
    return axis.takeError();
  int64_t len = xt.shape[*axis];
  if (k < 0 || k > len)
    return n.error(
        llvm::formatv("k = {0} is not in [0, {1}], the axis length", k, len));

  Formula f(e, n);
  Shape perm = movedAxisPerm(rank, *axis, rank - 1),
        inverse = inversePerm(perm);
  bool moved = *axis != rank - 1;
  Value *last = moved ? f.add("to_last", OpKind::Transpose, {x},
                              {{"perm", Attr::ofInts(perm)}})
                      : x;
  Shape outer;
  for (int64_t d : perm)
    outer.push_back(xt.shape[d]);
  outer.pop_back();
  auto shaped = [&](llvm::StringRef role, Value *v, Shape tail) {
    Shape shape = outer;
    shape.append(tail.begin(), tail.end());
    return f.add(role, OpKind::Reshape, {v}, {{"shape", Attr::ofInts(shape)}});
  };
  // [..., i, j]: element i of the axis against element j.
  Value *xi = shaped("x_i", last, {len, 1});
  Value *xj = shaped("x_j", last, {1, len});
  Tensor earlier(TensorType(DType::Bool, {len, len}));
  for (int64_t i = 0; i < len; ++i)
    for (int64_t j = 0; j < i; ++j)
      earlier.data<bool>()[i * len + j] = true;
  Value *beats =
      f.add("beats", *largest ? OpKind::Greater : OpKind::Less, {xj, xi});
  Value *tieBefore = f.add("tie_before", OpKind::And,
                           {f.add("tie", OpKind::Equal, {xj, xi}),
                            f.constant("earlier", std::move(earlier))});
  Value *before = f.add("before_count", OpKind::Cast,
                        {f.add("before", OpKind::Or, {beats, tieBefore})},
                        {{"to", Attr::ofInt(onnxFromDType(DType::I64))}});
  Value *ranks = f.reduce("rank", OpKind::ReduceSum, before, {rank}, false);

  // [..., p, i]: whether element i goes to output position p.
  Tensor positions(TensorType(DType::I64, {k, 1}));
  for (int64_t p = 0; p < k; ++p)
    positions.data<int64_t>()[p] = p;
  Value *chosen = f.add("chosen", OpKind::Equal,
                        {shaped("rank_row", ranks, {1, len}),
                         f.constant("positions", std::move(positions))});
  Tensor iota(TensorType(DType::I64, {len}));
  for (int64_t i = 0; i < len; ++i)
    iota.data<int64_t>()[i] = i;
  auto pick = [&](llvm::StringRef role, Value *from, Tensor zero,
                  unsigned output) -> Value * {
    Value *picked =
        f.reduce(role, OpKind::ReduceSum,
                 f.add(role.str() + "_chosen", OpKind::Where,
                       {chosen, from, f.constant("zero", std::move(zero))}),
                 {rank}, false);
    std::string name = n.getOutputName(output);
    if (!moved)
      return f.add(role, OpKind::Identity, {picked}, {}, name);
    return f.add(role, OpKind::Transpose, {picked},
                 {{"perm", Attr::ofInts(inverse)}}, name);
  };
  Value *values = pick("values", xj, Tensor(TensorType(xt.dtype, {})), 0);
  Value *indices = pick("indices", f.constant("index", std::move(iota)),
                        Tensor(TensorType(DType::I64, {})), 1);
  if (llvm::Error err = f.takeError())
    return std::move(err);
  return ValueList{values, indices};
}

} // namespace kiln
