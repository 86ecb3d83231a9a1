//===- StackBound.cpp - A compile-time bound on NAME_run's stack ----------===//

#include "compiler/codegen/StackBound.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/LEB128.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/TargetParser/Triple.h"

namespace kiln {
namespace {

using namespace llvm::object;

/// Each function's frame in bytes, by symbol name, from the .stack_sizes
/// section: an address (relocated against the function or its section) and a
/// ULEB128 size per function. LLVM leaves out functions with a frame of
/// dynamic size.
llvm::Expected<llvm::StringMap<uint64_t>> readFrameSizes(const ObjectFile &obj) {
  // A Thumb function's symbol has the low bit set; its address does not.
  auto key = [](uint64_t section, uint64_t address) {
    return std::make_pair(section, address & ~uint64_t(1));
  };
  llvm::DenseMap<std::pair<uint64_t, uint64_t>, llvm::StringRef> functions;
  for (const SymbolRef &sym : obj.symbols()) {
    auto type = sym.getType();
    auto name = sym.getName();
    auto address = sym.getValue();
    auto section = sym.getSection();
    if (!type || !name || !address || !section)
      return llvm::joinErrors(
          llvm::joinErrors(type.takeError(), name.takeError()),
          llvm::joinErrors(address.takeError(), section.takeError()));
    if (*type == SymbolRef::ST_Function && *section != obj.section_end())
      functions[key((*section)->getIndex(), *address)] = *name;
  }

  llvm::StringMap<uint64_t> sizes;
  const unsigned addressBytes = obj.getBytesInAddress();
  for (const SectionRef &relocs : obj.sections()) {
    auto target = relocs.getRelocatedSection();
    if (!target)
      return target.takeError();
    if (*target == obj.section_end())
      continue;
    auto targetName = (*target)->getName();
    if (!targetName)
      return targetName.takeError();
    if (*targetName != ".stack_sizes")
      continue;
    auto contents = (*target)->getContents();
    if (!contents)
      return contents.takeError();
    const uint8_t *data = contents->bytes_begin(), *end = contents->bytes_end();
    for (const RelocationRef &r : relocs.relocations()) {
      uint64_t offset = r.getOffset();
      if (offset + addressBytes >= contents->size())
        return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                       ".stack_sizes relocation past the section");
      // RELA (x86-64, AArch64) carries the addend; REL (Arm) keeps it in place.
      int64_t addend;
      auto rela = ELFRelocationRef(r).getAddend();
      if (rela) {
        addend = *rela;
      } else {
        llvm::consumeError(rela.takeError());
        addend = addressBytes == 8
                     ? int64_t(llvm::support::endian::read64(data + offset, obj.isLittleEndian()
                                                                   ? llvm::endianness::little
                                                                   : llvm::endianness::big))
                     : int64_t(llvm::support::endian::read32(data + offset, obj.isLittleEndian()
                                                                   ? llvm::endianness::little
                                                                   : llvm::endianness::big));
      }
      symbol_iterator sym = r.getSymbol();
      auto symAddress = sym->getValue();
      auto symSection = sym->getSection();
      if (!symAddress || !symSection)
        return llvm::joinErrors(symAddress.takeError(), symSection.takeError());
      if (*symSection == obj.section_end())
        continue;
      auto fn = functions.find(key((*symSection)->getIndex(), *symAddress + addend));
      if (fn == functions.end())
        continue;
      const char *error = nullptr;
      unsigned length = 0;
      uint64_t size = llvm::decodeULEB128(data + offset + addressBytes, &length, end, &error);
      if (error)
        return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                       llvm::Twine(".stack_sizes: ") + error);
      sizes[fn->second] = size;
    }
  }
  return std::move(sizes);
}

/// The deepest stack below a call to a function: its frame, what the call
/// pushes, and its deepest callee's, each function once.
class CallGraphWalk {
public:
  CallGraphWalk(const llvm::StringMap<uint64_t> &frames, unsigned callPushes,
                unsigned leafRedZone)
      : frames_(frames), callPushes_(callPushes), leafRedZone_(leafRedZone) {}

  /// Fills `unknownBecause` and returns nothing where the walk cannot bound it.
  std::optional<uint64_t> deepest(const llvm::Function &fn) {
    if (auto done = done_.find(&fn); done != done_.end())
      return done->second;
    if (!onPath_.insert(&fn).second)
      return unknown("it is recursive through " + fn.getName().str());
    auto frame = frames_.find(fn.getName());
    if (frame == frames_.end())
      return unknown(fn.getName().str() + "'s frame has a dynamic size");
    uint64_t below = 0;
    bool calls = false;
    for (const llvm::Instruction &inst : llvm::instructions(fn)) {
      const auto *call = llvm::dyn_cast<llvm::CallBase>(&inst);
      if (!call)
        continue;
      if (call->isInlineAsm())
        continue; // KernelBuilder::computedHere's empty asm: no code
      const llvm::Function *callee = call->getCalledFunction();
      if (!callee)
        return unknown(fn.getName().str() + " makes an indirect call");
      if (callee->isIntrinsic())
        continue; // what codegen turns into calls is an undefined symbol
      if (callee->isDeclaration())
        return unknown(fn.getName().str() + " calls " + callee->getName().str() +
                       ", outside the bundle");
      auto depth = deepest(*callee);
      if (!depth)
        return std::nullopt;
      below = std::max(below, *depth);
      calls = true;
    }
    onPath_.erase(&fn);
    uint64_t total = callPushes_ + frame->second + (calls ? below : leafRedZone_);
    done_[&fn] = total;
    return total;
  }

  std::string unknownBecause;

private:
  std::optional<uint64_t> unknown(std::string why) {
    if (unknownBecause.empty())
      unknownBecause = std::move(why);
    return std::nullopt;
  }

  const llvm::StringMap<uint64_t> &frames_;
  unsigned callPushes_, leafRedZone_;
  llvm::DenseMap<const llvm::Function *, uint64_t> done_;
  llvm::SmallPtrSet<const llvm::Function *, 8> onPath_;
};

} // namespace

llvm::Expected<StackBound> boundStack(const llvm::Module &m, llvm::StringRef entry,
                                      llvm::ArrayRef<char> object) {
  auto obj = ObjectFile::createObjectFile(llvm::MemoryBufferRef(
      llvm::StringRef(object.data(), object.size()), "bundle object"));
  if (!obj)
    return obj.takeError();
  StackBound bound;
  if (!llvm::isa<ELFObjectFileBase>(**obj)) {
    bound.unknownBecause = "the object is not ELF (no .stack_sizes)";
    return bound;
  }
  // Calls code generation adds (a soft-float or division routine of the
  // toolchain's run-time library) are undefined symbols of the object.
  for (const SymbolRef &sym : (*obj)->symbols()) {
    auto flags = sym.getFlags();
    if (!flags)
      return flags.takeError();
    if (!(*flags & SymbolRef::SF_Undefined))
      continue;
    auto name = sym.getName();
    if (!name)
      return name.takeError();
    if (name->empty())
      continue;
    bound.unknownBecause = "it calls " + name->str() + ", outside the bundle";
    return bound;
  }
  auto frames = readFrameSizes(**obj);
  if (!frames)
    return frames.takeError();
  const llvm::Function *fn = m.getFunction(entry);
  if (!fn || fn->isDeclaration())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "no function " + entry + " in the module");
  llvm::Triple triple(m.getTargetTriple());
  // x86 calls push the return address (Arm and AArch64 keep it in a register
  // that a frame saves); an x86-64 System V leaf may use 128 bytes below its
  // stack pointer, the red zone, that its frame size leaves out.
  unsigned callPushes = triple.isX86() ? (*obj)->getBytesInAddress() : 0;
  unsigned leafRedZone = triple.getArch() == llvm::Triple::x86_64 && !triple.isOSWindows() &&
                                 !fn->hasFnAttribute(llvm::Attribute::NoRedZone)
                             ? 128
                             : 0;
  CallGraphWalk walk(*frames, callPushes, leafRedZone);
  bound.bytes = walk.deepest(*fn);
  bound.unknownBecause = walk.unknownBecause;
  return bound;
}

} // namespace kiln
