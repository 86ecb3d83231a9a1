//===- KernelStrategy.cpp - Printing kernel strategies --------------------===//

#include "compiler/lir/KernelStrategy.h"

namespace kiln {
namespace lir {

const char *int8DotName(Int8Dot dot) {
  switch (dot) {
  case Int8Dot::Scalar: return "scalar";
  case Int8Dot::ArmDsp: return "smlad";
  case Int8Dot::Pmaddwd: return "pmaddwd";
  case Int8Dot::Sdot: return "sdot";
  case Int8Dot::Vnni: return "vnni";
  case Int8Dot::Vnni512: return "vnni512";
  case Int8Dot::Smmla: return "smmla";
  case Int8Dot::Smlal: return "smlal";
  }
  return "";
}

namespace {

/// " tile c14x2 r2 b120 k256": a Conv's orientation (`oriented`: c for
/// channels on the lanes, p for pixels), rows x vectors, then its span,
/// block and K block where it has them, and a MatMul's columns-outer order;
/// nothing where none was chosen (a Conv that is not 2-D).
void printRegisterTile(const RegisterTile &t, bool oriented, llvm::raw_ostream &os) {
  if (!t.rows)
    return;
  os << " tile ";
  if (oriented)
    os << (t.channelsOnLanes ? 'c' : 'p');
  os << t.rows << 'x' << t.vecs;
  if (t.span)
    os << " r" << t.span;
  if (t.block)
    os << " b" << t.block;
  if (t.kBlock)
    os << " k" << t.kBlock;
  if (t.columnsOuter)
    os << " columns-outer";
}

/// " skips padding rows", "... columns" or "... rows and columns".
void printSkippedPadding(const KernelStrategy &s, llvm::raw_ostream &os) {
  if (!s.skipsPaddingRows && !s.skipsPaddingColumns)
    return;
  os << " skips padding "
     << (!s.skipsPaddingColumns ? "rows" : !s.skipsPaddingRows ? "columns" : "rows and columns");
}

} // namespace

void printStrategy(const KernelStrategy &s, llvm::raw_ostream &os) {
  using Kind = KernelStrategy::Kind;
  switch (s.kind) {
  case Kind::Default: return;
  case Kind::Winograd:
    os << "winograd F(" << s.winograd.mh << 'x' << s.winograd.mw << ',' << s.winograd.rh << 'x'
       << s.winograd.rw << ')';
    if (s.transformsWeights)
      os << " of run-time weights";
    printRegisterTile(s.registerTile, false, os);
    return;
  case Kind::Direct:
  case Kind::Pointwise:
    os << (s.is(Kind::Pointwise) ? "1x1 gemm" : s.packedWeights ? "direct" : "direct unpacked");
    if (s.tile)
      os << " panels " << s.tile;
    printRegisterTile(s.registerTile, true, os);
    printSkippedPadding(s, os);
    if (s.bandRows)
      os << " + depthwise rows in bands of " << s.bandRows;
    if (s.bandProjection.rows) {
      os << " + 1x1 gemm";
      printRegisterTile(s.bandProjection, true, os);
    }
    return;
  case Kind::Grouped:
    os << "grouped gemm";
    printRegisterTile(s.registerTile, true, os);
    printSkippedPadding(s, os);
    return;
  case Kind::Gemm:
    os << "gemm";
    printRegisterTile(s.registerTile, false, os);
    if (s.packedWeights)
      os << " b-strips " << s.tile;
    return;
  case Kind::DepthwiseRows: os << "depthwise rows"; return;
  case Kind::DepthwiseChannelBlock: os << "depthwise channel-block " << s.tile; return;
  case Kind::DepthwisePlane: os << "depthwise plane " << s.tile; return;
  case Kind::PlanePool: os << (s.separable ? "plane separable" : "plane"); return;
  case Kind::GenericPool: os << "generic"; return;
  case Kind::Int8:
    os << "int8";
    if (s.tile)
      os << " x" << s.tile;
    if (s.packedWeights)
      os << " packed";
    if (s.dot != Int8Dot::Scalar)
      os << ' ' << int8DotName(s.dot);
    return;
  case Kind::Int8Depthwise:
    if (s.tile) {
      os << "int8 depthwise channel-block " << s.tile
         << (s.dot == Int8Dot::Smlal              ? " smlal"
             : s.tile == kVnni512PixelLanes ? " avx512"
                                            : " avx2")
         << (s.tileCols ? " pairs" : "");
      return;
    }
    if (s.int8DepthwiseRowLanes()) {
      os << "int8 depthwise padded rows " << s.tileCols
         << (s.tileCols == kVnni512PixelLanes ? " avx512" : " avx2") << " pairs";
      return;
    }
    os << "int8 depthwise padded" << (s.dot == Int8Dot::ArmDsp ? " smlad" : "");
    if (s.tileCols)
      os << " 3x3 1x" << s.tileCols;
    return;
  case Kind::Int8Gemm:
    os << "int8 gemm " << s.tile << 'x' << s.tileCols << ' ' << int8DotName(s.dot);
    if (s.columns == Int8Columns::InputRuns)
      os << " input";
    else if (s.columns == Int8Columns::PlaneRuns)
      os << " planes";
    else if (s.columns == Int8Columns::PlaneWords)
      os << " plane-words";
    else if (s.columns == Int8Columns::GatheredChannelsLast)
      os << " nhwc";
    else if (s.columns == Int8Columns::ChannelLanes)
      os << " channel-lanes";
    if (s.unroll)
      os << " unroll " << s.unroll;
    return;
  }
}

} // namespace lir
} // namespace kiln
