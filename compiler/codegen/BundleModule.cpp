//===- BundleModule.cpp - The bundle's LLVM module ------------------------===//
//
// Lays out, as LLVM IR: one internal function per LIR instruction (its
// kernel, specialized for the instruction's constant shapes), the exported
// entry NAME_run(weights, io, scratch) that checks its regions and calls the
// kernels in order at fixed offsets, and the NAME_bundle descriptor whose
// layout is kiln_bundle/kiln_tensor of runtime_min/kiln.h for this target's
// data layout (the field tables of compiler/abi/KilnABI.h).
//
//===----------------------------------------------------------------------===//

#include "compiler/abi/KilnABI.h"
#include "compiler/codegen/Codegen.h"
#include "compiler/codegen/Kernels.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Analysis/TargetTransformInfo.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/ARMTargetParser.h"
#include "llvm/TargetParser/Triple.h"

namespace kiln {

namespace {

/// The planner aligns every buffer, hence every region, to what kiln.h
/// promises the caller to need.
static_assert(lir::kBufferAlignment == KILN_ALIGNMENT,
              "the planner's alignment differs from KILN_ALIGNMENT");

/// Where a kernel function starts on x86, in bytes: a cache line.
constexpr uint64_t kX86KernelAlignment = 64;

/// The vector width and register count kernels tile for, from the target's
/// cost model (a scalar target reports no vector registers).
codegen::VectorInfo vectorInfoOf(llvm::TargetMachine &tm, const llvm::Function &fn) {
  llvm::TargetTransformInfo tti = tm.getTargetTransformInfo(fn);
  codegen::VectorInfo vec;
  unsigned bits =
      tti.getRegisterBitWidth(llvm::TargetTransformInfo::RGK_FixedWidthVector)
          .getFixedValue();
  unsigned regs = tti.getNumberOfRegisters(tti.getRegisterClassForType(true));
  if (bits >= 64 && regs > 0) {
    vec.lanes = std::min(bits / 32, 16u);
    vec.registers = regs;
  }
  const llvm::Triple &triple = tm.getTargetTriple();
  vec.evenLaneMultiply = triple.isX86();
  vec.roundingDoublingHighMul = triple.isAArch64() && vec.lanes >= 4;
  vec.prefetch = !((triple.isARM() || triple.isThumb()) &&
                   llvm::ARM::parseArchProfile(triple.getArchName()) == llvm::ARM::ProfileKind::M);
  return vec;
}

/// The buffers a kernel function takes, one parameter each: inputs, outputs,
/// temp, each buffer once. An in-place instruction's output is its input's
/// buffer, and one pointer for both lets LLVM see that element i is read
/// before it is written (two noalias pointers to the same bytes would be
/// undefined).
llvm::SmallVector<const lir::Buffer *, 4> kernelParams(const lir::Instr &in) {
  llvm::SmallVector<const lir::Buffer *, 4> params;
  auto add = [&](const lir::Buffer *b) {
    if (b && !llvm::is_contained(params, b))
      params.push_back(b);
  };
  llvm::for_each(in.inputs, add);
  llvm::for_each(in.outputs, add);
  add(in.temp);
  return params;
}

class BundleModuleBuilder {
public:
  BundleModuleBuilder(llvm::LLVMContext &ctx, const lir::Function &f,
                      llvm::StringRef name, llvm::TargetMachine &tm)
      : ctx_(ctx), f_(f), name_(name.str()), tm_(tm),
        m_(std::make_unique<llvm::Module>(name_, ctx)) {
    m_->setTargetTriple(tm.getTargetTriple().getTriple());
    m_->setDataLayout(tm.createDataLayout());
    idxTy_ = m_->getDataLayout().getIntPtrType(ctx);
    ptrTy_ = llvm::PointerType::getUnqual(ctx);
  }

  llvm::Expected<std::unique_ptr<llvm::Module>>
  build(const BundleObjectOptions &opts) {
    llvm::SmallVector<llvm::Function *, 16> kernels;
    for (size_t i = 0; i < f_.instrs.size(); ++i) {
      auto k = buildKernel(f_.instrs[i], i);
      if (!k)
        return k.takeError();
      kernels.push_back(*k);
    }
    llvm::Function *run = buildRun(kernels, opts.profileLayers);
    llvm::GlobalVariable *weights = nullptr;
    if (opts.embedWeights)
      weights = buildWeights(opts.embeddedWeights);
    buildDescriptor(run, weights);
    std::string err;
    llvm::raw_string_ostream os(err);
    if (llvm::verifyModule(*m_, &os))
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "internal error: invalid LLVM IR: " + err);
    return std::move(m_);
  }

private:
  void setCommonAttrs(llvm::Function *fn) {
    fn->addFnAttr(llvm::Attribute::NoUnwind);
    // No libc: keeps LLVM from turning loops into memcpy/memset calls.
    fn->addFnAttr("no-builtins");
  }

  llvm::Expected<llvm::Function *> buildKernel(const lir::Instr &in, size_t index) {
    llvm::SmallVector<const lir::Buffer *, 4> params = kernelParams(in);
    auto *fnTy = llvm::FunctionType::get(
        llvm::Type::getVoidTy(ctx_),
        llvm::SmallVector<llvm::Type *, 4>(params.size(), ptrTy_), false);
    std::string opName = in.kind == lir::Instr::Kind::Copy
                             ? "copy"
                             : in.node->getOpName().lower();
    for (const Node *n : in.fused)
      opName += "_" + n->getOpName().lower();
    auto *fn = llvm::Function::Create(fnTy, llvm::GlobalValue::InternalLinkage,
                                      "kiln." + std::to_string(index) + "." + opName,
                                      m_.get());
    setCommonAttrs(fn);
    // A kernel is a whole layer: a call costs nothing next to it, and
    // separate functions keep profiles per layer.
    fn->addFnAttr(llvm::Attribute::NoInline);
    for (size_t i = 0; i < params.size(); ++i) {
      // The planner guarantees an instruction's distinct buffers never
      // overlap, so noalias holds.
      fn->addParamAttr(i, llvm::Attribute::NoAlias);
      fn->addParamAttr(i, llvm::Attribute::NoCapture);
      fn->addParamAttr(i, llvm::Attribute::getWithAlignment(
                              ctx_, llvm::Align(lir::kBufferAlignment)));
      if (params[i]->size)
        fn->addDereferenceableParamAttr(i, params[i]->size);
    }
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx_, "entry", fn));
    codegen::KernelBuilder kb(b, idxTy_, vectorInfoOf(tm_, *fn));
    // On x86 every kernel starts on a cache line, so its loops sit alike
    // in every link: int8 ResNet-8's took 7% longer in one benchmark binary
    // once other bundles' code changed size.
    if (tm_.getTargetTriple().isX86())
      fn->setAlignment(llvm::Align(kX86KernelAlignment));
    auto argOf = [&](const lir::Buffer *buf) -> llvm::Value * {
      return buf ? fn->getArg(llvm::find(params, buf) - params.begin()) : nullptr;
    };
    llvm::SmallVector<llvm::Value *, 4> inputs, outputs;
    for (const lir::Buffer *buf : in.inputs)
      inputs.push_back(argOf(buf));
    for (const lir::Buffer *buf : in.outputs)
      outputs.push_back(argOf(buf));
    llvm::Value *temp = argOf(in.temp);

    if (in.kind == lir::Instr::Kind::Copy) {
      codegen::emitByteCopy(kb, inputs[0], outputs[0], in.outputs[0]->size);
    } else {
      codegen::KernelEmitter emit =
          codegen::findKernelEmitter(in.node->getKind(), in.strategy);
      if (!emit)
        return nodeError(*in.node, "not supported by the code generator");
      codegen::KernelArgs args{*in.node, inputs,  outputs,  temp,
                               in.padded ? &*in.padded : nullptr, in.strategy, in.fused};
      if (auto err = emit(kb, args))
        return std::move(err);
    }
    b.CreateRetVoid();
    return fn;
  }

  llvm::Value *regionPtr(llvm::IRBuilder<> &b, llvm::Value *base, uint64_t offset) {
    return offset ? b.CreateInBoundsGEP(b.getInt8Ty(), base,
                                        llvm::ConstantInt::get(idxTy_, offset))
                  : base;
  }

  /// What a layer is called in a profile: its op, the kernel strategy, its
  /// node.
  std::string layerName(const lir::Instr &in) {
    std::string s;
    llvm::raw_string_ostream os(s);
    if (in.kind == lir::Instr::Kind::Copy) {
      os << "copy";
    } else {
      os << in.node->getDef().name;
      for (const Node *n : in.fused)
        os << '+' << n->getDef().name;
      std::string strategy;
      llvm::raw_string_ostream ss(strategy);
      lir::printStrategy(in.strategy, ss);
      if (!strategy.empty())
        os << '[' << strategy << ']';
      os << ' ' << in.node->getName();
    }
    return s;
  }

  llvm::Function *buildRun(llvm::ArrayRef<llvm::Function *> kernels, bool profileLayers) {
    auto *fnTy = llvm::FunctionType::get(llvm::Type::getInt32Ty(ctx_),
                                         {ptrTy_, ptrTy_, ptrTy_}, false);
    auto *fn = llvm::Function::Create(fnTy, llvm::GlobalValue::ExternalLinkage,
                                      name_ + "_run", m_.get());
    setCommonAttrs(fn);
    llvm::Value *regions[3] = {fn->getArg(0), fn->getArg(1), fn->getArg(2)};
    uint64_t sizes[3] = {f_.weightsSize, f_.ioSize, f_.scratchSize};
    const char *names[3] = {"weights", "io", "scratch"};
    for (int i = 0; i < 3; ++i)
      fn->getArg(i)->setName(names[i]);

    llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx_, "entry", fn));
    auto fail = [&](llvm::Value *cond, int status) {
      llvm::BasicBlock *bad = llvm::BasicBlock::Create(ctx_, "fail", fn);
      llvm::BasicBlock *ok = llvm::BasicBlock::Create(ctx_, "ok", fn);
      b.CreateCondBr(cond, bad, ok);
      b.SetInsertPoint(bad);
      b.CreateRet(b.getInt32(status));
      b.SetInsertPoint(ok);
    };
    // A region of size 0 may be NULL and is never touched.
    for (int i = 0; i < 3; ++i)
      if (sizes[i])
        fail(b.CreateIsNull(regions[i]), KILN_ERR_NULL);
    for (int i = 0; i < 3; ++i)
      if (sizes[i])
        fail(b.CreateICmpNE(
                 b.CreateAnd(b.CreatePtrToInt(regions[i], idxTy_),
                             llvm::ConstantInt::get(idxTy_, lir::kBufferAlignment - 1)),
                 llvm::ConstantInt::get(idxTy_, 0)),
             KILN_ERR_ALIGN);
    auto regionOf = [&](const lir::Buffer *buf) {
      switch (buf->region) {
      case lir::Region::Weights: return regions[0];
      case lir::Region::IO: return regions[1];
      case lir::Region::Scratch: return regions[2];
      }
      return regions[2];
    };
    llvm::FunctionCallee profile;
    if (profileLayers)
      profile = m_->getOrInsertFunction(
          "kiln_profile_layer",
          llvm::FunctionType::get(b.getVoidTy(), {b.getInt32Ty(), ptrTy_}, false));
    for (size_t i = 0; i < kernels.size(); ++i) {
      const lir::Instr &in = f_.instrs[i];
      if (profileLayers)
        b.CreateCall(profile, {b.getInt32(i), cString(layerName(in))});
      llvm::SmallVector<llvm::Value *, 4> args;
      for (const lir::Buffer *buf : kernelParams(in))
        args.push_back(regionPtr(b, regionOf(buf), buf->offset));
      b.CreateCall(kernels[i], args);
    }
    if (profileLayers)
      b.CreateCall(profile, {b.getInt32(kernels.size()),
                             llvm::ConstantPointerNull::get(ptrTy_)});
    b.CreateRet(b.getInt32(KILN_OK));
    return fn;
  }

  llvm::GlobalVariable *buildWeights(llvm::ArrayRef<uint8_t> bytes) {
    auto *data = llvm::ConstantDataArray::get(ctx_, bytes);
    auto *gv = new llvm::GlobalVariable(*m_, data->getType(), true,
                                        llvm::GlobalValue::ExternalLinkage, data,
                                        name_ + "_weights");
    gv->setAlignment(llvm::Align(lir::kBufferAlignment));
    if (llvm::Triple(m_->getTargetTriple()).isOSBinFormatELF())
      gv->setSection(".rodata.kiln_weights");
    return gv;
  }

  llvm::Constant *cString(llvm::StringRef s) {
    auto *data = llvm::ConstantDataArray::getString(ctx_, s);
    auto *gv = new llvm::GlobalVariable(*m_, data->getType(), true,
                                        llvm::GlobalValue::PrivateLinkage, data,
                                        ".str");
    gv->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
    gv->setAlignment(llvm::Align(1));
    return gv;
  }

  llvm::Constant *size(uint64_t v) { return llvm::ConstantInt::get(idxTy_, v); }
  llvm::Constant *i32(int64_t v) {
    return llvm::ConstantInt::get(llvm::Type::getInt32Ty(ctx_), v);
  }

  llvm::Type *fieldType(abi::FieldKind kind) {
    switch (kind) {
    case abi::FieldKind::Pointer: return ptrTy_;
    case abi::FieldKind::Size: return idxTy_;
    case abi::FieldKind::U32:
    case abi::FieldKind::I32: return llvm::Type::getInt32Ty(ctx_);
    case abi::FieldKind::F32: return llvm::Type::getFloatTy(ctx_);
    }
    llvm_unreachable("every field kind has a type");
  }

  /// kiln.h's struct on this target: a member per field, in kiln.h's order.
  llvm::StructType *structType(llvm::ArrayRef<abi::Field> fields,
                               llvm::StringRef name) {
    llvm::SmallVector<llvm::Type *, 12> types;
    for (const abi::Field &f : fields)
      types.push_back(fieldType(f.kind));
    return llvm::StructType::create(ctx_, types, name);
  }

  /// A constant of `ty` whose members are `valueOf` each field, in order.
  template <typename FieldT>
  llvm::Constant *structValue(llvm::StructType *ty,
                              llvm::function_ref<llvm::Constant *(FieldT)> valueOf) {
    llvm::SmallVector<llvm::Constant *, 12> values;
    for (unsigned i = 0; i < ty->getNumElements(); ++i)
      values.push_back(valueOf(static_cast<FieldT>(i)));
    return llvm::ConstantStruct::get(ty, values);
  }

  llvm::Constant *tensorField(abi::TensorField field, const lir::IOTensor &t,
                              llvm::Constant *shape) {
    const QuantParams &q = t.type.quant;
    switch (field) {
    case abi::TensorField::name: return cString(t.name);
    case abi::TensorField::dtype: return i32(abi::kilnDType(t.type.dtype));
    case abi::TensorField::rank: return i32(t.type.rank());
    case abi::TensorField::shape: return shape;
    case abi::TensorField::offset: return size(t.buffer->offset);
    case abi::TensorField::size: return size(t.buffer->size);
    case abi::TensorField::scale:
      return llvm::ConstantFP::get(llvm::Type::getFloatTy(ctx_),
                                   q.isQuantized() ? q.scales[0] : 1.0f);
    case abi::TensorField::zero_point:
      return i32(q.isQuantized() && !q.zeroPoints.empty() ? q.zeroPoints[0] : 0);
    }
    llvm_unreachable("every kiln_tensor field has a value");
  }

  /// A private [n x kiln_tensor] array, or null for n == 0.
  llvm::Constant *tensorTable(llvm::ArrayRef<lir::IOTensor> tensors,
                              llvm::StructType *tensorTy) {
    if (tensors.empty())
      return llvm::ConstantPointerNull::get(ptrTy_);
    llvm::SmallVector<llvm::Constant *, 4> entries;
    for (const lir::IOTensor &t : tensors) {
      llvm::SmallVector<uint32_t, 6> dims(t.type.shape.begin(), t.type.shape.end());
      llvm::Constant *shape = llvm::ConstantPointerNull::get(ptrTy_);
      if (!dims.empty()) {
        auto *data = llvm::ConstantDataArray::get(ctx_, dims);
        auto *gv = new llvm::GlobalVariable(*m_, data->getType(), true,
                                            llvm::GlobalValue::PrivateLinkage,
                                            data, ".shape");
        gv->setAlignment(llvm::Align(4));
        shape = gv;
      }
      entries.push_back(structValue<abi::TensorField>(
          tensorTy, [&](abi::TensorField field) { return tensorField(field, t, shape); }));
    }
    auto *arrTy = llvm::ArrayType::get(tensorTy, entries.size());
    auto *gv = new llvm::GlobalVariable(*m_, arrTy, true,
                                        llvm::GlobalValue::PrivateLinkage,
                                        llvm::ConstantArray::get(arrTy, entries),
                                        ".tensors");
    return gv;
  }

  void buildDescriptor(llvm::Function *run, llvm::GlobalVariable *weights) {
    llvm::StructType *tensorTy = structType(abi::kTensorFields, abi::kTensorTypeName);
    llvm::StructType *bundleTy = structType(abi::kBundleFields, abi::kBundleTypeName);
    auto bundleField = [&](abi::BundleField field) -> llvm::Constant * {
      switch (field) {
      case abi::BundleField::abi_version: return i32(KILN_ABI_VERSION);
      case abi::BundleField::name: return cString(name_);
      case abi::BundleField::weights_size: return size(f_.weightsSize);
      case abi::BundleField::io_size: return size(f_.ioSize);
      case abi::BundleField::scratch_size: return size(f_.scratchSize);
      case abi::BundleField::alignment: return size(lir::kBufferAlignment);
      case abi::BundleField::num_inputs: return i32(f_.inputs.size());
      case abi::BundleField::num_outputs: return i32(f_.outputs.size());
      case abi::BundleField::inputs: return tensorTable(f_.inputs, tensorTy);
      case abi::BundleField::outputs: return tensorTable(f_.outputs, tensorTy);
      case abi::BundleField::run: return run;
      case abi::BundleField::embedded_weights:
        return weights ? static_cast<llvm::Constant *>(weights)
                       : llvm::ConstantPointerNull::get(ptrTy_);
      }
      llvm_unreachable("every kiln_bundle field has a value");
    };
    new llvm::GlobalVariable(*m_, bundleTy, true, llvm::GlobalValue::ExternalLinkage,
                             structValue<abi::BundleField>(bundleTy, bundleField),
                             name_ + "_bundle");
  }

  llvm::LLVMContext &ctx_;
  const lir::Function &f_;
  std::string name_;
  llvm::TargetMachine &tm_;
  std::unique_ptr<llvm::Module> m_;
  llvm::Type *idxTy_;
  llvm::PointerType *ptrTy_;
};

} // namespace

llvm::Expected<std::unique_ptr<llvm::Module>>
buildBundleModule(llvm::LLVMContext &ctx, const lir::Function &f,
                  llvm::StringRef bundleName, llvm::TargetMachine &tm,
                  const BundleObjectOptions &opts) {
  return BundleModuleBuilder(ctx, f, bundleName, tm).build(opts);
}

codegen::VectorInfo targetVectorInfo(llvm::TargetMachine &tm) {
  llvm::LLVMContext ctx;
  llvm::Module m("kiln.vector_lanes", ctx);
  m.setDataLayout(tm.createDataLayout());
  auto *fn = llvm::Function::Create(llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), false),
                                    llvm::Function::ExternalLinkage, "probe", m);
  return vectorInfoOf(tm, *fn);
}

} // namespace kiln
