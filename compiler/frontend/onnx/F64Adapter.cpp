//===- F64Adapter.cpp - Ops on f64 computed in f32 ------------------------===//
//
// kiln's kernels compute in f32 (f16 is widened on load). Rather than a
// second, f64 edition of every kernel, an op that reads f64 tensors is
// imported between Casts: its f64 inputs are narrowed to f32, it runs in f32,
// and its f32 results are widened back to f64, so the graph's types stay
// those of the model. ONNX's tolerances (rtol 1e-3) are far wider than f32's
// rounding. Cast converts f64 directly, and Add, Sub, Mul and Div compute in
// f64 (values beyond f32's range are common in f64 models), so a model that
// only moves f64 data or does plain arithmetic on it loses nothing.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/onnx/OpsetAdapters.h"

#include "compiler/ops/OnnxDTypes.h"

#include "llvm/ADT/STLExtras.h"

namespace kiln {
namespace {

llvm::Expected<Value *> castTo(NodeEmitter &e, llvm::StringRef name, Value *v,
                               DType to, const std::string &resultName) {
  AttrMap attrs;
  attrs["to"] = Attr::ofInt(onnxFromDType(to));
  auto r = e.emit(OpKind::Cast, name, {v}, std::move(attrs), {resultName});
  if (!r)
    return r.takeError();
  return (*r)[0];
}

bool isF64(const Value *v) { return v && v->getType().dtype == DType::F64; }

/// The ops that take f64 as it is.
bool computesF64(OpKind k) {
  return k == OpKind::Cast || k == OpKind::Add || k == OpKind::Sub ||
         k == OpKind::Mul || k == OpKind::Div;
}

} // namespace

llvm::Expected<ValueList> emitComputingF64InF32(NodeEmitter &e,
                                                PendingNode &n) {
  // CastLike (a Cast) reads only the type of its second input.
  if (computesF64(n.kind) || !llvm::any_of(n.inputs, isF64))
    return emitAdapted(e, n);
  // Results are widened back only when no input was f32 already: Pow's
  // f32 base with an f64 exponent gives f32.
  bool widen = llvm::none_of(n.inputs, [](const Value *v) {
    return v && v->getType().dtype == DType::F32;
  });
  for (Value *&in : n.inputs) {
    if (!isF64(in))
      continue;
    auto narrowed = castTo(e, n.name + "_to_f32", in, DType::F32, "");
    if (!narrowed)
      return narrowed.takeError();
    in = *narrowed;
  }
  llvm::SmallVector<std::string, 2> names = n.outputs;
  if (widen)
    for (std::string &out : n.outputs)
      if (!out.empty())
        out += "_f32";
  auto results = emitAdapted(e, n);
  if (!results || !widen)
    return results;
  for (unsigned i = 0; i < results->size(); ++i) {
    Value *&r = (*results)[i];
    if (r->getType().dtype != DType::F32)
      continue;
    auto widened = castTo(e, n.name + "_to_f64", r, DType::F64,
                          i < names.size() ? names[i] : "");
    if (!widened)
      return widened.takeError();
    r = *widened;
  }
  return results;
}

} // namespace kiln
