//===- PlanePoolKernel.cpp - 2-D pooling, vectorized along output rows ----===//
//
// MaxPool and AveragePool over f32 NCHW planes (strategy PlanePool), the
// common case, one plane at a time: the plane is copied with its padding
// (-inf for max, 0 for average) into a column-phase-split temp
// (ConvInput.h), so each window tap of consecutive outputs is one unaligned
// vector load with no bounds check, whatever the stride; then every output
// row is computed in chunks of vectors. A separable pool (the strategy's
// `separable`) first reduces the rows of each output row's windows into the
// temp's row where they start, then the columns of that row. A global pool
// (one output per plane) reduces the plane in place with a few vector
// accumulators and a shuffle tree. An average whose windows count different
// numbers of taps (padding not counted, or ceil_mode windows past the padded
// input) multiplies by a constant row of reciprocals, one per run of output
// rows that count as many rows. Other pooling (integer types, three
// dimensions) goes to the generic emitPool.
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/kernels/ConvInput.h"
#include "compiler/ops/OpViews.h"

#include <llvm/IR/Constants.h>

#include <limits>

namespace kiln {
namespace codegen {

namespace {

/// Vectors per chunk of an output row, and accumulators of a global pool.
constexpr int64_t kChunkVecs = 4;

/// Output rows [begin, end) whose windows count the same number of rows, and
/// for an average whose windows count different numbers of taps, the factor
/// of each output column: 1 / (rows x columns counted).
struct RowRun {
  int64_t begin, end;
  std::vector<float> reciprocals;
};

/// Taps an average counts of the window at output `o` along spatial dimension
/// `d`: those inside the input, or with count_include_pad those inside the
/// padded input (a ceil_mode window may reach past both).
int64_t countedTaps(const WindowView &window, bool includePad, int d, int64_t o) {
  int64_t in = window.input()->getType().shape[2 + d];
  int64_t lo = includePad ? -window.pads(d) : 0;
  int64_t hi = in + (includePad ? window.pads(d + 2) : 0);
  int64_t count = 0;
  for (int64_t k = 0; k < window.kernelShape(d); ++k) {
    int64_t at = o * window.strides(d) - window.pads(d) + k * window.dilations(d);
    count += at >= lo && at < hi;
  }
  return count;
}

std::vector<RowRun> rowRuns(const Node &n, bool isMax) {
  WindowView window(n);
  const Shape &y = n.getOutput()->getType().shape;
  const int64_t OH = y[2], OW = y[3];
  if (isMax)
    return {RowRun{0, OH, {}}};
  bool includePad = AveragePoolView(n).countIncludePad() != 0;
  auto rowTaps = [&](int64_t oh) { return countedTaps(window, includePad, 0, oh); };
  llvm::SmallVector<int64_t, 64> columnTaps;
  for (int64_t ow = 0; ow < OW; ++ow)
    columnTaps.push_back(countedTaps(window, includePad, 1, ow));
  const int64_t KH = window.kernelShape(0), KW = window.kernelShape(1);
  bool uniform = llvm::all_of(columnTaps, [&](int64_t c) { return c == KW; });
  for (int64_t oh = 0; oh < OH; ++oh)
    uniform &= rowTaps(oh) == KH;
  if (uniform)
    return {RowRun{0, OH, {}}};
  std::vector<RowRun> runs;
  for (int64_t oh = 0; oh < OH; ++oh) {
    if (!runs.empty() && rowTaps(oh) == rowTaps(runs.back().begin)) {
      runs.back().end = oh + 1;
      continue;
    }
    RowRun run{oh, oh + 1, {}};
    for (int64_t c : columnTaps)
      run.reciprocals.push_back(float(1.0 / double(rowTaps(oh) * c)));
    runs.push_back(std::move(run));
  }
  return runs;
}
} // namespace

llvm::Error emitPlanePool(KernelBuilder &kb, const KernelArgs &args) {
  const Node &n = args.node;
  if (!args.strategy.is(lir::KernelStrategy::Kind::PlanePool))
    return emitPool(kb, args);
  WindowView window(n);
  const TensorType &xt = window.input()->getType();
  const TensorType &yt = n.getOutput()->getType();
  const int64_t planes = xt.shape[0] * xt.shape[1], H = xt.shape[2], W = xt.shape[3];
  const int64_t OH = yt.shape[2], OW = yt.shape[3];
  const int64_t KH = window.kernelShape(0), KW = window.kernelShape(1);
  const int64_t sh = window.strides(0);
  const int64_t dh = window.dilations(0), dw = window.dilations(1);
  const int64_t pt = window.pads(0), pl = window.pads(1);
  const bool isMax = n.is(OpKind::MaxPool);
  const unsigned lanes = kb.vec.lanes;
  auto &b = kb.b;
  llvm::Value *x = args.inputs[0], *y = args.outputs[0];
  llvm::Value *fill = kb.f32(isMax ? -std::numeric_limits<float>::infinity() : 0.0f);
  llvm::Value *scale = kb.splat(kb.f32(1.0f / float(KH * KW)), lanes);
  auto combine = [&](llvm::Value *acc, llvm::Value *v) {
    return isMax ? kb.maxF(acc, v) : b.CreateFAdd(acc, v);
  };
  auto add = [&](llvm::Value *a, int64_t c) { return b.CreateAdd(a, kb.idx(c)); };
  auto mul = [&](llvm::Value *a, int64_t c) { return b.CreateMul(a, kb.idx(c)); };
  const lir::PaddedInput *layout = args.padded;
  if (layout && !args.temp)
    return nodeError(n, "padded pooling without a temp buffer");

  if (lir::isGlobalPool(n) && !layout) {
    // Global: the whole plane, in place.
    const int64_t size = H * W, chunk = kChunkVecs * lanes;
    kb.loop(planes, [&](llvm::Value *p) {
      llvm::Value *base = mul(p, size);
      llvm::SmallVector<llvm::Value *, 4> acc(kChunkVecs, kb.splat(fill, lanes));
      acc = kb.loopCarried(size / chunk, acc, [&](llvm::Value *i, llvm::ArrayRef<llvm::Value *> in) {
        llvm::SmallVector<llvm::Value *, 32> next;
        for (int64_t j = 0; j < kChunkVecs; ++j)
          next.push_back(combine(in[j], kb.loadVec(x, add(b.CreateAdd(base, mul(i, chunk)), j * lanes),
                                                   lanes, lanes)));
        return next;
      });
      for (int64_t at = size / chunk * chunk, j = 0; at < size; at += lanes, ++j) {
        unsigned valid = static_cast<unsigned>(std::min<int64_t>(lanes, size - at));
        llvm::Value *v = kb.loadVec(x, add(base, at), lanes, valid);
        if (valid < lanes) // the lanes past the plane read as 0: make them neutral
          v = b.CreateSelect(kb.laneMask(lanes, valid), v, kb.splat(fill, lanes));
        acc[j % kChunkVecs] = combine(acc[j % kChunkVecs], v);
      }
      llvm::Value *sum = acc[0];
      for (int64_t j = 1; j < kChunkVecs; ++j)
        sum = combine(sum, acc[j]);
      llvm::Value *r = kb.reduceLanes(sum, combine);
      kb.store(isMax ? r : b.CreateFMul(r, kb.f32(1.0f / float(size))), y, p);
    });
    return llvm::Error::success();
  }

  int64_t rowStride = layout ? layout->rowStride() : W;
  int64_t phases = layout ? layout->phases : 1, phaseWidth = layout ? layout->phaseWidth : W;
  auto tap = [&](int64_t kh, int64_t kw) {
    return kh * dh * rowStride + (kw * dw) % phases * phaseWidth + (kw * dw) / phases;
  };
  // Runs `piece(first, count)` over [0, extent) in chunks of up to
  // kChunkVecs vectors, the last one partial.
  auto chunked = [&](int64_t extent, llvm::function_ref<void(llvm::Value *, int64_t)> piece) {
    const int64_t chunk = std::min<int64_t>(kChunkVecs, (extent + lanes - 1) / lanes) * lanes;
    int64_t full = extent / chunk, edge = extent % chunk;
    if (full)
      forEachIndex(kb, full, [&](llvm::Value *c) { piece(mul(c, chunk), chunk); });
    if (edge)
      piece(kb.idx(full * chunk), edge);
  };
  const bool separable = args.strategy.separable;
  if (separable && !layout)
    return nodeError(n, "a separable pool without its padded copy");
  const std::vector<RowRun> runs = rowRuns(n, isMax);
  kb.loop(planes, [&](llvm::Value *p) {
    llvm::Value *src = layout ? args.temp : x;
    llvm::Value *origin = layout ? kb.idx(0) : mul(p, H * W);
    if (layout)
      emitPaddedCopy(kb, *layout, x, mul(p, H * W), 1, H, W, pt, pl, args.temp, fill);
    if (separable)
      kb.loop(OH, [&](llvm::Value *oh) {
        llvm::Value *row = mul(oh, sh * rowStride);
        chunked(rowStride, [&](llvm::Value *c0, int64_t count) {
          for (int64_t at = 0; at < count; at += lanes) {
            unsigned valid = static_cast<unsigned>(std::min<int64_t>(lanes, count - at));
            llvm::Value *first = add(b.CreateAdd(row, c0), at);
            llvm::Value *acc = kb.loadVec(src, first, lanes, valid);
            for (int64_t kh = 1; kh < KH; ++kh)
              acc = combine(acc, kb.loadVec(src, add(first, tap(kh, 0)), lanes, valid));
            kb.storeVec(acc, src, first, valid);
          }
        });
      });
    const int64_t rowTaps = separable ? 1 : KH;
    llvm::Value *out = mul(p, OH * OW);
    for (const RowRun &run : runs) {
      llvm::Value *reciprocals =
          run.reciprocals.empty()
              ? nullptr
              : kb.constantTable(llvm::ConstantDataArray::get(b.getContext(), run.reciprocals),
                                 "pool.reciprocals");
      kb.loop(run.end - run.begin, [&](llvm::Value *i) {
        llvm::Value *oh = add(i, run.begin);
        llvm::Value *row = b.CreateAdd(origin, mul(oh, sh * rowStride));
        llvm::Value *outRow = b.CreateAdd(out, mul(oh, OW));
        chunked(OW, [&](llvm::Value *ow0, int64_t count) {
          for (int64_t at = 0; at < count; at += lanes) {
            unsigned valid = static_cast<unsigned>(std::min<int64_t>(lanes, count - at));
            llvm::Value *acc = nullptr;
            for (int64_t kh = 0; kh < rowTaps; ++kh)
              for (int64_t kw = 0; kw < KW; ++kw) {
                llvm::Value *v =
                    kb.loadVec(src, add(b.CreateAdd(row, ow0), at + tap(kh, kw)), lanes, valid);
                acc = acc ? combine(acc, v) : v;
              }
            if (reciprocals)
              acc = b.CreateFMul(acc, kb.loadVec(reciprocals, add(ow0, at), lanes, valid));
            else if (!isMax)
              acc = b.CreateFMul(acc, scale);
            kb.storeVec(acc, y, add(b.CreateAdd(outRow, ow0), at), valid);
          }
        });
      });
    }
  });
  return llvm::Error::success();
}

} // namespace codegen
} // namespace kiln
