// The compile report's data against independent counts: the MACs PyTorch
// counted for the shipped models (bundles/models/manifest.json), a known
// convolution's MACs and weight bytes, the memory plan's own sizes; its JSON
// parses with every layer, and its HTML holds both pictures.

#include "compiler/driver/Compiler.h"
#include "compiler/report/ReportHtml.h"
#include "compiler/report/ReportJson.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "gtest/gtest.h"

#include <map>

namespace kiln {
namespace {

/// `model` of bundles/models compiled for the host with a report, once.
const CompileResult &compileWithReport(llvm::StringRef model) {
  static std::map<std::string, CompileResult> compiled;
  auto it = compiled.find(model.str());
  if (it != compiled.end())
    return it->second;
  CompileOptions opts;
  opts.modelPath = ("bundles/models/" + model + ".onnx").str();
  opts.report = true;
  auto result = compileToMemory(opts);
  EXPECT_TRUE(static_cast<bool>(result)) << llvm::toString(result.takeError());
  EXPECT_TRUE(result->report.has_value());
  return compiled.emplace(model.str(), std::move(*result)).first->second;
}

/// manifest.json's "flops" of `model`: 2 x the MACs of its convolutions and
/// matrix products, counted by PyTorch when the model was exported.
uint64_t manifestFlops(llvm::StringRef model) {
  auto text = llvm::MemoryBuffer::getFile("bundles/models/manifest.json");
  EXPECT_TRUE(static_cast<bool>(text));
  auto json = llvm::json::parse((*text)->getBuffer());
  EXPECT_TRUE(static_cast<bool>(json)) << llvm::toString(json.takeError());
  const llvm::json::Object *entry = json->getAsObject()->getObject(model);
  EXPECT_NE(entry, nullptr) << model.str();
  return *entry->getInteger("flops");
}

class ShippedModelReport : public ::testing::TestWithParam<const char *> {};

TEST_P(ShippedModelReport, TotalMacsAreWhatPyTorchCounted) {
  const CompileResult &r = compileWithReport(GetParam());
  EXPECT_EQ(2 * r.report->totalMacs(), manifestFlops(GetParam()));
}

TEST_P(ShippedModelReport, FootprintIsTheBundles) {
  const CompileResult &r = compileWithReport(GetParam());
  const report::Footprint &fp = r.report->footprint;
  EXPECT_EQ(fp.weightsBytes, r.weightsSize);
  EXPECT_EQ(fp.scratchBytes, r.scratchSize);
  EXPECT_EQ(fp.ioBytes, r.ioSize);
  EXPECT_EQ(fp.stack.bytes, r.stack.bytes);
  EXPECT_GT(fp.codeBytes, 0u);
  EXPECT_LT(fp.codeBytes, r.files.object.size());
  // Every weights buffer counted once: the sum is the region but for the
  // alignment between buffers.
  uint64_t weights = 0;
  for (const report::LayerReport &l : r.report->layers)
    weights += l.weightBytes;
  EXPECT_LE(weights, r.weightsSize);
  EXPECT_GT(weights + r.report->layers.size() * 2 * lir::kBufferAlignment, r.weightsSize);
  EXPECT_EQ(r.report->layers.size(), r.numKernels);
}

TEST_P(ShippedModelReport, PeakIsThePlansScratchSize) {
  const CompileResult &r = compileWithReport(GetParam());
  const report::MemoryPlan &plan = r.report->plan;
  EXPECT_EQ(plan.region, lir::Region::Scratch);
  EXPECT_EQ(plan.size, r.scratchSize);
  EXPECT_EQ(llvm::alignTo(plan.highWater, lir::kBufferAlignment), r.scratchSize);
  // What is live at the peak fits in the plan and adds up to the peak.
  EXPECT_LE(plan.peakLiveBytes, plan.size);
  uint64_t live = 0;
  for (unsigned i : plan.liveAtPeak)
    live += llvm::alignTo(plan.buffers[i].size, lir::kBufferAlignment);
  EXPECT_EQ(live, plan.peakLiveBytes);
  for (const report::PlacedBuffer &b : plan.buffers) {
    EXPECT_LE(b.offset + b.size, plan.size) << b.name;
    EXPECT_LE(b.begin, b.end) << b.name;
  }
}

TEST_P(ShippedModelReport, JsonParsesWithEveryLayer) {
  const CompileResult &r = compileWithReport(GetParam());
  auto json = llvm::json::parse(r.reportJson);
  ASSERT_TRUE(static_cast<bool>(json)) << llvm::toString(json.takeError());
  const llvm::json::Object &root = *json->getAsObject();
  const llvm::json::Array *layers = root.getArray("layers");
  ASSERT_NE(layers, nullptr);
  ASSERT_EQ(layers->size(), r.report->layers.size());
  for (size_t i = 0; i < layers->size(); ++i) {
    const llvm::json::Object &l = *(*layers)[i].getAsObject();
    EXPECT_EQ(*l.getString("name"), r.report->layers[i].name);
    EXPECT_EQ(*l.getString("op"), r.report->layers[i].op);
    EXPECT_EQ(uint64_t(*l.getInteger("macs")), r.report->layers[i].macs);
  }
  EXPECT_EQ(uint64_t(*root.getObject("footprint")->getInteger("scratch_bytes")),
            r.scratchSize);
  // The host bound is known: the bundle calls nothing outside itself.
  ASSERT_TRUE(r.stack.bytes.has_value());
  EXPECT_EQ(uint64_t(*root.getObject("footprint")->getInteger("stack_bytes")),
            *r.stack.bytes);
  EXPECT_EQ(root.getObject("memory_plan")->getArray("buffers")->size(),
            r.report->plan.buffers.size());
}

TEST_P(ShippedModelReport, HtmlHoldsBothPicturesAndEveryLayer) {
  const CompileResult &r = compileWithReport(GetParam());
  llvm::StringRef html = r.reportHtml;
  EXPECT_TRUE(html.contains("<svg id=\"memory-plan\""));
  EXPECT_TRUE(html.contains("<svg id=\"layer-graph\""));
  EXPECT_TRUE(html.contains("<svg id=\"footprint-bar\""));
  EXPECT_FALSE(html.contains("<script"));
  EXPECT_FALSE(html.contains("http://") && !html.contains("xmlns=\"http://www.w3.org/2000/svg\""));
  for (const report::LayerReport &l : r.report->layers)
    EXPECT_TRUE(html.contains(l.name)) << l.name;
}

TEST_P(ShippedModelReport, WarnsOnlyOfLargeTensorsHeldAcrossThePeak) {
  const CompileResult &r = compileWithReport(GetParam());
  const report::MemoryPlan &plan = r.report->plan;
  unsigned held = 0;
  for (const report::PlacedBuffer &b : plan.buffers)
    held += b.begin < plan.peakLayer && plan.peakLayer < b.end &&
            b.size >= report::kDominantShare * plan.size;
  unsigned warned = 0;
  for (const report::Warning &w : r.report->warnings)
    warned += w.kind == report::Warning::Kind::DominantTensor;
  EXPECT_EQ(warned, held);
  // A chain of layers holds nothing across a layer; its peak layer's own
  // input and output are not worth a warning.
  if (llvm::StringRef(GetParam()) != "resnet8_cifar")
    EXPECT_EQ(warned, 0u);
}

INSTANTIATE_TEST_SUITE_P(Models, ShippedModelReport,
                         ::testing::Values("resnet8_cifar", "ds_cnn_kws", "lenet5"));

TEST(CompileReport, LayerGraphEdgesFollowTheData) {
  // lenet5 is a chain: each layer reads the one before, the first the input.
  const CompileResult &chain = compileWithReport("lenet5");
  const std::vector<report::LayerReport> &layers = chain.report->layers;
  EXPECT_EQ(layers.front().producers, std::vector<int>{report::kGraphInput});
  for (size_t i = 1; i < layers.size(); ++i)
    EXPECT_EQ(layers[i].producers, std::vector<int>{int(i) - 1}) << layers[i].name;
  // resnet8_cifar's residual blocks: the block's second Conv (its Add fused)
  // also reads the block's input, two layers back.
  const CompileResult &resnet = compileWithReport("resnet8_cifar");
  const report::LayerReport &second = resnet.report->layers[2];
  EXPECT_EQ(second.producers, (std::vector<int>{1, 0})) << second.name;
}

TEST(CompileReport, KnownConvolution) {
  const CompileResult &r = compileWithReport("resnet8_cifar");
  // The stem: 3 -> 16 channels, 3x3, padding 1, on 32x32, with its Relu.
  const report::LayerReport &stem = r.report->layers.front();
  EXPECT_EQ(stem.op, "Conv");
  EXPECT_EQ(stem.macs, 16u * 32 * 32 * 3 * 3 * 3);
  EXPECT_EQ(stem.flops, 2 * stem.macs + 16 * 32 * 32);
  // Weights tap-major in one block of 16 output channels, and the bias.
  EXPECT_EQ(stem.weightBytes, 16u * 3 * 3 * 3 * 4 + 16 * 4);
  EXPECT_EQ(stem.activation, "Relu");
  EXPECT_EQ(stem.inputs.front().str(), "f32[1,3,32,32]");
  EXPECT_EQ(stem.outputs.front().str(), "f32[1,16,32,32]");
  // A residual block's second Conv runs the Add and the Relu too.
  const report::LayerReport &second = r.report->layers[2];
  ASSERT_EQ(second.fused.size(), 2u);
  EXPECT_EQ(llvm::StringRef(second.fused[0]).substr(0, 4), "Add ");
  EXPECT_EQ(llvm::StringRef(second.strategy).substr(0, 8), "winograd");
}

TEST(CompileReport, GenericPoolIsASlowFallback) {
  // Three spatial dimensions: the plane kernel cannot run it.
  Graph g("pool");
  Value *x = g.addInput("x", TensorType(DType::F32, {1, 4, 4, 8, 8}));
  auto pool = g.addNode(OpKind::AveragePool, "avg", {x},
                        {{"kernel_shape", Attr::ofInts({3, 3, 3})},
                         {"pads", Attr::ofInts({1, 1, 1, 1, 1, 1})}});
  ASSERT_TRUE(static_cast<bool>(pool)) << llvm::toString(pool.takeError());
  g.addOutput("y", (*pool)->getOutput());
  auto target = resolveTarget({});
  ASSERT_TRUE(static_cast<bool>(target)) << llvm::toString(target.takeError());
  BackendOptions opts;
  opts.bundleName = "pool";
  opts.report = true;
  auto bundle = compileGraph(g, *target, opts);
  ASSERT_TRUE(static_cast<bool>(bundle)) << llvm::toString(bundle.takeError());
  const report::CompileReport &r = *bundle->report;
  ASSERT_EQ(r.layers.size(), 1u);
  EXPECT_EQ(r.layers[0].strategy, "generic");
  EXPECT_FALSE(r.layers[0].slowFallback.empty());
  EXPECT_EQ(r.layers[0].flops, 4u * 4 * 8 * 8 * 27);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0].kind, report::Warning::Kind::SlowFallback);
  EXPECT_EQ(r.warnings[0].subject, "avg");
}

} // namespace
} // namespace kiln
