//===- ConvKernel.cpp - 2-D convolution as a register-tiled GEMM ----------===//
//
// Per group, a convolution is a matrix product: (output channels x pixels) =
// (output channels x taps) times the input gathered at every pixel's taps.
// The gather is never materialized: each tap of a pixel is a constant offset
// in the input view (ConvInput.h), so a tile's K loop reads the input where
// it lies. The register tile (RegisterTile.h) has two orientations:
//
//  - pixels on the vector lanes ("p"): tile rows are output channels, each a
//    broadcast weight, and the vectors are a run of one output row (or of
//    the whole plane when its pixels are consecutive in the view, as for 1x1
//    convolutions). Results are plain vector stores into the NCHW output.
//  - output channels on the lanes ("c"): tile rows are pixels of an output
//    row, each a broadcast input value, and the vectors are weights packed
//    tap-major at compile time (lir::Packing::ConvTapMajor). Small images
//    and any channel count that fills the lanes suit it; the tile is
//    transposed on its way to the NCHW output.
//
// The orientation, tile shape and blocks are the strategy's register tile,
// chosen by kernel selection's cost model (lir/RegisterTiles.h); the kernel
// function is renamed after it, e.g. kiln.3.conv.c14x2v16.
// Bias seeds the accumulators and the fused activation runs on them before
// the store.
//
// An input larger than the cache is cut into blocks of output rows (or, for
// a plane read as one row, of pixels) whose input fits in L2; every output
// channel tile passes over a block before the next one starts, so the input
// comes from memory once instead of once per channel tile. The kernel name
// then ends in the block, e.g. kiln.6.conv.p4x3v8b120.
//
// A grouped convolution with the Grouped strategy runs group by group: the
// group's input is copied (padded) just before its tiles, so that they read
// it from cache (kiln.7.conv.g.c14x1v8).
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/kernels/ConvInput.h"
#include "compiler/codegen/kernels/RegisterTile.h"
#include "compiler/lir/RegisterTiles.h"
#include "compiler/lir/Winograd.h"
#include "compiler/ops/OpGeometry.h"

#include <algorithm>
#include <optional>

namespace kiln {
namespace codegen {

namespace {

/// Everything a tile of one instruction needs.
struct ConvEmitter {
  KernelBuilder &kb;
  const ConvShape &s;
  const ConvInputView &in;
  llvm::Value *w, *bias, *y;
  llvm::Value *outImage; ///< element offset of the image in y
  llvm::Value *g;
  bool packed;
  /// `in` views this group's channels only (the Grouped strategy).
  bool groupView;
  const ConvEpilogue &epilogue;
  /// A tile of one output row skips the kernel rows that read only its
  /// padding (rowTaps; KernelStrategy::skipsPaddingRows).
  bool clipRows = false;
  /// A channel tile skips, per kernel column, its pixels whose tap reads
  /// only padding (KernelStrategy::skipsPaddingColumns); its row's tiles
  /// are unrolled, so every tile's first column is a constant.
  bool clipColumns = false;
  /// Elements from one output channel's plane to the next in y: the Conv's
  /// OH x OW (0), or a whole image's where it computes a band of its rows.
  int64_t outPlane = 0;

  /// Where a tile of output row `oh` skips rows (clipRows, not a `span`
  /// tile of several rows): the kernel rows [begin, end) that read input
  /// rows, not the padding; the others would add only zeros. A dilated Conv
  /// on a small image reads padding with most of them (DeepLab's ASPP: 3x3
  /// of dilation 12 on 14x14).
  std::optional<std::pair<llvm::Value *, llvm::Value *>> rowTaps(llvm::Value *oh, bool span) {
    if (!clipRows || span)
      return std::nullopt;
    auto &b = kb.b;
    // Kernel row kh of output row oh reads padded row oh * sh + kh * dh,
    // input row oh * sh + kh * dh - pt.
    auto firstRow = [&](llvm::Value *rows) {
      llvm::Value *positive = b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, rows, kb.idx(0));
      return b.CreateUDiv(add(positive, s.dh - 1), kb.idx(s.dh));
    };
    llvm::Value *top = b.CreateSub(kb.idx(s.pt), mul(oh, s.sh));
    llvm::Value *begin = firstRow(top);
    llvm::Value *end = b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, firstRow(add(top, s.H)),
                                               kb.idx(s.KH));
    return std::pair(begin, end);
  }

  /// The pixels [first, last) of a tile of `count` pixels from output
  /// column `ow0` whose kernel column `kw` reads input columns.
  std::pair<unsigned, unsigned> columnTaps(int64_t ow0, unsigned count, int64_t kw) const {
    unsigned first = 0, last = count;
    while (first < last && !tapReadsInput(ow0 + first, kw, s.sw, s.pl, s.dw, s.W))
      ++first;
    while (last > first && !tapReadsInput(ow0 + last - 1, kw, s.sw, s.pl, s.dw, s.W))
      --last;
    return {first, last};
  }

  void store(llvm::Value *v, llvm::Value *index, unsigned valid) {
    epilogue.store(kb, v, y, index, valid);
  }

  bool prefetchesResidual() const { return epilogue.residual && kb.vec.prefetch; }

  /// Offsets of the vectors that cover a run of `pixels` pixels.
  llvm::SmallVector<int64_t, 32> pixelLines(unsigned pixels) {
    return stridedRows((pixels + kb.vec.lanes - 1) / kb.vec.lanes, kb.vec.lanes);
  }

  /// Prefetches the residual a tile's epilogue will read: for `channels`
  /// output channels from oc0, the vectors at `offsets` (ascending within
  /// each run) from `pixel`, a prefetch per cache line: vectors narrower
  /// than a line (AVX2's, NEON's) share one. A residual from a layer or more
  /// back has left the cache, and the tile's K loop hides the wait.
  /// Callers check prefetchesResidual first: on a core without prefetches
  /// the pixel's index, computed early, moved the schedule.
  void prefetchResidual(llvm::Value *oc0, int64_t channels, llvm::Value *pixel,
                        llvm::ArrayRef<int64_t> offsets) {
    llvm::SmallVector<int64_t, 32> lines;
    for (int64_t o : offsets)
      if (lines.empty() || o < lines.back() || o >= lines.back() + kLineFloats)
        lines.push_back(o);
    for (int64_t c = 0; c < channels; ++c)
      for (int64_t o : lines)
        kb.prefetch(epilogue.residual, add(outIndex(add(oc0, c), pixel), o));
  }

  /// The K loop of a tile: taps outermost (a run-time loop), input channels
  /// inside (a run-time loop over groups of lir::kConvUnrolledChannels, unrolled,
  /// then the rest). Unrolled steps read different input planes, so no two
  /// of them share an input address (see tileStep). `wIndex` is the weights
  /// index of the tile's first output channel at tap 0, channel 0; `xIndex`
  /// the input view index of its first pixel. Each step also prefetches
  /// the packed weights line at the same offset from every index in
  /// `prefetch` as its own from wIndex. `rows`: the kernel rows to run
  /// (rowTaps), else all. `ow0`: a channel tile's first output column where
  /// it skips padding columns (clipColumns): the loop is then over kernel
  /// rows, and each input channel's step runs every kernel column over the
  /// tile's pixels that read input (columnTaps).
  Tile reduce(const TileShape &t, Tile acc, bool weightsAreA, llvm::Value *wIndex,
              llvm::ArrayRef<int64_t> wOffsets, llvm::Value *xIndex,
              llvm::ArrayRef<int64_t> xOffsets, llvm::ArrayRef<llvm::Value *> prefetch = {},
              std::optional<std::pair<llvm::Value *, llvm::Value *>> rows = std::nullopt,
              std::optional<int64_t> ow0 = std::nullopt) {
    auto &b = kb.b;
    // Packed weights are blocks [tap][channel][kConvPackBlock]; unpacked
    // ones are [output channel][channel][tap].
    int64_t wTap = packed ? s.ICg * lir::kConvPackBlock : 1;
    int64_t wChannel = packed ? lir::kConvPackBlock : s.taps();
    // Tap `tap`'s input index (of the tile's first pixel, channel 0) and
    // weights offset.
    auto tapAt = [&](llvm::Value *tap) {
      llvm::Value *kh = b.CreateUDiv(tap, kb.idx(s.KW));
      llvm::Value *kwd = mul(b.CreateURem(tap, kb.idx(s.KW)), s.dw);
      llvm::Value *column = kwd;
      if (in.phases > 1)
        column = add(mul(b.CreateURem(kwd, kb.idx(in.phases)), in.phaseWidth),
                     b.CreateUDiv(kwd, kb.idx(in.phases)));
      llvm::Value *xTap = add(xIndex, add(mul(kh, s.dh * in.rowStride), column));
      return std::pair(xTap, b.CreateMul(tap, kb.idx(wTap)));
    };
    // Input channel `ic` of tap `at` (tapAt) for the tile `part` whose
    // pixels are at xOffsets `xs`.
    auto channelStep = [&](std::pair<llvm::Value *, llvm::Value *> at, llvm::Value *ic,
                           Tile sums, const TileShape &part, llvm::ArrayRef<int64_t> xs) {
      llvm::Value *x = add(at.first, mul(ic, in.planeStride));
      llvm::Value *wStep = add(at.second, mul(ic, wChannel));
      llvm::Value *wv = add(wIndex, wStep);
      for (llvm::Value *line : prefetch)
        kb.prefetch(w, add(line, wStep));
      return weightsAreA
                 ? tileStep(kb, part, std::move(sums), w, wv, wOffsets, in.base, x, xs)
                 : tileStep(kb, part, std::move(sums), in.base, x, xs, w, wv, wOffsets);
    };
    if (ow0) {
      assert(!weightsAreA && "columns are skipped in channel tiles");
      // Each kernel column's pixels [first, last) that read input.
      struct Part {
        int64_t kw;
        unsigned first, last;
      };
      llvm::SmallVector<Part, 8> parts;
      for (int64_t kw = 0; kw < s.KW; ++kw) {
        auto [first, last] = columnTaps(*ow0, t.rows, kw);
        if (first < last)
          parts.push_back({kw, first, last});
      }
      auto body = [&](llvm::Value *kh, llvm::ArrayRef<llvm::Value *> in0) {
        llvm::SmallVector<std::pair<llvm::Value *, llvm::Value *>, 8> taps;
        for (const Part &p : parts)
          taps.push_back(tapAt(add(mul(kh, s.KW), p.kw)));
        auto step = [&](Tile sums, llvm::Value *ic) {
          for (size_t i = 0; i < parts.size(); ++i) {
            const Part &p = parts[i];
            TileShape part = t;
            part.rows = p.last - p.first;
            auto from = sums.begin() + p.first * t.vecs, to = sums.begin() + p.last * t.vecs;
            Tile partSums = channelStep(taps[i], ic, Tile(from, to), part,
                                        xOffsets.slice(p.first, p.last - p.first));
            std::copy(partSums.begin(), partSums.end(), from);
          }
          return sums;
        };
        return reduceSteps(kb, s.ICg, lir::kConvUnrolledChannels, Tile(in0.begin(), in0.end()),
                           step);
      };
      if (rows)
        return kb.loopCarried(rows->first, rows->second, acc, body);
      return kb.loopCarried(s.KH, acc, body);
    }
    auto body = [&](llvm::Value *tap, llvm::ArrayRef<llvm::Value *> in0) {
      auto at = tapAt(tap);
      return reduceSteps(kb, s.ICg, lir::kConvUnrolledChannels, Tile(in0.begin(), in0.end()),
                         [&](Tile sums, llvm::Value *ic) {
                           return channelStep(at, ic, std::move(sums), t, xOffsets);
                         });
    };
    if (rows)
      return kb.loopCarried(mul(rows->first, s.KW), mul(rows->second, s.KW), acc, body);
    return kb.loopCarried(s.taps(), acc, body);
  }

  /// What a channel tile of `channels` output channels prefetches over
  /// `steps` K steps: from weights index `next`, the same steps of each of
  /// its packing blocks, moved back where they would pass the weights' end.
  llvm::SmallVector<llvm::Value *, 4> prefetchLines(llvm::Value *next, int64_t channels,
                                                    int64_t steps) {
    const int64_t packBlockElems = s.reduction() * lir::kConvPackBlock;
    const int64_t weightElems =
        lir::convTapMajorBytes({s.OC, s.ICg, s.KH, s.KW}, s.G) / sizeof(float);
    llvm::SmallVector<llvm::Value *, 4> lines;
    for (int64_t b = 0; b < std::max<int64_t>(1, channels / lir::kConvPackBlock); ++b)
      lines.push_back(kb.b.CreateBinaryIntrinsic(
          llvm::Intrinsic::umin, add(next, b * packBlockElems),
          kb.idx(weightElems - steps * lir::kConvPackBlock)));
    return lines;
  }

  /// Weights index of output channel oc0 (of the group) at tap 0, input
  /// channel 0.
  llvm::Value *weightIndex(llvm::Value *oc0) {
    if (!packed)
      return mul(add(mul(g, s.OCg), oc0), s.reduction());
    int64_t blockSize = s.reduction() * lir::kConvPackBlock;
    int64_t blocks = (s.OCg + lir::kConvPackBlock - 1) / lir::kConvPackBlock;
    llvm::Value *block = kb.b.CreateUDiv(oc0, kb.idx(lir::kConvPackBlock));
    llvm::Value *lane = kb.b.CreateURem(oc0, kb.idx(lir::kConvPackBlock));
    return add(mul(add(mul(g, blocks), block), blockSize), lane);
  }

  /// Offsets from weightIndex(oc0) of output channels oc0 + first + i *
  /// step, i < count. Tiles start where packing blocks and they agree: a
  /// tile within one block, or starting at a block.
  llvm::SmallVector<int64_t, 32> weightOffsets(unsigned count, int64_t step) {
    llvm::SmallVector<int64_t, 32> offsets;
    for (unsigned i = 0; i < count; ++i) {
      int64_t c = i * step;
      offsets.push_back(packed ? c / lir::kConvPackBlock * s.reduction() * lir::kConvPackBlock +
                                     c % lir::kConvPackBlock
                               : c * s.reduction());
    }
    return offsets;
  }

  llvm::Value *add(llvm::Value *a, llvm::Value *c) { return kb.b.CreateAdd(a, c); }
  llvm::Value *add(llvm::Value *a, int64_t c) { return kb.b.CreateAdd(a, kb.idx(c)); }
  llvm::Value *mul(llvm::Value *a, int64_t c) { return kb.b.CreateMul(a, kb.idx(c)); }

  /// Element index of output channel `oc` (within the group) at pixel
  /// offset `pixel` of the plane.
  llvm::Value *outIndex(llvm::Value *oc, llvm::Value *pixel) {
    llvm::Value *channel = add(mul(g, s.OCg), oc);
    return add(outImage, add(mul(channel, outPlane ? outPlane : s.OH * s.OW), pixel));
  }

  /// Input view index of output pixel `pixel0` of row `oh` of the group.
  llvm::Value *inIndex(llvm::Value *oh, llvm::Value *pixel0) {
    llvm::Value *group = groupView ? in.offset : add(in.offset, mul(g, s.ICg * in.planeStride));
    return add(group, add(mul(oh, s.sh * in.rowStride), mul(pixel0, in.pixelStep)));
  }

  /// Pixels on the lanes: `rows` output channels from oc0, `count` pixels
  /// from pixel0 of output row oh (pixel0 indexes the whole plane when the
  /// rows are flattened, oh being 0); or, when `span` > 0, `span` whole rows
  /// of `count` pixels from row oh.
  void pixelTile(unsigned rows, llvm::Value *oc0, llvm::Value *oh,
                 llvm::Value *pixel0, int64_t count, int64_t span = 0) {
    auto &b = kb.b;
    TileShape t = tileFor(rows, count, kb.vec.lanes);
    llvm::SmallVector<int64_t, 32> inOffsets = stridedRows(t.vecs, t.lanes);
    llvm::SmallVector<int64_t, 32> outOffsets = inOffsets;
    if (span) {
      t.period = t.vecs;
      for (int64_t r = 1; r < span; ++r)
        for (unsigned j = 0; j < t.period; ++j) {
          inOffsets.push_back(r * s.sh * in.rowStride + j * t.lanes);
          outOffsets.push_back(r * s.OW + j * t.lanes);
        }
      t.vecs *= static_cast<unsigned>(span);
    }
    Tile acc;
    for (unsigned i = 0; i < rows; ++i) {
      llvm::Value *init = bias ? kb.load(b.getFloatTy(), bias, add(add(mul(g, s.OCg), oc0), i))
                               : kb.f32(0);
      for (unsigned j = 0; j < t.vecs; ++j)
        acc.push_back(kb.splat(init, t.lanes));
    }
    if (prefetchesResidual())
      prefetchResidual(oc0, rows, add(mul(oh, s.OW), pixel0), outOffsets);
    acc = reduce(t, std::move(acc), true, weightIndex(oc0), weightOffsets(rows, 1),
                 inIndex(oh, pixel0), inOffsets, {}, rowTaps(oh, span));
    llvm::Value *pixel = add(mul(oh, s.OW), pixel0);
    for (unsigned i = 0; i < rows; ++i)
      for (unsigned j = 0; j < t.vecs; ++j)
        store(acc[i * t.vecs + j], add(outIndex(add(oc0, i), pixel), outOffsets[j]),
              t.valid(j));
  }

  /// Output channels on the lanes: `rows` pixels from ow0 of output row oh
  /// (flattened as for pixelTile; whole rows from oh when `span`), `count`
  /// output channels from oc0. It prefetches the next channel tile's
  /// weights, which its first pixel tile would otherwise wait for
  /// (panelTiles): regnet_x_400mf, whose grouped Convs run here, 4% faster.
  void channelTile(unsigned rows, bool span, llvm::Value *oh, llvm::Value *ow0,
                   llvm::Value *oc0, int64_t count) {
    TileShape t = tileFor(rows, count, kb.vec.lanes);
    // Pixel i of a span tile is column i % OW of its (i / OW)-th row.
    llvm::SmallVector<int64_t, 32> pixels;
    for (unsigned i = 0; i < rows; ++i)
      pixels.push_back((span ? i / s.OW * s.sh * in.rowStride + i % s.OW * in.pixelStep
                             : i * in.pixelStep));
    std::optional<int64_t> column;
    if (clipColumns && !span)
      column = llvm::cast<llvm::ConstantInt>(ow0)->getSExtValue();
    if (prefetchesResidual())
      prefetchResidual(oc0, count, add(mul(oh, s.OW), ow0), pixelLines(t.rows));
    Tile acc = reduce(t, channelInit(t, oc0), false, weightIndex(oc0),
                      weightOffsets(t.vecs, t.lanes), inIndex(oh, ow0), pixels,
                      prefetchLines(weightIndex(add(oc0, int64_t(t.vecs) * t.lanes)),
                                    t.vecs * t.lanes, s.reduction()),
                      rowTaps(oh, span), column);
    channelStore(t, std::move(acc), add(mul(oh, s.OW), ow0), oc0);
  }

  /// The accumulators of channel tile `t` from output channel oc0: the bias.
  Tile channelInit(const TileShape &t, llvm::Value *oc0) {
    Tile acc;
    llvm::SmallVector<llvm::Value *, 4> init;
    for (unsigned j = 0; j < t.vecs; ++j)
      init.push_back(bias ? kb.loadVec(bias, add(add(mul(g, s.OCg), oc0), j * t.lanes),
                                       t.lanes, t.valid(j))
                          : kb.splat(kb.f32(0), t.lanes));
    for (unsigned i = 0; i < t.rows; ++i)
      acc.append(init.begin(), init.end());
    return acc;
  }

  /// Stores channel tile `t` (its rows pixels from `pixel` of the plane,
  /// output channels from oc0) through the epilogue, transposed.
  void channelStore(const TileShape &t, Tile acc, llvm::Value *pixel, llvm::Value *oc0) {
    unsigned rows = t.rows;
    for (unsigned j = 0; j < t.vecs; ++j) {
      llvm::SmallVector<llvm::Value *, 16> column;
      for (unsigned i = 0; i < rows; ++i)
        column.push_back(acc[i * t.vecs + j]);
      for (unsigned r0 = 0; r0 < rows; r0 += t.lanes) {
        unsigned n = std::min(t.lanes, rows - r0);
        auto lanes = transposeVectors(
            kb, llvm::ArrayRef<llvm::Value *>(column).slice(r0, n), t.lanes);
        for (unsigned l = 0; l < t.valid(j); ++l)
          store(lanes[l], add(outIndex(add(oc0, j * t.lanes + l), pixel), r0), n);
      }
    }
  }

  /// The tiles of a Conv without panels, over the output rows `walk`:
  /// whole rows (`plan.span`), or blocks of rows (or of a plane's pixels)
  /// of `plan.block`.
  void rowTiles(const lir::RegisterTile &plan, const lir::ConvRows &walk) {
    const int64_t rowLen = walk.rowLen, numRows = walk.numRows;
    const int64_t vecElems = int64_t(plan.vecs) * kb.vec.lanes;
    if (plan.span) {
      // Output channels outermost: one tile's weights stay in cache while
      // the (small) input streams past them.
      if (plan.channelsOnLanes)
        forTiles(kb, s.OCg, vecElems, [&](llvm::Value *oc0, int64_t ocs) {
          forTiles(kb, numRows, plan.span, [&](llvm::Value *oh, int64_t rows) {
            channelTile(static_cast<unsigned>(rows * rowLen), true, oh, kb.idx(0),
                          oc0, ocs);
          });
        });
      else
        forTiles(kb, s.OCg, plan.rows, [&](llvm::Value *oc0, int64_t ocs) {
          forTiles(kb, numRows, plan.span, [&](llvm::Value *oh, int64_t rows) {
            pixelTile(static_cast<unsigned>(ocs), oc0, oh, kb.idx(0), rowLen, rows);
          });
        });
      return;
    }
    // The tiles of `rows` output rows from oh0, pixels [p0, p0 + pixels)
    // of each: output channels outermost, so that one tile's weights stay
    // in cache while the block's input streams past them.
    auto blockTiles = [&](llvm::Value *oh0, int64_t rows, llvm::Value *p0, int64_t pixels) {
      auto overPixels = [&](int64_t tile, auto body) {
        forEachIndex(kb, rows, [&](llvm::Value *r) {
          llvm::Value *oh = kb.b.CreateAdd(oh0, r);
          auto at = [&](llvm::Value *p, int64_t count) { body(oh, kb.b.CreateAdd(p0, p), count); };
          if (!clipColumns)
            return forTiles(kb, pixels, tile, at);
          // Each tile at a constant column (columnTaps).
          for (int64_t p = 0; p < pixels; p += tile)
            at(kb.idx(p), std::min(tile, pixels - p));
        });
      };
      if (plan.channelsOnLanes)
        forTiles(kb, s.OCg, vecElems, [&](llvm::Value *oc0, int64_t ocs) {
          overPixels(plan.rows, [&](llvm::Value *oh, llvm::Value *ow0, int64_t count) {
            channelTile(static_cast<unsigned>(count), false, oh, ow0, oc0, ocs);
          });
        });
      else
        forTiles(kb, s.OCg, plan.rows, [&](llvm::Value *oc0, int64_t ocs) {
          overPixels(vecElems, [&](llvm::Value *oh, llvm::Value *pixel0, int64_t count) {
            pixelTile(static_cast<unsigned>(ocs), oc0, oh, pixel0, count);
          });
        });
    };
    if (!plan.block)
      blockTiles(kb.idx(0), numRows, kb.idx(0), rowLen);
    else if (numRows == 1)
      forTiles(kb, rowLen, plan.block, [&](llvm::Value *p0, int64_t pixels) {
        blockTiles(kb.idx(0), 1, p0, pixels);
      });
    else
      forTiles(kb, numRows, plan.block, [&](llvm::Value *oh0, int64_t rows) {
        blockTiles(oh0, rows, kb.idx(0), rowLen);
      });
  }

  /// Copies the input (`in`, read in place) of `count` output pixels from
  /// `pixel0` to `panel` from element `at`, in the weights' K order: tap t
  /// of channel c at at + (t * ICg + c) * count, zero in the padding. Tiles
  /// start at multiples of `tileRows`, the register tile's pixels.
  void packPanel(llvm::Value *pixel0, int64_t count, unsigned tileRows, llvm::Value *panel,
                 llvm::Value *at) {
    auto &b = kb.b;
    bool padded = s.pt || s.pl || s.pb || s.pr;
    // A unit-stride 1x1 convolution's pixels are consecutive in its input:
    // vectors.
    if (s.taps() == 1 && !padded && s.sh * in.rowStride == s.OW && in.pixelStep == 1) {
      unsigned lanes = kb.vec.lanes;
      kb.loop(s.ICg, [&](llvm::Value *c) {
        llvm::Value *src = add(add(in.offset, pixel0), mul(c, in.planeStride));
        llvm::Value *dst = add(at, mul(c, count));
        for (int64_t i = 0; i < count; i += lanes) {
          unsigned valid = static_cast<unsigned>(std::min<int64_t>(lanes, count - i));
          kb.storeVec(kb.loadVec(in.base, add(src, i), lanes, valid), panel, add(dst, i), valid);
        }
      });
      return;
    }
    // Tiles start at multiples of tileRows: where that divides the row, each
    // lies within one output row (convRegisterTile prefers them), and each
    // tap of a channel is one run of an input row.
    if (s.OW % tileRows == 0) {
      packPanelRowRun(pixel0, count, panel, at);
      return;
    }
    kb.loop(s.taps(), [&](llvm::Value *tap) {
      llvm::Value *kh = b.CreateUDiv(tap, kb.idx(s.KW)), *kw = b.CreateURem(tap, kb.idx(s.KW));
      // Each pixel's tap in channel 0, and whether it is inside the image
      // (rows and columns before it wrap to large unsigned values); outside,
      // the panel gets 0 and the load reads the channel's first element.
      llvm::SmallVector<llvm::Value *, 32> from, inside;
      for (int64_t i = 0; i < count; ++i) {
        llvm::Value *pixel = add(pixel0, i);
        llvm::Value *ih = b.CreateSub(add(mul(b.CreateUDiv(pixel, kb.idx(s.OW)), s.sh),
                                          mul(kh, s.dh)), kb.idx(s.pt));
        llvm::Value *iw = b.CreateSub(add(mul(b.CreateURem(pixel, kb.idx(s.OW)), s.sw),
                                          mul(kw, s.dw)), kb.idx(s.pl));
        llvm::Value *ok = b.CreateAnd(b.CreateICmpULT(ih, kb.idx(s.H)),
                                      b.CreateICmpULT(iw, kb.idx(s.W)));
        inside.push_back(ok);
        from.push_back(b.CreateSelect(ok, add(in.offset, add(mul(ih, s.W), iw)), in.offset));
      }
      llvm::Value *tapAt = add(at, b.CreateMul(tap, kb.idx(s.ICg * count)));
      kb.loop(s.ICg, [&](llvm::Value *c) {
        llvm::Value *plane = mul(c, s.H * s.W), *dst = add(tapAt, mul(c, count));
        for (int64_t i = 0; i < count; ++i) {
          llvm::Value *v = kb.load(b.getFloatTy(), in.base, add(from[i], plane));
          if (padded)
            v = b.CreateSelect(inside[i], v, kb.f32(0));
          kb.store(v, panel, add(dst, i));
        }
      });
      // Over channels the loads stride a plane and the stores `count`
      // floats: on AVX-512 targets (znver5) LLVM's loop vectorizer made
      // this loop gathers and scatters, three quarters of the time of
      // resnet8_cifar's strided 3x3 layers, more than their FMAs. Each
      // channel's run of `count` stores is still the SLP vectorizer's.
      kb.noLoopVectorize();
    });
  }

  /// packPanel of `count` pixels of one output row: per tap and channel, one
  /// vector of the input row's (count - 1) * sw + 1 floats from the tap's
  /// first column, masked to the columns inside the image that the pixels
  /// read (all off for a row outside it), every sw-th lane kept.
  void packPanelRowRun(llvm::Value *pixel0, int64_t count, llvm::Value *panel,
                       llvm::Value *at) {
    auto &b = kb.b;
    llvm::Type *f32 = b.getFloatTy();
    const unsigned run = static_cast<unsigned>((count - 1) * s.sw + 1);
    auto *runTy = llvm::FixedVectorType::get(f32, run);
    llvm::SmallVector<int, 32> kept;
    llvm::SmallVector<llvm::Constant *, 32> offsets, keptLanes;
    for (unsigned l = 0; l < run; ++l) {
      offsets.push_back(llvm::ConstantInt::get(kb.idxTy, l));
      keptLanes.push_back(b.getInt1(l % s.sw == 0));
      if (l % s.sw == 0)
        kept.push_back(static_cast<int>(l));
    }
    llvm::Value *oh = b.CreateUDiv(pixel0, kb.idx(s.OW)), *ow = b.CreateURem(pixel0, kb.idx(s.OW));
    kb.loop(s.taps(), [&](llvm::Value *tap) {
      llvm::Value *kh = b.CreateUDiv(tap, kb.idx(s.KW)), *kw = b.CreateURem(tap, kb.idx(s.KW));
      // Rows and columns before the image wrap to large unsigned values.
      llvm::Value *ih = b.CreateSub(add(mul(oh, s.sh), mul(kh, s.dh)), kb.idx(s.pt));
      llvm::Value *iw = b.CreateSub(add(mul(ow, s.sw), mul(kw, s.dw)), kb.idx(s.pl));
      llvm::Value *columns = b.CreateAdd(b.CreateVectorSplat(run, iw),
                                         llvm::ConstantVector::get(offsets));
      llvm::Value *mask = b.CreateAnd(
          b.CreateAnd(b.CreateICmpULT(columns, b.CreateVectorSplat(run, kb.idx(s.W))),
                      llvm::ConstantVector::get(keptLanes)),
          b.CreateVectorSplat(run, b.CreateICmpULT(ih, kb.idx(s.H))));
      // Where the row is outside the image nothing is read: its offset may
      // be anything, so the address is computed without `inbounds`.
      llvm::Value *from = add(in.offset, b.CreateAdd(mul(ih, s.W), iw));
      llvm::Value *tapAt = add(at, b.CreateMul(tap, kb.idx(s.ICg * count)));
      kb.loop(s.ICg, [&](llvm::Value *c) {
        llvm::Value *ptr = b.CreateGEP(f32, in.base, add(from, mul(c, s.H * s.W)));
        llvm::Value *v = b.CreateMaskedLoad(runTy, ptr, llvm::Align(4), mask,
                                            llvm::Constant::getNullValue(runTy));
        if (s.sw > 1)
          v = b.CreateShuffleVector(v, kept);
        kb.storeVec(v, panel, add(tapAt, mul(c, count)), static_cast<unsigned>(count));
      });
      kb.noLoopVectorize();
    });
  }

  /// K steps [k0, k0 + steps) of channel tile `t` over a packed panel (its
  /// run of K x t.rows pixels from element xIndex of `panel`): the panel's K
  /// order is the packed weights', so K is one flat loop. Step k0 + i also
  /// prefetches the weights line at prefetch[b] + i * kConvPackBlock for
  /// every b.
  Tile reducePanel(const TileShape &t, Tile acc, llvm::Value *panel, llvm::Value *xIndex,
                   llvm::Value *wIndex, llvm::ArrayRef<int64_t> wOffsets, llvm::Value *k0,
                   int64_t steps, llvm::ArrayRef<llvm::Value *> prefetch) {
    llvm::SmallVector<int64_t, 32> pixels = stridedRows(t.rows, 1);
    auto step = [&](Tile sums, llvm::Value *k) {
      for (llvm::Value *line : prefetch)
        kb.prefetch(w, add(line, mul(k, lir::kConvPackBlock)));
      k = add(k0, k);
      return tileStep(kb, t, std::move(sums), panel, add(xIndex, mul(k, t.rows)), pixels, w,
                      add(wIndex, mul(k, lir::kConvPackBlock)), wOffsets);
    };
    return reduceSteps(kb, steps, lir::kConvUnrolledChannels, std::move(acc), step);
  }

  /// A Conv with packed panels: block by block of `tile.block` pixels, the
  /// block's input is packed into `panel` (lir::convPanelBytes) a tile of
  /// `tile.rows` pixels at a time, then every channel tile passes over the
  /// block's tiles, each reading its pixels as one run. With a K block
  /// (`tile.kBlock`), K runs in blocks, every pixel tile through one before
  /// the next, so that the block's weights stay in L1; the tiles' sums wait
  /// in the temp between them.
  ///
  /// The first pixel tile of a channel tile and K block reads its weights
  /// from memory, the others from L1. On the 7x7 planes of large layers that
  /// first tile waits: with the weights in cache the same loops ran 20%
  /// faster (Zen 5). So every tile also prefetches the weights of the next
  /// K block (after the last, the next channel tile's first), which spreads
  /// their reads over all the tiles of a block.
  void panelTiles(const lir::RegisterTile &tile, int64_t vecElems, llvm::Value *panel) {
    const unsigned rows = tile.rows;
    const int64_t block = tile.block, K = s.reduction();
    const int64_t kBlock = tile.kBlock ? tile.kBlock : K;
    const int64_t kBlocks = (K + kBlock - 1) / kBlock;
    llvm::Value *sums = kb.gep(kb.b.getFloatTy(), panel, kb.idx(block * K));
    forTiles(kb, s.OH * s.OW, block, [&](llvm::Value *p0, int64_t pixels) {
      forTiles(kb, pixels, rows, [&](llvm::Value *p, int64_t count) {
        packPanel(add(p0, p), count, rows, panel, mul(p, K));
      });
      forTiles(kb, s.OCg, vecElems, [&](llvm::Value *oc0, int64_t ocs) {
        llvm::Value *w0 = weightIndex(oc0);
        // K steps [k0, k0 + steps) of every tile: from the bias when
        // `first`, else from the sums; through the epilogue when `last`,
        // else back to the sums (tile at pixel p: from element p * vecElems).
        auto kBlockTiles = [&](llvm::Value *k0, int64_t steps, bool first, bool last) {
          llvm::SmallVector<llvm::Value *, 4> prefetch = prefetchLines(
              last ? weightIndex(add(oc0, vecElems))
                   : add(w0, mul(add(k0, kBlock), lir::kConvPackBlock)),
              vecElems, steps);
          forTiles(kb, pixels, rows, [&](llvm::Value *p, int64_t count) {
            TileShape t = tileFor(static_cast<unsigned>(count), ocs, kb.vec.lanes);
            llvm::Value *at = mul(p, vecElems);
            if (last && prefetchesResidual())
              prefetchResidual(oc0, ocs, add(p0, p), pixelLines(t.rows));
            Tile acc;
            if (first)
              acc = channelInit(t, oc0);
            else
              for (unsigned i = 0; i < t.rows * t.vecs; ++i)
                acc.push_back(kb.loadVec(sums, add(at, i * t.lanes), t.lanes, t.lanes));
            acc = reducePanel(t, std::move(acc), panel, mul(p, K), w0,
                              weightOffsets(t.vecs, t.lanes), k0, steps, prefetch);
            if (last)
              channelStore(t, std::move(acc), add(p0, p), oc0);
            else
              for (unsigned i = 0; i < t.rows * t.vecs; ++i)
                kb.storeVec(acc[i], sums, add(at, i * t.lanes), t.lanes);
          });
        };
        if (kBlocks == 1)
          return kBlockTiles(kb.idx(0), K, true, true);
        kBlockTiles(kb.idx(0), kBlock, true, false);
        if (kBlocks > 2)
          forEachIndex(kb, kBlocks - 2, [&](llvm::Value *j) {
            kBlockTiles(mul(add(j, 1), kBlock), kBlock, false, false);
          });
        kBlockTiles(kb.idx((kBlocks - 1) * kBlock), K - (kBlocks - 1) * kBlock, false, true);
      });
    });
  }
};

} // namespace

llvm::Error emitConv(KernelBuilder &kb, const KernelArgs &args) {
  if (auto e = checkConv(args))
    return e;
  const Node &n = args.node;
  using Kind = lir::KernelStrategy::Kind;
  switch (args.strategy.kind) {
  case Kind::DepthwiseRows:
  case Kind::DepthwiseChannelBlock:
  case Kind::DepthwisePlane: return emitDepthwiseConv(kb, args);
  case Kind::Winograd: return emitWinogradConv(kb, args);
  case Kind::Direct:
  case Kind::Pointwise:
  case Kind::Grouped: break;
  default: return nodeError(n, "a convolution without a convolution strategy");
  }
  const lir::RegisterTile &plan = args.strategy.registerTile;
  if (!plan.rows)
    return nodeError(n, "a convolution without a register tile");
  if (args.strategy.bandRows)
    return emitDepthwiseBands(kb, args);
  ConvShape s = ConvShape::of(n);
  bool packed = args.strategy.packedWeights;
  const lir::PaddedInput *layout = args.padded;
  const lir::ConvRows walk = lir::convRows(s, layout, args.strategy);
  bool grouped = args.strategy.is(Kind::Grouped);

  llvm::Function *fn = kb.b.GetInsertBlock()->getParent();
  TileShape full = tileFor(plan.rows, int64_t(plan.vecs) * kb.vec.lanes, kb.vec.lanes);
  if (plan.span && !plan.channelsOnLanes)
    full.vecs = plan.vecs;
  fn->setName(fn->getName() + (grouped ? ".g" : "") + (plan.channelsOnLanes ? ".c" : ".p") +
              full.str() +
              (plan.span ? "r" + std::to_string(plan.span) : "") +
              (plan.block ? (walk.panels ? "n" : "b") + std::to_string(plan.block) : ""));

  llvm::Value *bias = n.getNumInputs() > 2 ? args.inputs[2] : nullptr;
  ConvEpilogue epilogue = ConvEpilogue::of(args);
  int64_t vecElems = int64_t(plan.vecs) * kb.vec.lanes;
  forEachIndex(kb, s.N, [&](llvm::Value *image) {
    std::optional<ConvInputView> whole;
    if (!grouped)
      whole = emitConvInput(kb, s, layout, args.inputs[0], args.temp, image, kb.idx(0), s.C);
    forEachIndex(kb, s.G, [&](llvm::Value *g) {
      ConvInputView in = whole ? *whole
                               : emitConvInput(kb, s, layout, args.inputs[0], args.temp, image,
                                               kb.b.CreateMul(g, kb.idx(s.ICg)), s.ICg);
      // In place, a padded Conv's window origins start before the plane.
      if (args.strategy.readsNoPadding())
        in.offset = kb.b.CreateSub(in.offset, kb.idx(s.pt * s.W + s.pl));
      ConvEmitter e{kb, s, in, args.inputs[1], bias, args.outputs[0],
                    kb.b.CreateMul(image, kb.idx(s.OC * s.OH * s.OW)), g, packed,
                    grouped, epilogue};
      e.clipRows = args.strategy.skipsPaddingRows;
      e.clipColumns = args.strategy.skipsPaddingColumns;
      if (walk.panels) {
        e.panelTiles(plan, vecElems, args.temp);
        return;
      }
      e.rowTiles(plan, walk);
    });
  });
  return llvm::Error::success();
}

void emitConvRowTiles(KernelBuilder &kb, const ConvShape &s, const ConvInputView &in,
                      const lir::PaddedInput *layout, const lir::KernelStrategy &strategy,
                      llvm::Value *w, llvm::Value *bias, const ConvOutputView &out,
                      const ConvEpilogue &epilogue) {
  ConvEmitter e{kb, s, in, w, bias, out.y, out.offset, kb.idx(0), strategy.packedWeights, false,
                epilogue};
  e.outPlane = out.planeStride;
  e.rowTiles(strategy.registerTile, lir::convRows(s, layout, strategy));
}

} // namespace codegen
} // namespace kiln
