// Runs kiln's reference interpreter on a model: the oracle's answer for one
// input, for comparing with another runtime layer by layer.
//
// usage: interpret MODEL INPUT.bin OUTPUT.bin [--optimized]
//   INPUT.bin / OUTPUT.bin: raw little-endian bytes of the model's one input
//   and one output, in their own dtype and layout.

#include "compiler/frontend/ModelImporter.h"
#include "compiler/interpreter/Interpreter.h"
#include "compiler/pipeline/Pipeline.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

using namespace kiln;

static int fail(const llvm::Twine &msg) {
  llvm::errs() << "interpret: error: " << msg << "\n";
  return 1;
}

int main(int argc, char **argv) {
  if (argc < 4 || argc > 5 || (argc == 5 && std::strcmp(argv[4], "--optimized")))
    return fail("usage: interpret MODEL INPUT.bin OUTPUT.bin [--optimized]");
  auto g = importModelFile(argv[1], {});
  if (!g)
    return fail(llvm::toString(g.takeError()));
  if (argc == 5)
    if (llvm::Error err = runPipeline(**g, defaultPipeline(), {}))
      return fail(llvm::toString(std::move(err)));
  if ((*g)->getInputs().size() != 1 || (*g)->getOutputs().size() != 1)
    return fail("the model must have one input and one output");
  Tensor input((*g)->getInputs()[0]->getType());
  auto buf = llvm::MemoryBuffer::getFile(argv[2]);
  if (!buf || (*buf)->getBufferSize() != input.sizeInBytes())
    return fail(llvm::Twine(argv[2]) + ": expected " +
                llvm::Twine(input.sizeInBytes()) + " bytes");
  std::memcpy(input.rawData(), (*buf)->getBufferStart(), input.sizeInBytes());
  auto out = runGraph(**g, {input});
  if (!out)
    return fail(llvm::toString(out.takeError()));
  std::error_code ec;
  llvm::raw_fd_ostream os(argv[3], ec);
  if (ec)
    return fail(llvm::Twine(argv[3]) + ": " + ec.message());
  llvm::ArrayRef<uint8_t> bytes = (*out)[0].raw();
  os.write(reinterpret_cast<const char *>(bytes.data()), bytes.size());
  return 0;
}
