//===- ReduceKernels.cpp - Reductions and ArgMax/ArgMin -------------------===//
//
// For every output element (a loop nest over the keepdims shape) a second
// nest walks the reduced axes, accumulating in a stack slot that SROA turns
// into a register. Float reductions over trailing axes (rows of consecutive
// elements, at least a vector long) go a vector at a time (reduceRow)
// instead: a serial chain of scalar adds or compares ran them at a fraction
// of ONNX Runtime's speed. Reduced axes before kept ones (a mean over the
// tokens of [1, T, D]) go a vector of columns at a time, each lane down
// its column. ReduceLogSumExp makes two passes (the maximum,
// then the sum of exp(x - max)). Lowering made `axes` (`axis` for
// ArgMax/ArgMin) explicit and non-negative. f32 throughout; i32 and i64
// for the reductions that need no float math (Sum, Prod, Max, Min, ArgMax,
// ArgMin).
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/Kernels.h"
#include "compiler/codegen/kernels/RegisterTile.h"
#include "compiler/codegen/kernels/RowReduce.h"
#include "compiler/codegen/kernels/ScalarMath.h"
#include "compiler/ops/OpViews.h"
#include "compiler/ops/ShapeIndexing.h"

#include "llvm/ADT/STLExtras.h"

#include <limits>
#include <optional>

namespace kiln {
namespace codegen {

namespace {

/// Vectors of columns that one pass over the rows combines side by side.
constexpr int64_t kColumnVectors = 4;

bool isArg(OpKind k) { return k == OpKind::ArgMax || k == OpKind::ArgMin; }

bool allowsIntegers(OpKind k) {
  return k == OpKind::ReduceSum || k == OpKind::ReduceProd ||
         k == OpKind::ReduceMax || k == OpKind::ReduceMin || isArg(k);
}

/// A reduction whose reduced axes (axes of extent 1 aside) are one run with
/// kept axes after it, as [outer, rows, inner]: each output combines `rows`
/// elements `inner` apart, and `inner` consecutive outputs combine
/// consecutive columns.
struct ColumnSplit {
  int64_t outer = 1, rows = 1, inner = 1;
};

std::optional<ColumnSplit> columnSplit(llvm::ArrayRef<int64_t> shape,
                                       llvm::ArrayRef<bool> reduced) {
  ColumnSplit c;
  enum { Before, In, After } at = Before;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1)
      continue;
    if (reduced[d]) {
      if (at == After)
        return std::nullopt;
      at = In;
      c.rows *= shape[d];
    } else {
      (at == Before ? c.outer : c.inner) *= shape[d];
      if (at == In)
        at = After;
    }
  }
  if (at != After)
    return std::nullopt;
  return c;
}

} // namespace

llvm::Error emitReduce(KernelBuilder &kb, const KernelArgs &args) {
  const Node &n = args.node;
  OpKind k = n.getKind();
  const TensorType &xt = n.getInput(0)->getType();
  DType dt = xt.dtype;
  bool isFloat = dt == DType::F32;
  if (!isFloat && !((dt == DType::I32 || dt == DType::I64) && allowsIntegers(k)))
    return nodeError(n, "dtype " + xt.str() + " is not supported by the code "
                        "generator for " + n.getOpName());
  size_t rank = xt.rank();
  llvm::SmallVector<bool, 6> reduced(rank, false);
  if (isArg(k)) {
    reduced[ArgReduceView(n).axis()] = true;
  } else {
    // Lowering made the axes explicit.
    llvm::ArrayRef<int64_t> axes = *ReduceView(n).axes();
    for (int64_t a : axes)
      reduced[a] = true;
  }
  Shape kept, inner, innerStrides;
  Shape inStrides = rowMajorStrides(xt.shape), outerStrides;
  int64_t count = 1;
  for (size_t d = 0; d < rank; ++d) {
    kept.push_back(reduced[d] ? 1 : xt.shape[d]);
    outerStrides.push_back(reduced[d] ? 0 : inStrides[d]);
    if (reduced[d]) {
      inner.push_back(xt.shape[d]);
      innerStrides.push_back(inStrides[d]);
      count *= xt.shape[d];
    }
  }

  auto &b = kb.b;
  ScalarMath m(kb);
  llvm::Type *ty = kb.elemType(dt);
  llvm::Value *x = args.inputs[0], *y = args.outputs[0];
  llvm::Value *accSlot = kb.scalarSlot(ty, "acc");
  llvm::Value *maxSlot = kb.scalarSlot(ty, "max");
  llvm::Value *idxSlot = kb.scalarSlot(kb.idxTy, "best");
  auto fconst = [&](double v) { return llvm::ConstantFP::get(ty, v); };
  auto iconst = [&](int64_t v) { return llvm::ConstantInt::get(ty, v, true); };
  auto greater = [&](llvm::Value *a, llvm::Value *c) {
    return isFloat ? b.CreateFCmpOGT(a, c) : b.CreateICmpSGT(a, c);
  };
  auto less = [&](llvm::Value *a, llvm::Value *c) {
    return isFloat ? b.CreateFCmpOLT(a, c) : b.CreateICmpSLT(a, c);
  };
  // Max and Min let a NaN win, as numpy does.
  auto pick = [&](bool isMax, llvm::Value *acc, llvm::Value *v) {
    llvm::Value *takeV = isMax ? greater(v, acc) : less(v, acc);
    if (isFloat)
      takeV = b.CreateOr(takeV, m.isNaN(v));
    return b.CreateSelect(takeV, v, acc);
  };
  llvm::Value *initial;
  switch (k) {
  case OpKind::ReduceMax:
    initial = isFloat ? fconst(-std::numeric_limits<float>::infinity())
                      : llvm::ConstantInt::get(
                            ty, llvm::APInt::getSignedMinValue(ty->getIntegerBitWidth()));
    break;
  case OpKind::ReduceMin:
    initial = isFloat ? fconst(std::numeric_limits<float>::infinity())
                      : llvm::ConstantInt::get(
                            ty, llvm::APInt::getSignedMaxValue(ty->getIntegerBitWidth()));
    break;
  case OpKind::ReduceProd: initial = isFloat ? fconst(1.0) : iconst(1); break;
  default: initial = isFloat ? fconst(0.0) : iconst(0); break;
  }

  // The result from the accumulated value (and the maximum, for LogSumExp).
  auto finish = [&](llvm::Value *acc, llvm::Value *max) {
    switch (k) {
    case OpKind::ReduceMean: return b.CreateFDiv(acc, fconst(double(count)));
    case OpKind::ReduceL2: return m.sqrt(acc);
    case OpKind::ReduceLogSum: return m.log(acc);
    case OpKind::ReduceLogSumExp: return b.CreateFAdd(max, m.log(acc));
    default: return acc;
    }
  };

  // Whether the reduced axes are trailing (axes of extent 1 aside), so each
  // output reduces `count` consecutive elements.
  bool trailing = true, seenReduced = false;
  for (size_t d = 0; d < rank; ++d)
    if (xt.shape[d] != 1) {
      seenReduced |= reduced[d];
      trailing &= reduced[d] || !seenReduced;
    }
  const unsigned lanes = kb.vec.lanes;
  // The vector paths' term of an element and combination of two partial
  // results (but LogSumExp's, which both paths take in two passes).
  auto termOf = [&](llvm::Value *v) {
    switch (k) {
    case OpKind::ReduceL1:
      return b.CreateSelect(b.CreateFCmpOLT(v, kb.splat(fconst(0.0), lanes)), b.CreateFNeg(v), v);
    case OpKind::ReduceL2:
    case OpKind::ReduceSumSquare: return b.CreateFMul(v, v);
    default: return v;
    }
  };
  auto maxOfVectors = [&](llvm::Value *a, llvm::Value *c) { return pick(true, a, c); };
  auto combineVectors = [&](llvm::Value *acc, llvm::Value *v) {
    switch (k) {
    case OpKind::ReduceMax: return pick(true, acc, v);
    case OpKind::ReduceMin: return pick(false, acc, v);
    case OpKind::ReduceProd: return b.CreateFMul(acc, v);
    default: return b.CreateFAdd(acc, v);
    }
  };
  if (isFloat && !isArg(k) && trailing && lanes > 1 && count >= lanes) {
    const int64_t full = count / lanes;
    const unsigned tail = unsigned(count % lanes);
    forEachIndex(kb, TensorType(dt, kept).numElements(), [&](llvm::Value *row) {
      llvm::Value *base = b.CreateMul(row, kb.idx(count));
      auto load = [&](llvm::Value *i, unsigned valid) { return kb.loadVec(x, i, lanes, valid); };
      llvm::Value *max = nullptr, *acc;
      if (k == OpKind::ReduceLogSumExp) {
        max = reduceRow(kb, base, full, tail, load, maxOfVectors,
                        fconst(-std::numeric_limits<float>::infinity()));
        llvm::Value *maxVec = kb.splat(max, lanes);
        acc = reduceRow(kb, base, full, tail, [&](llvm::Value *i, unsigned valid) {
          return kb.exp(b.CreateFSub(load(i, valid), maxVec));
        }, combineVectors, initial);
      } else {
        acc = reduceRow(kb, base, full, tail, [&](llvm::Value *i, unsigned valid) {
          return termOf(load(i, valid));
        }, combineVectors, initial);
      }
      kb.store(finish(acc, max), y, row);
    });
    return llvm::Error::success();
  }

  // Reduced axes before kept ones: vectors across the columns, each lane
  // combining its column's rows in order, a few vectors side by side.
  std::optional<ColumnSplit> columns = columnSplit(xt.shape, reduced);
  if (isFloat && !isArg(k) && lanes > 1 && columns && columns->inner >= lanes) {
    const ColumnSplit c = *columns;
    // `count` vectors of columns from column j0 of outer slice `o`, the
    // last `valid` lanes wide.
    auto reduceColumns = [&](llvm::Value *o, llvm::Value *j0, unsigned count, unsigned valid) {
      llvm::Value *base = b.CreateAdd(b.CreateMul(o, kb.idx(c.rows * c.inner)), j0);
      auto load = [&](llvm::Value *r, unsigned v) {
        return kb.loadVec(x, b.CreateAdd(base, b.CreateAdd(b.CreateMul(r, kb.idx(c.inner)),
                                                           kb.idx(v * lanes))),
                          lanes, v + 1 == count ? valid : lanes);
      };
      auto pass = [&](llvm::Value *init, auto &&next) {
        llvm::SmallVector<llvm::Value *, 32> start(count, kb.splat(init, lanes));
        return kb.loopCarried(c.rows, start, [&](llvm::Value *r, llvm::ArrayRef<llvm::Value *> acc) {
          llvm::SmallVector<llvm::Value *, 32> out;
          for (unsigned v = 0; v < count; ++v)
            out.push_back(next(acc[v], load(r, v), v));
          return out;
        });
      };
      llvm::SmallVector<llvm::Value *, 32> maxes;
      if (k == OpKind::ReduceLogSumExp)
        maxes = pass(fconst(-std::numeric_limits<float>::infinity()),
                     [&](llvm::Value *acc, llvm::Value *v, unsigned) { return kb.maxF(acc, v); });
      llvm::SmallVector<llvm::Value *, 32> accs =
          pass(initial, [&](llvm::Value *acc, llvm::Value *v, unsigned i) {
            if (k == OpKind::ReduceLogSumExp)
              return b.CreateFAdd(acc, kb.exp(b.CreateFSub(v, maxes[i])));
            return combineVectors(acc, termOf(v));
          });
      llvm::Value *out0 = b.CreateAdd(b.CreateMul(o, kb.idx(c.inner)), j0);
      for (unsigned v = 0; v < count; ++v) {
        const unsigned width = v + 1 == count ? valid : lanes;
        llvm::Value *at = b.CreateAdd(out0, kb.idx(v * lanes));
        if (k == OpKind::ReduceMean) {
          kb.storeVec(b.CreateFDiv(accs[v], kb.splat(fconst(double(c.rows)), lanes)), y, at, width);
        } else if (k == OpKind::ReduceL2 || k == OpKind::ReduceLogSum ||
                   k == OpKind::ReduceLogSumExp) {
          for (unsigned l = 0; l < width; ++l)
            kb.store(finish(b.CreateExtractElement(accs[v], uint64_t(l)),
                            maxes.empty() ? nullptr : b.CreateExtractElement(maxes[v], uint64_t(l))),
                     y, b.CreateAdd(at, kb.idx(l)));
        } else {
          kb.storeVec(accs[v], y, at, width);
        }
      }
    };
    const int64_t full = c.inner / lanes;
    const unsigned tail = unsigned(c.inner % lanes);
    forEachIndex(kb, c.outer, [&](llvm::Value *o) {
      forTiles(kb, full, kColumnVectors, [&](llvm::Value *v0, int64_t count) {
        reduceColumns(o, b.CreateMul(v0, kb.idx(lanes)), unsigned(count), lanes);
      });
      if (tail)
        reduceColumns(o, kb.idx(full * lanes), 1, tail);
    });
    return llvm::Error::success();
  }

  Shape outStrides = rowMajorStrides(kept);
  kb.nest(kept, [&](llvm::ArrayRef<llvm::Value *> o) {
    llvm::Value *base = kb.linear(o, outerStrides);
    auto forEachReduced = [&](llvm::function_ref<void(llvm::Value *, llvm::Value *)> fn) {
      kb.nest(inner, [&](llvm::ArrayRef<llvm::Value *> r) {
        llvm::Value *at = kb.linear(r, innerStrides, base);
        // The position along the (single) ArgMax/ArgMin axis.
        fn(kb.load(ty, x, at), r.empty() ? kb.idx(0) : r.back());
      });
    };
    llvm::Value *result;
    if (isArg(k)) {
      bool last = ArgReduceView(n).selectLastIndex() != 0;
      bool isMax = k == OpKind::ArgMax;
      b.CreateStore(kb.load(ty, x, base), accSlot);
      b.CreateStore(kb.idx(0), idxSlot);
      forEachReduced([&](llvm::Value *v, llvm::Value *j) {
        llvm::Value *cur = b.CreateLoad(ty, accSlot);
        llvm::Value *better =
            last ? b.CreateNot(isMax ? less(v, cur) : greater(v, cur))
                 : (isMax ? greater(v, cur) : less(v, cur));
        if (isFloat && last) // NaN is never better.
          better = b.CreateAnd(better, b.CreateNot(m.isNaN(v)));
        b.CreateStore(b.CreateSelect(better, v, cur), accSlot);
        b.CreateStore(b.CreateSelect(better, j, b.CreateLoad(kb.idxTy, idxSlot)),
                      idxSlot);
      });
      result = b.CreateSExtOrTrunc(b.CreateLoad(kb.idxTy, idxSlot), b.getInt64Ty());
    } else {
      if (k == OpKind::ReduceLogSumExp) {
        b.CreateStore(fconst(-std::numeric_limits<float>::infinity()), maxSlot);
        forEachReduced([&](llvm::Value *v, llvm::Value *) {
          b.CreateStore(kb.maxF(b.CreateLoad(ty, maxSlot), v), maxSlot);
        });
      }
      b.CreateStore(initial, accSlot);
      forEachReduced([&](llvm::Value *v, llvm::Value *) {
        llvm::Value *acc = b.CreateLoad(ty, accSlot), *next;
        switch (k) {
        case OpKind::ReduceMax: next = pick(true, acc, v); break;
        case OpKind::ReduceMin: next = pick(false, acc, v); break;
        case OpKind::ReduceProd:
          next = isFloat ? b.CreateFMul(acc, v) : b.CreateMul(acc, v);
          break;
        case OpKind::ReduceL1: next = b.CreateFAdd(acc, m.fabs(v)); break;
        case OpKind::ReduceL2:
        case OpKind::ReduceSumSquare:
          next = b.CreateFAdd(acc, b.CreateFMul(v, v));
          break;
        case OpKind::ReduceLogSumExp:
          next = b.CreateFAdd(
              acc, kb.exp(b.CreateFSub(v, b.CreateLoad(ty, maxSlot))));
          break;
        default: next = isFloat ? b.CreateFAdd(acc, v) : b.CreateAdd(acc, v);
        }
        b.CreateStore(next, accSlot);
      });
      result = finish(b.CreateLoad(ty, accSlot),
                      k == OpKind::ReduceLogSumExp ? b.CreateLoad(ty, maxSlot) : nullptr);
    }
    kb.store(result, y, kb.linear(o, outStrides));
  });
  return llvm::Error::success();
}

} // namespace codegen
} // namespace kiln
