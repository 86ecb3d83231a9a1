//===- SoftmaxKernel.cpp - Softmax, LogSoftmax, Hardmax along one axis ----===//
//
// The tensor is viewed as [outer, D, inner] around the axis. Each of the
// outer*inner rows is normalized in three sweeps: max, exp and sum, scale
// (LogSoftmax: x - max - log(sum); Hardmax: 1 at the first maximum).
//
// With vectors, Softmax and LogSoftmax run on them: along the row when it is
// contiguous (inner = 1: attention scores, classifier outputs), its lanes
// reduced at the end; otherwise across `lanes` neighbouring rows at once
// (the channel axis of NCHW), each lane its own row. A scalar loop carries
// its max and sum through every element, an order no vectorizer may change.
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/Kernels.h"
#include "compiler/codegen/kernels/ScalarMath.h"
#include "compiler/ops/OpViews.h"
#include "compiler/ops/ShapeIndexing.h"

#include <limits>

namespace kiln {
namespace codegen {

namespace {

using LaneOp = llvm::function_ref<llvm::Value *(llvm::Value *, llvm::Value *)>;

/// The three sweeps of Softmax or LogSoftmax over rows held in vectors of
/// `lanes`: vector k of the rows is at index `at(k)`. The first `loopSteps`
/// vectors have `loopValid` real lanes, one more after them `lastValid`.
/// `combine` turns the lanes of a max or sum into each lane's row value:
/// across the lanes for one contiguous row, lane by lane for `lanes` rows.
struct VectorSoftmax {
  KernelBuilder &kb;
  llvm::Value *x, *y;
  unsigned lanes;
  bool isLog;

  void emit(int64_t loopSteps, unsigned loopValid, unsigned lastValid,
            llvm::function_ref<llvm::Value *(llvm::Value *)> at,
            llvm::function_ref<llvm::Value *(llvm::Value *, LaneOp)> combine) {
    auto &b = kb.b;
    llvm::Value *negInf =
        kb.splat(kb.f32(-std::numeric_limits<float>::infinity()), lanes);
    llvm::Value *zero = llvm::Constant::getNullValue(kb.vecType(lanes));
    auto add = [&](llvm::Value *a, llvm::Value *c) { return b.CreateFAdd(a, c); };
    auto max = [&](llvm::Value *a, llvm::Value *c) { return kb.maxF(a, c); };
    auto masked = [&](llvm::Value *v, unsigned valid, llvm::Value *fill) {
      return valid < lanes ? b.CreateSelect(kb.laneMask(lanes, valid), v, fill) : v;
    };
    using Step = llvm::function_ref<llvm::Value *(llvm::Value *, llvm::Value *, unsigned)>;
    auto sweep = [&](llvm::Value *init, Step step) {
      llvm::Value *acc =
          kb.loopCarried(loopSteps, {init}, [&](llvm::Value *k, llvm::ArrayRef<llvm::Value *> in) {
            return llvm::SmallVector<llvm::Value *, 32>{step(in[0], k, loopValid)};
          })[0];
      return lastValid ? step(acc, kb.idx(loopSteps), lastValid) : acc;
    };
    llvm::Value *mx = combine(
        sweep(negInf,
              [&](llvm::Value *acc, llvm::Value *k, unsigned valid) {
                return max(acc, masked(kb.loadVec(x, at(k), lanes, valid), valid, negInf));
              }),
        max);
    llvm::Value *sum = combine(
        sweep(zero,
              [&](llvm::Value *acc, llvm::Value *k, unsigned valid) {
                llvm::Value *shifted = b.CreateFSub(kb.loadVec(x, at(k), lanes, valid), mx);
                llvm::Value *e = kb.exp(shifted);
                kb.storeVec(isLog ? shifted : e, y, at(k), valid);
                return add(acc, masked(e, valid, zero));
              }),
        add);
    llvm::Value *scale = isLog ? logPerLane(sum) : b.CreateFDiv(kb.splat(kb.f32(1), lanes), sum);
    sweep(zero, [&](llvm::Value *acc, llvm::Value *k, unsigned valid) {
      llvm::Value *v = kb.loadVec(y, at(k), lanes, valid);
      kb.storeVec(isLog ? b.CreateFSub(v, scale) : b.CreateFMul(v, scale), y, at(k), valid);
      return acc;
    });
  }

  /// ScalarMath's log is scalar; LogSoftmax takes one per row.
  llvm::Value *logPerLane(llvm::Value *v) {
    auto &b = kb.b;
    ScalarMath math(kb);
    llvm::Value *out = v;
    for (unsigned l = 0; l < lanes; ++l)
      out = b.CreateInsertElement(out, math.log(b.CreateExtractElement(v, l)), l);
    return out;
  }
};

} // namespace

llvm::Error emitSoftmax(KernelBuilder &kb, const KernelArgs &args) {
  const Node &n = args.node;
  SoftmaxView softmax(n);
  if (auto e = requireF32(n, softmax.input()))
    return e;
  llvm::ArrayRef<int64_t> shape = softmax.input()->getType().shape;
  int64_t rank = shape.size();
  int64_t axis = softmax.axis();
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis >= rank)
    return nodeError(n, "axis out of range");
  auto [outer, D, inner] = splitAtAxis(shape, axis);

  auto &b = kb.b;
  llvm::Type *f32 = b.getFloatTy();
  llvm::Value *x = args.inputs[0], *y = args.outputs[0];
  unsigned lanes = kb.vec.lanes;
  if (lanes > 1 && !n.is(OpKind::Hardmax)) {
    VectorSoftmax softmax{kb, x, y, lanes, n.is(OpKind::LogSoftmax)};
    if (inner == 1) {
      // One contiguous row: its full vectors, then a partial one.
      int64_t full = D / lanes;
      kb.loop(outer, [&](llvm::Value *o) {
        llvm::Value *base = b.CreateMul(o, kb.idx(D));
        softmax.emit(
            full, lanes, unsigned(D % lanes),
            [&](llvm::Value *k) { return b.CreateAdd(base, b.CreateMul(k, kb.idx(lanes))); },
            [&](llvm::Value *v, LaneOp op) { return kb.splat(kb.reduceLanes(v, op), lanes); });
      });
      return llvm::Error::success();
    }
    // `lanes` neighbouring rows at a time, a row per lane; the last group
    // may have fewer.
    auto rows = [&](llvm::Value *o, llvm::Value *group, unsigned valid) {
      llvm::Value *base = b.CreateAdd(b.CreateMul(o, kb.idx(D * inner)),
                                      b.CreateMul(group, kb.idx(lanes)));
      softmax.emit(
          D, valid, 0,
          [&](llvm::Value *d) { return b.CreateAdd(base, b.CreateMul(d, kb.idx(inner))); },
          [](llvm::Value *v, LaneOp) { return v; });
    };
    int64_t fullGroups = inner / lanes;
    kb.loop(outer, [&](llvm::Value *o) {
      kb.loop(fullGroups, [&](llvm::Value *g) { rows(o, g, lanes); });
      if (inner % lanes)
        rows(o, kb.idx(fullGroups), unsigned(inner % lanes));
    });
    return llvm::Error::success();
  }
  llvm::Value *maxSlot = kb.scalarSlot(f32, "max");
  llvm::Value *sumSlot = kb.scalarSlot(f32, "sum");
  kb.loop(outer, [&](llvm::Value *o) {
    kb.loop(inner, [&](llvm::Value *i) {
      llvm::Value *base = b.CreateAdd(b.CreateMul(o, kb.idx(D * inner)), i);
      auto at = [&](llvm::Value *d) {
        return b.CreateAdd(base, b.CreateMul(d, kb.idx(inner)));
      };
      b.CreateStore(kb.f32(-std::numeric_limits<float>::infinity()), maxSlot);
      kb.loop(D, [&](llvm::Value *d) {
        b.CreateStore(kb.maxF(b.CreateLoad(f32, maxSlot), kb.load(f32, x, at(d))),
                      maxSlot);
      });
      llvm::Value *mx = b.CreateLoad(f32, maxSlot);
      if (n.is(OpKind::Hardmax)) {
        // 1 at the first maximum: a flag slot remembers it was seen.
        b.CreateStore(kb.f32(0), sumSlot);
        kb.loop(D, [&](llvm::Value *d) {
          llvm::Value *seen = b.CreateLoad(f32, sumSlot);
          llvm::Value *hit = b.CreateAnd(
              b.CreateFCmpOEQ(kb.load(f32, x, at(d)), mx),
              b.CreateFCmpOEQ(seen, kb.f32(0)));
          kb.store(b.CreateSelect(hit, kb.f32(1), kb.f32(0)), y, at(d));
          b.CreateStore(b.CreateSelect(hit, kb.f32(1), seen), sumSlot);
        });
        return;
      }
      b.CreateStore(kb.f32(0), sumSlot);
      bool isLog = n.is(OpKind::LogSoftmax);
      kb.loop(D, [&](llvm::Value *d) {
        llvm::Value *shifted = b.CreateFSub(kb.load(f32, x, at(d)), mx);
        llvm::Value *e = kb.exp(shifted);
        kb.store(isLog ? shifted : e, y, at(d));
        b.CreateStore(b.CreateFAdd(b.CreateLoad(f32, sumSlot), e), sumSlot);
      });
      if (isLog) {
        llvm::Value *logSum = ScalarMath(kb).log(b.CreateLoad(f32, sumSlot));
        kb.loop(D, [&](llvm::Value *d) {
          kb.store(b.CreateFSub(kb.load(f32, y, at(d)), logSum), y, at(d));
        });
        return;
      }
      llvm::Value *inv = b.CreateFDiv(kb.f32(1), b.CreateLoad(f32, sumSlot));
      kb.loop(D, [&](llvm::Value *d) {
        kb.store(b.CreateFMul(kb.load(f32, y, at(d)), inv), y, at(d));
      });
    });
  });
  return llvm::Error::success();
}

} // namespace codegen
} // namespace kiln
