//===- ResizeKernel.cpp - Resize of the last two axes in one pass ---------===//
//
// Image resizing (any mode, any coordinate transformation) reads each
// output element's taps straight from the input:
//
//   y[p, oy, ox] = sum_i wy[oy, i] * sum_j wx[ox, j] * x[p, iy[oy, i], ix[ox, j]]
//
// with the taps of both axes (resizeTaps: 2 for nearest, one of them
// weighted 0 as in ONNX's reference, 2 for linear, 4 for cubic) computed at
// compile time and kept as constant tables in the code's read-only data.
// Lowering leaves Resize to this kernel when it resizes only the last two
// axes of an f32 tensor. Outputs outside a tf_crop_and_resize roi take
// extrapolation_value.
//
// Where every vector of output columns reads input columns within one vector
// (upsampling, as segmentation heads do), an output row is vectors: the
// input rows' run of columns blended by the row weights, then each column
// tap a constant shuffle of that run times a constant weights vector. Else
// the loop over output columns reads the column tables and vectorizes with
// gathers. A run of vectors that repeats, shifted (an integer scale), is one
// loop.
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/Kernels.h"
#include "compiler/codegen/kernels/IntegerIR.h"
#include "compiler/ops/OpGeometry.h"
#include "compiler/ops/OpViews.h"

#include "llvm/ADT/STLExtras.h"

namespace kiln {
namespace codegen {

namespace {

/// One axis' taps as constant tables: input offsets (index * `stride`,
/// i32) and weights (f32), `taps` per output position; and, when some
/// output lies outside the roi, a 0/1 f32 table of the positions inside.
struct AxisTables {
  int64_t taps;
  llvm::Value *offsets, *weights, *inside = nullptr;
};

AxisTables axisTables(IntegerIR &ir, const ResizeTaps &a, int64_t stride,
                      const llvm::Twine &name) {
  int64_t positions = a.outside.size();
  llvm::SmallVector<int32_t, 64> offsets;
  for (int64_t i : a.indices)
    offsets.push_back(int32_t(i * stride));
  Tensor weights(TensorType(DType::F32, {int64_t(a.weights.size())}));
  for (size_t i = 0; i < a.weights.size(); ++i)
    weights.data<float>()[i] = float(a.weights[i]);
  AxisTables t{a.taps, ir.table(offsets, name + ".offsets"),
               ir.table(weights, name + ".weights")};
  if (llvm::is_contained(a.outside, true)) {
    Tensor inside(TensorType(DType::F32, {positions}));
    for (int64_t o = 0; o < positions; ++o)
      inside.data<float>()[o] = a.outside[o] ? 0.0f : 1.0f;
    t.inside = ir.table(inside, name + ".inside");
  }
  return t;
}

/// A vector of output columns from `start` (`outputs` of them) whose column
/// taps read input columns [first, first + inputs): tap t of lane l reads
/// column first + lanes[t][l], weighted weights[t][l].
struct ColumnVector {
  int64_t start, first;
  unsigned outputs, inputs;
  llvm::SmallVector<llvm::SmallVector<int, 16>, 4> lanes;
  llvm::SmallVector<llvm::SmallVector<float, 16>, 4> weights;
};

/// The most column vectors an output row emits (each has its own shuffles):
/// a run of vectors that repeats shifted is emitted once, as a loop.
constexpr int64_t kMaxColumnVectors = 64;

/// The longest period, in vectors, of a repeating run of column vectors.
constexpr size_t kMaxColumnPeriod = 8;

/// Whether `a` reads and weights as `b` does, `shift` input columns on.
bool sameLanes(const ColumnVector &a, const ColumnVector &b, int64_t shift) {
  return a.first + shift == b.first && a.outputs == b.outputs && a.inputs == b.inputs &&
         a.lanes == b.lanes && a.weights == b.weights;
}

/// `repeats` copies of the `period` vectors from `at`, each `shift` input
/// columns after the one before (repeats 1: the vectors as they are).
struct ColumnRun {
  size_t at, period;
  int64_t repeats, shift;
};

/// The output row's ColumnVectors of `lanes`, or none where a vector's taps
/// span more input columns than a vector (downsampling), a position is
/// outside the roi, or there are no vectors.
std::optional<llvm::SmallVector<ColumnVector, 16>>
columnVectors(const ResizeTaps &cols, int64_t inW, unsigned lanes) {
  const int64_t outW = cols.outside.size();
  if (lanes < 4 || llvm::is_contained(cols.outside, true))
    return std::nullopt;
  llvm::SmallVector<ColumnVector, 16> vectors;
  for (int64_t start = 0; start < outW; start += lanes) {
    ColumnVector v;
    v.start = start;
    v.outputs = unsigned(std::min<int64_t>(lanes, outW - start));
    auto taps = llvm::ArrayRef<int64_t>(cols.indices)
                    .slice(start * cols.taps, v.outputs * cols.taps);
    v.first = *llvm::min_element(taps);
    int64_t last = *llvm::max_element(taps);
    if (last - v.first >= lanes)
      return std::nullopt;
    v.inputs = unsigned(std::min<int64_t>(lanes, inW - v.first));
    for (int64_t t = 0; t < cols.taps; ++t) {
      llvm::SmallVector<int, 16> at(lanes, 0);
      llvm::SmallVector<float, 16> w(lanes, 0.0f);
      for (unsigned l = 0; l < v.outputs; ++l) {
        at[l] = int(cols.indices[(start + l) * cols.taps + t] - v.first);
        w[l] = float(cols.weights[(start + l) * cols.taps + t]);
      }
      v.lanes.push_back(std::move(at));
      v.weights.push_back(std::move(w));
    }
    vectors.push_back(std::move(v));
  }
  return vectors;
}

/// `vectors` as runs: where the next vectors repeat with a period of up to
/// kMaxColumnPeriod at least three times, one run of them; else single
/// vectors. None when the runs emit more than kMaxColumnVectors vectors.
std::optional<llvm::SmallVector<ColumnRun, 8>> columnRuns(llvm::ArrayRef<ColumnVector> vectors) {
  llvm::SmallVector<ColumnRun, 8> runs;
  int64_t emitted = 0;
  for (size_t at = 0; at < vectors.size();) {
    ColumnRun best{at, 1, 1, 0};
    for (size_t period = 1; period <= kMaxColumnPeriod && at + 2 * period <= vectors.size();
         ++period) {
      int64_t shift = vectors[at + period].first - vectors[at].first;
      int64_t repeats = 1;
      auto repeated = [&](int64_t r) {
        for (size_t i = 0; i < period; ++i)
          if (!sameLanes(vectors[at + i], vectors[at + r * period + i], r * shift))
            return false;
        return true;
      };
      while (at + (repeats + 1) * period <= vectors.size() && repeated(repeats))
        ++repeats;
      if (repeats >= 3 && repeats * period > best.repeats * best.period)
        best = {at, period, repeats, shift};
    }
    runs.push_back(best);
    emitted += best.period;
    at += best.period * best.repeats;
  }
  if (emitted > kMaxColumnVectors)
    return std::nullopt;
  return runs;
}

} // namespace

llvm::Error emitResize(KernelBuilder &kb, const KernelArgs &args) {
  const Node &n = args.node;
  ResizeView resize(n);
  if (auto e = requireF32(n, resize.input()))
    return e;
  const TensorType &xt = resize.input()->getType();
  const TensorType &yt = n.getOutput()->getType();
  size_t rank = xt.rank();
  std::vector<ResizeTaps> taps = resizeTaps(n);
  int64_t inH = xt.shape[rank - 2], inW = xt.shape[rank - 1];
  int64_t outH = yt.shape[rank - 2], outW = yt.shape[rank - 1];
  int64_t planes = yt.numElements() / (outH * outW);

  IntegerIR ir(kb);
  AxisTables rows = axisTables(ir, taps[rank - 2], inW, "resize.rows");
  AxisTables cols = axisTables(ir, taps[rank - 1], 1, "resize.cols");
  auto &b = kb.b;
  llvm::Type *f32 = b.getFloatTy(), *i32 = b.getInt32Ty();
  llvm::Value *x = args.inputs[0], *y = args.outputs[0];
  llvm::Value *extrapolation = kb.f32(resize.extrapolationValue());
  const unsigned lanes = kb.vec.lanes;
  std::optional<llvm::SmallVector<ColumnVector, 16>> vectors;
  std::optional<llvm::SmallVector<ColumnRun, 8>> runs;
  if (!rows.inside && (vectors = columnVectors(taps[rank - 1], inW, lanes)))
    runs = columnRuns(*vectors);
  if (runs) {
    kb.nest({planes, outH}, [&](llvm::ArrayRef<llvm::Value *> iv) {
      llvm::Value *plane = b.CreateMul(iv[0], kb.idx(inH * inW));
      llvm::SmallVector<llvm::Value *, 4> rowAt, rowWeight;
      for (int64_t i = 0; i < rows.taps; ++i) {
        llvm::Value *at = b.CreateAdd(b.CreateMul(iv[1], kb.idx(rows.taps)), kb.idx(i));
        rowAt.push_back(b.CreateAdd(
            plane, b.CreateZExtOrTrunc(kb.load(i32, rows.offsets, at), kb.idxTy)));
        rowWeight.push_back(kb.splat(kb.load(f32, rows.weights, at), lanes));
      }
      llvm::Value *outRow = kb.linear(iv, {outH * outW, outW});
      // Vector `v`, its input columns `shift` and its output columns
      // `step` after its own.
      auto emitVector = [&](const ColumnVector &v, llvm::Value *shift, llvm::Value *step) {
        llvm::Value *run = nullptr;
        for (int64_t i = 0; i < rows.taps; ++i) {
          llvm::Value *from = b.CreateAdd(rowAt[i], b.CreateAdd(shift, kb.idx(v.first)));
          llvm::Value *r = kb.loadVec(x, from, lanes, v.inputs);
          run = run ? kb.fma(rowWeight[i], r, run) : b.CreateFMul(rowWeight[i], r);
        }
        llvm::Value *acc = nullptr;
        for (size_t t = 0; t < v.lanes.size(); ++t) {
          llvm::Value *tap = b.CreateShuffleVector(run, v.lanes[t]);
          llvm::Value *w = llvm::ConstantDataVector::get(b.getContext(), v.weights[t]);
          acc = acc ? kb.fma(w, tap, acc) : b.CreateFMul(w, tap);
        }
        kb.storeVec(acc, y, b.CreateAdd(outRow, b.CreateAdd(step, kb.idx(v.start))),
                    v.outputs);
      };
      for (const ColumnRun &r : *runs) {
        auto body = [&](llvm::Value *k) {
          for (size_t i = 0; i < r.period; ++i)
            emitVector((*vectors)[r.at + i], b.CreateMul(k, kb.idx(r.shift)),
                       b.CreateMul(k, kb.idx(int64_t(r.period) * lanes)));
        };
        if (r.repeats == 1)
          body(kb.idx(0));
        else
          kb.loop(r.repeats, body);
      }
    });
    return llvm::Error::success();
  }
  kb.nest({planes, outH, outW}, [&](llvm::ArrayRef<llvm::Value *> iv) {
    llvm::Value *plane = b.CreateMul(iv[0], kb.idx(inH * inW));
    llvm::Value *acc = nullptr;
    for (int64_t i = 0; i < rows.taps; ++i) {
      llvm::Value *at = b.CreateAdd(b.CreateMul(iv[1], kb.idx(rows.taps)), kb.idx(i));
      llvm::Value *row = b.CreateAdd(
          plane, b.CreateZExtOrTrunc(kb.load(i32, rows.offsets, at), kb.idxTy));
      llvm::Value *inner = nullptr;
      for (int64_t j = 0; j < cols.taps; ++j) {
        llvm::Value *ct = b.CreateAdd(b.CreateMul(iv[2], kb.idx(cols.taps)), kb.idx(j));
        llvm::Value *col = b.CreateZExtOrTrunc(kb.load(i32, cols.offsets, ct), kb.idxTy);
        llvm::Value *v = kb.load(f32, x, b.CreateAdd(row, col));
        llvm::Value *w = kb.load(f32, cols.weights, ct);
        inner = inner ? kb.fma(w, v, inner) : b.CreateFMul(w, v);
      }
      llvm::Value *w = kb.load(f32, rows.weights, at);
      acc = acc ? kb.fma(w, inner, acc) : b.CreateFMul(w, inner);
    }
    for (auto [axis, t] : {std::pair{iv[1], &rows}, std::pair{iv[2], &cols}})
      if (t->inside)
        acc = b.CreateSelect(
            b.CreateFCmpONE(kb.load(f32, t->inside, axis), kb.f32(0)), acc, extrapolation);
    kb.store(acc, y, kb.linear(iv, {outH * outW, outW, 1}));
  });
  return llvm::Error::success();
}

} // namespace codegen
} // namespace kiln
