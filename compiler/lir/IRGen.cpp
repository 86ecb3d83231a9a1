//===- IRGen.cpp - Graph to low-level IR ----------------------------------===//

#include "compiler/lir/LIR.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

namespace kiln {
namespace lir {

llvm::StringRef regionName(Region r) {
  switch (r) {
  case Region::Weights: return "weights";
  case Region::IO: return "io";
  case Region::Scratch: return "scratch";
  }
  return "?";
}

Buffer *Function::addBuffer(llvm::StringRef name, Region region,
                            uint64_t size) {
  buffers.push_back(std::make_unique<Buffer>());
  Buffer *b = buffers.back().get();
  b->id = buffers.size() - 1;
  b->name = name.str();
  b->region = region;
  b->size = size;
  return b;
}

namespace {

/// Bytes of the zero-padded input copy the Conv kernel works from, or 0.
uint64_t convTempBytes(const Node &n) {
  const Attr *pads = n.getAttr("pads");
  if (!pads || llvm::all_of(pads->getInts(), [](int64_t p) { return p == 0; }))
    return 0;
  const TensorType &in = n.getInput(0)->getType();
  llvm::ArrayRef<int64_t> p = pads->getInts();
  size_t spatial = in.rank() - 2;
  uint64_t elems = in.shape[0] * in.shape[1];
  for (size_t d = 0; d < spatial; ++d)
    elems *= in.shape[2 + d] + p[d] + p[d + spatial];
  return elems * dtypeSize(in.dtype);
}

class IRGen {
public:
  explicit IRGen(const Graph &g) : g_(g) { f_.name = g.getName().str(); }

  llvm::Expected<Function> run() {
    layOutIO();
    for (Node *n : g_.getNodes())
      if (auto err = genNode(*n))
        return std::move(err);
    genOutputCopies();
    return std::move(f_);
  }

private:
  static uint64_t alignUp(uint64_t x) {
    return llvm::alignTo(x, kBufferAlignment);
  }

  void layOutIO() {
    uint64_t offset = 0;
    for (Value *v : g_.getInputs()) {
      Buffer *b = f_.addBuffer(v->getName(), Region::IO, v->getType().sizeInBytes());
      b->offset = offset;
      offset = alignUp(offset + b->size);
      buffers_[v] = b;
      f_.inputs.push_back({v->getName().str(), v->getType(), b});
    }
    for (const GraphOutput &o : g_.getOutputs()) {
      Buffer *b = f_.addBuffer(o.name, Region::IO, o.value->getType().sizeInBytes());
      b->offset = offset;
      offset = alignUp(offset + b->size);
      f_.outputs.push_back({o.name, o.value->getType(), b});
      // A node result that is a graph output is written straight into the
      // I/O region (the first time it is listed; repeats are copied).
      Value *v = o.value;
      if (v->isResult() && !buffers_.count(v) && !v->getProducer()->is(OpKind::Reshape))
        buffers_[v] = b;
    }
    f_.ioSize = offset;
  }

  Buffer *bufferFor(Value *v) {
    auto it = buffers_.find(v);
    if (it != buffers_.end())
      return it->second;
    Buffer *b;
    if (v->isConstant()) {
      b = f_.addBuffer(v->getName(), Region::Weights, v->getType().sizeInBytes());
      b->constant = &v->getConstant();
      b->offset = f_.weightsSize;
      f_.weightsSize = alignUp(f_.weightsSize + b->size);
    } else {
      b = f_.addBuffer(v->getName(), Region::Scratch, v->getType().sizeInBytes());
    }
    buffers_[v] = b;
    return b;
  }

  llvm::Error genNode(const Node &n) {
    if (n.is(OpKind::Reshape)) {
      // A reshape of a row-major tensor is the same bytes: a view.
      Buffer *in = bufferFor(n.getInput(0));
      buffers_[n.getOutput(0)] = in;
      return llvm::Error::success();
    }
    Instr instr;
    instr.node = &n;
    for (Value *v : n.getInputs())
      instr.inputs.push_back(v ? bufferFor(v) : nullptr);
    for (Value *v : n.getOutputs())
      instr.outputs.push_back(bufferFor(v));
    if (n.is(OpKind::Conv))
      if (uint64_t bytes = convTempBytes(n))
        instr.temp = f_.addBuffer(n.getName().str() + ".padded",
                                  Region::Scratch, bytes);
    f_.instrs.push_back(std::move(instr));
    return llvm::Error::success();
  }

  /// Graph outputs whose bytes are not written in place by a kernel: graph
  /// inputs, constants, views, and values listed as outputs more than once.
  void genOutputCopies() {
    for (size_t i = 0; i < f_.outputs.size(); ++i) {
      Buffer *dst = f_.outputs[i].buffer;
      Buffer *src = bufferFor(g_.getOutputs()[i].value);
      if (src == dst)
        continue;
      Instr copy;
      copy.kind = Instr::Kind::Copy;
      copy.inputs.push_back(src);
      copy.outputs.push_back(dst);
      f_.instrs.push_back(std::move(copy));
    }
  }

  const Graph &g_;
  Function f_;
  llvm::DenseMap<const Value *, Buffer *> buffers_;
};

} // namespace

llvm::Expected<Function> generateLIR(const Graph &g) { return IRGen(g).run(); }

std::vector<uint8_t> buildWeightsImage(const Function &f) {
  std::vector<uint8_t> image(f.weightsSize, 0);
  for (auto &b : f.buffers)
    if (b->region == Region::Weights && b->constant)
      llvm::copy(b->constant->raw(), image.begin() + b->offset);
  return image;
}

void printLIR(const Function &f, llvm::raw_ostream &os) {
  os << "lir " << f.name << " weights=" << f.weightsSize << " io=" << f.ioSize
     << " scratch=" << f.scratchSize << "\n";
  auto buf = [&](const Buffer *b) {
    if (!b) {
      os << "none";
      return;
    }
    os << '%' << b->name << '@' << regionName(b->region) << '+' << b->offset
       << ':' << b->size;
  };
  for (const Instr &in : f.instrs) {
    os << "  ";
    for (size_t i = 0; i < in.outputs.size(); ++i) {
      os << (i ? ", " : "");
      buf(in.outputs[i]);
    }
    os << " = "
       << (in.kind == Instr::Kind::Copy ? llvm::StringRef("copy")
                                        : in.node->getOpName())
       << '(';
    for (size_t i = 0; i < in.inputs.size(); ++i) {
      os << (i ? ", " : "");
      buf(in.inputs[i]);
    }
    os << ')';
    if (in.temp) {
      os << " temp ";
      buf(in.temp);
    }
    os << '\n';
  }
}

} // namespace lir
} // namespace kiln
