//===- ReportJson.cpp - The compile report as JSON ------------------------===//

#include "compiler/report/ReportJson.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

namespace kiln::report {

namespace {

llvm::json::Array typeStrings(llvm::ArrayRef<TensorType> types) {
  llvm::json::Array a;
  for (const TensorType &t : types)
    a.push_back(t.str());
  return a;
}

llvm::json::Value optional(std::optional<uint64_t> v) {
  return v ? llvm::json::Value(*v) : llvm::json::Value(nullptr);
}

} // namespace

std::string reportJson(const CompileReport &r) {
  llvm::json::Array layers;
  for (size_t i = 0; i < r.layers.size(); ++i) {
    const LayerReport &l = r.layers[i];
    layers.push_back(llvm::json::Object{
        {"index", int64_t(i)},
        {"name", l.name},
        {"op", l.op},
        {"inputs", typeStrings(l.inputs)},
        {"outputs", typeStrings(l.outputs)},
        {"dtype", l.outputs.empty() ? "" : dtypeName(l.outputs.front().dtype)},
        {"macs", l.macs},
        {"flops", l.flops},
        {"weight_bytes", l.weightBytes},
        {"strategy", l.strategy},
        {"activation", l.activation},
        {"fused", llvm::json::Array(l.fused)},
        {"producers", llvm::json::Array(l.producers)},
        {"slow_fallback", l.slowFallback}});
  }
  llvm::json::Array buffers, liveAtPeak, warnings;
  for (const PlacedBuffer &b : r.plan.buffers)
    buffers.push_back(llvm::json::Object{{"name", b.name},
                                         {"offset", b.offset},
                                         {"size", b.size},
                                         {"first_layer", b.begin},
                                         {"last_layer", b.end}});
  for (unsigned i : r.plan.liveAtPeak)
    liveAtPeak.push_back(r.plan.buffers[i].name);
  for (const Warning &w : r.warnings)
    warnings.push_back(llvm::json::Object{
        {"kind", warningKindName(w.kind)}, {"subject", w.subject}, {"message", w.message}});
  const Footprint &fp = r.footprint;
  llvm::json::Object root{
      {"bundle", r.bundleName},
      {"target", llvm::json::Object{{"triple", r.triple}, {"cpu", r.cpu}}},
      {"footprint", llvm::json::Object{{"code_bytes", fp.codeBytes},
                                       {"weights_bytes", fp.weightsBytes},
                                       {"scratch_bytes", fp.scratchBytes},
                                       {"io_bytes", fp.ioBytes},
                                       {"stack_bytes", optional(fp.stack.bytes)},
                                       {"stack_unknown_because",
                                        fp.stack.bytes ? llvm::json::Value(nullptr)
                                                       : llvm::json::Value(fp.stack.unknownBecause)}}},
      {"total_macs", r.totalMacs()},
      {"layers", std::move(layers)},
      {"memory_plan",
       llvm::json::Object{{"region", lir::regionName(r.plan.region)},
                          {"size", r.plan.size},
                          {"high_water", r.plan.highWater},
                          {"peak_layer", r.plan.peakLayer},
                          {"peak_live_bytes", r.plan.peakLiveBytes},
                          {"live_at_peak", std::move(liveAtPeak)},
                          {"buffers", std::move(buffers)}}},
      {"warnings", std::move(warnings)}};
  return llvm::formatv("{0:2}", llvm::json::Value(std::move(root))).str() + "\n";
}

} // namespace kiln::report
