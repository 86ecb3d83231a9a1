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
  }
  return "";
}

void printStrategy(const KernelStrategy &s, llvm::raw_ostream &os) {
  using Kind = KernelStrategy::Kind;
  switch (s.kind) {
  case Kind::Default: return;
  case Kind::Winograd:
    os << "winograd F(" << s.tile << 'x' << s.tile << ",3x3)";
    return;
  case Kind::Direct:
    os << (s.packedWeights ? "direct" : "direct unpacked");
    if (s.tile)
      os << " panels " << s.tile;
    return;
  case Kind::Pointwise:
    os << "1x1 gemm";
    if (s.tile)
      os << " panels " << s.tile;
    return;
  case Kind::Grouped: os << "grouped gemm"; return;
  case Kind::DepthwiseRows: os << "depthwise rows"; return;
  case Kind::DepthwiseChannelBlock: os << "depthwise channel-block " << s.tile; return;
  case Kind::PlanePool: os << "plane"; return;
  case Kind::GenericPool: os << "generic"; return;
  case Kind::Int8:
    os << "int8";
    if (s.tile)
      os << " x" << s.tile;
    return;
  case Kind::Int8Depthwise:
    if (s.tile) {
      os << "int8 depthwise channel-block " << s.tile << " avx2";
      return;
    }
    os << "int8 depthwise padded" << (s.dot == Int8Dot::ArmDsp ? " smlad" : "");
    if (s.tileCols)
      os << " 3x3 1x" << s.tileCols;
    return;
  case Kind::Int8Gemm:
    os << "int8 gemm " << s.tile << 'x' << s.tileCols << ' ' << int8DotName(s.dot);
    if (s.unroll)
      os << " unroll " << s.unroll;
    return;
  }
}

} // namespace lir
} // namespace kiln
