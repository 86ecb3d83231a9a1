//===- ReportHtml.cpp - The compile report as one HTML page ---------------===//

#include "compiler/report/ReportHtml.h"
#include "compiler/report/HtmlText.h"
#include "compiler/report/LayerGraph.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

namespace kiln::report {

namespace {

/// "512 B", "12.5 KiB", "1.20 MiB"
std::string bytes(uint64_t n) {
  if (n < 1024)
    return llvm::formatv("{0} B", n);
  if (n < 1024 * 1024)
    return llvm::formatv("{0:F1} KiB", n / 1024.0);
  return llvm::formatv("{0:F2} MiB", n / (1024.0 * 1024.0));
}

/// "1.23 M", "45.6 k", "789"
std::string count(uint64_t n) {
  if (n >= 1000000)
    return llvm::formatv("{0:F2} M", n / 1e6);
  if (n >= 1000)
    return llvm::formatv("{0:F1} k", n / 1e3);
  return std::to_string(n);
}

/// Distinct fills for neighbouring buffers.
const char *const kPalette[] = {"#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2",
                                "#edc948", "#ff9da7", "#9c755f", "#bab0ac", "#e15759"};

const char kStyle[] = R"(
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #222; max-width: 1200px; }
h1 { font-size: 22px; margin-bottom: 4px; } h2 { font-size: 17px; margin-top: 28px; }
.meta { color: #666; margin-top: 0; }
table { border-collapse: collapse; font-size: 12px; }
th, td { border-bottom: 1px solid #ddd; padding: 3px 6px; text-align: left; vertical-align: top; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr.slow td { background: #fff3e0; }
.bar { display: inline-block; height: 9px; background: #4e79a7; vertical-align: middle; }
.warn { color: #a04000; } .none { color: #888; }
code { font-size: 12px; }
svg text { font: 11px system-ui, sans-serif; fill: #333; }
#layer-graph g.node text { font: 10px Helvetica, Arial, "Liberation Sans", sans-serif; }
)";

/// The footprint as one stacked bar: what goes to flash and what to RAM.
void footprintSvg(const Footprint &fp, llvm::raw_ostream &os) {
  struct Part {
    const char *label, *color;
    uint64_t size;
  } parts[] = {{"code", "#59a14f", fp.codeBytes},
               {"weights", "#4e79a7", fp.weightsBytes},
               {"scratch", "#f28e2b", fp.scratchBytes},
               {"io", "#b07aa1", fp.ioBytes}};
  uint64_t total = 0;
  for (const Part &p : parts)
    total += p.size;
  const double width = 900, barY = 10, barH = 28;
  os << llvm::formatv("<svg id=\"footprint-bar\" xmlns=\"http://www.w3.org/2000/svg\" "
                      "width=\"{0}\" height=\"70\" viewBox=\"0 0 {0} 70\">\n",
                      width);
  double x = 0;
  for (const Part &p : parts) {
    double w = total ? width * p.size / total : 0;
    os << llvm::formatv("<rect x=\"{0:F1}\" y=\"{1}\" width=\"{2:F1}\" height=\"{3}\" "
                        "fill=\"{4}\"><title>{5}: {6} B</title></rect>\n",
                        x, barY, w, barH, p.color, p.label, p.size);
    x += w;
  }
  x = 0;
  for (const Part &p : parts) {
    os << llvm::formatv("<rect x=\"{0}\" y=\"50\" width=\"10\" height=\"10\" fill=\"{1}\"/>"
                        "<text x=\"{2}\" y=\"59\">{3} {4}</text>\n",
                        x, p.color, x + 14, p.label, bytes(p.size));
    x += 170;
  }
  os << "</svg>\n";
}

/// The memory plan: layers across, offsets up, one box per buffer over its
/// live range; the region's size and the layer where most bytes are live
/// are marked, and buffers that dominate the peak are outlined.
void memoryPlanSvg(const CompileReport &r, llvm::raw_ostream &os) {
  const MemoryPlan &plan = r.plan;
  const double left = 80, right = 20, top = 24, bottom = 40;
  const double plotW = 880, plotH = 400;
  const double width = left + plotW + right, height = top + plotH + bottom;
  size_t layers = std::max<size_t>(r.layers.size(), 1);
  double colW = plotW / layers;
  double scale = plan.size ? plotH / plan.size : 0;
  auto yOf = [&](uint64_t offset) { return top + plotH - offset * scale; };
  os << llvm::formatv("<svg id=\"memory-plan\" xmlns=\"http://www.w3.org/2000/svg\" "
                      "width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\">\n",
                      width, height);
  os << llvm::formatv("<rect x=\"{0}\" y=\"{1}\" width=\"{2}\" height=\"{3}\" "
                      "fill=\"#fafafa\" stroke=\"#999\"/>\n",
                      left, top, plotW, plotH);
  // The peak layer, behind the buffers.
  os << llvm::formatv("<rect x=\"{0:F1}\" y=\"{1}\" width=\"{2:F1}\" height=\"{3}\" "
                      "fill=\"#e15759\" fill-opacity=\"0.12\"/>\n",
                      left + plan.peakLayer * colW, top, colW, plotH);
  std::vector<bool> dominant(plan.buffers.size());
  for (const Warning &w : r.warnings)
    if (w.kind == Warning::Kind::DominantTensor)
      for (size_t i = 0; i < plan.buffers.size(); ++i)
        dominant[i] = dominant[i] || plan.buffers[i].name == w.subject;
  for (size_t i = 0; i < plan.buffers.size(); ++i) {
    const PlacedBuffer &b = plan.buffers[i];
    double x = left + b.begin * colW, w = (b.end - b.begin + 1) * colW;
    double y = yOf(b.offset + b.size), h = std::max(b.size * scale, 1.0);
    os << llvm::formatv(
        "<rect x=\"{0:F1}\" y=\"{1:F1}\" width=\"{2:F1}\" height=\"{3:F1}\" fill=\"{4}\" "
        "fill-opacity=\"0.85\" stroke=\"{5}\" stroke-width=\"{6}\"><title>{7}: {8} B at "
        "+{9}, layers {10}-{11}</title></rect>\n",
        x, y, w, h, kPalette[i % std::size(kPalette)], dominant[i] ? "#c00" : "#fff",
        dominant[i] ? 2.5 : 0.5, escape(b.name), b.size, b.offset, b.begin, b.end);
    // Boxes big enough are labelled with the end of the name that fits.
    size_t fits = w / 7;
    if (h >= 14 && fits >= 6)
      os << llvm::formatv("<text x=\"{0:F1}\" y=\"{1:F1}\">{2}</text>\n", x + 3, y + 12,
                          escape(llvm::StringRef(b.name).take_back(fits)));
  }
  // The region's size, and the axes.
  os << llvm::formatv("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"#c00\" "
                      "stroke-dasharray=\"6 3\"/>\n<text x=\"{3}\" y=\"{4}\" fill=\"#c00\">"
                      "{5} {6} · peak {7} live at layer {8} ({9})</text>\n",
                      left, top, left + plotW, left + 4, top - 6,
                      lir::regionName(plan.region), bytes(plan.size), bytes(plan.peakLiveBytes),
                      plan.peakLayer,
                      r.layers.empty() ? "" : escape(r.layers[plan.peakLayer].name));
  for (int i = 0; i <= 4; ++i) {
    uint64_t offset = plan.size * i / 4;
    double y = yOf(offset);
    os << llvm::formatv("<line x1=\"{0}\" y1=\"{1:F1}\" x2=\"{2}\" y2=\"{1:F1}\" stroke=\"#999\"/>"
                        "<text x=\"{3}\" y=\"{4:F1}\" text-anchor=\"end\">{5}</text>\n",
                        left - 4, y, left, left - 6, y + 4, bytes(offset));
  }
  size_t step = std::max<size_t>(1, (layers + 29) / 30);
  for (size_t i = 0; i < r.layers.size(); i += step)
    os << llvm::formatv("<text x=\"{0:F1}\" y=\"{1}\" text-anchor=\"middle\">{2}</text>\n",
                        left + (i + 0.5) * colW, top + plotH + 14, i);
  os << llvm::formatv("<text x=\"{0}\" y=\"{1}\" text-anchor=\"middle\">layer (time)</text>\n"
                      "<text x=\"14\" y=\"{2}\" transform=\"rotate(-90 14 {2})\" "
                      "text-anchor=\"middle\">{3} offset</text>\n",
                      left + plotW / 2, top + plotH + 32, top + plotH / 2,
                      lir::regionName(plan.region));
  if (plan.buffers.empty())
    os << llvm::formatv("<text x=\"{0}\" y=\"{1}\" text-anchor=\"middle\">no planned "
                        "buffers</text>\n",
                        left + plotW / 2, top + plotH / 2);
  os << "</svg>\n";
}

void layerTable(const CompileReport &r, llvm::raw_ostream &os) {
  uint64_t maxMacs = 1;
  for (const LayerReport &l : r.layers)
    maxMacs = std::max(maxMacs, l.macs);
  os << "<table id=\"layers\">\n<tr><th class=\"num\">#</th><th>layer</th><th>op</th>"
        "<th>kernel</th><th>fused</th><th>inputs</th><th>outputs</th>"
        "<th class=\"num\">MACs</th><th class=\"num\">FLOPs</th>"
        "<th class=\"num\">weights</th></tr>\n";
  auto types = [](llvm::ArrayRef<TensorType> ts) {
    std::string s;
    for (const TensorType &t : ts)
      s += (s.empty() ? "" : "<br>") + escape(t.str());
    return s;
  };
  for (size_t i = 0; i < r.layers.size(); ++i) {
    const LayerReport &l = r.layers[i];
    std::string fused = l.activation.empty() ? "" : "activation " + escape(l.activation);
    for (const std::string &f : l.fused)
      fused += (fused.empty() ? "" : "<br>") + escape(f);
    std::string kernel = l.strategy.empty() ? "<span class=\"none\">default</span>"
                                            : escape(l.strategy);
    if (!l.slowFallback.empty())
      kernel += "<br><span class=\"warn\">slow: " + escape(l.slowFallback) + "</span>";
    os << llvm::formatv(
        "<tr{0}><td class=\"num\">{1}</td><td><code>{2}</code></td><td>{3}</td><td>{4}</td>"
        "<td>{5}</td><td><code>{6}</code></td><td><code>{7}</code></td>"
        "<td class=\"num\">{8} <span class=\"bar\" style=\"width:{9}px\"></span></td>"
        "<td class=\"num\">{10}</td><td class=\"num\">{11}</td></tr>\n",
        l.slowFallback.empty() ? "" : " class=\"slow\"", i, escape(l.name), escape(l.op),
        kernel, fused, types(l.inputs), types(l.outputs), count(l.macs),
        llvm::formatv("{0:F0}", 60.0 * l.macs / maxMacs), count(l.flops),
        l.weightBytes ? bytes(l.weightBytes) : "");
  }
  os << "</table>\n";
}

} // namespace

llvm::Expected<std::string> reportHtml(const CompileReport &r) {
  std::string html;
  llvm::raw_string_ostream os(html);
  std::string name = escape(r.bundleName);
  os << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>kiln "
        "report: "
     << name << "</title>\n<style>" << kStyle << "</style>\n</head>\n<body>\n";
  os << "<h1>" << name << "</h1>\n"
     << llvm::formatv("<p class=\"meta\">{0}, CPU {1} · {2} layers · {3}MACs</p>\n",
                      escape(r.triple), escape(r.cpu), r.layers.size(), count(r.totalMacs()));

  const Footprint &fp = r.footprint;
  os << "<h2>Footprint</h2>\n";
  footprintSvg(fp, os);
  os << llvm::formatv("<p>flash: code {0} + weights {1}; RAM: scratch {2} + io {3}; "
                      "stack: {4}.</p>\n",
                      bytes(fp.codeBytes), bytes(fp.weightsBytes), bytes(fp.scratchBytes),
                      bytes(fp.ioBytes),
                      fp.stack.bytes
                          ? bytes(*fp.stack.bytes) + " at most (NAME_STACK_SIZE)"
                          : "unknown, " + escape(fp.stack.unknownBecause));

  os << "<h2>Warnings</h2>\n";
  if (r.warnings.empty())
    os << "<p class=\"none\">none</p>\n";
  else {
    os << "<ul id=\"warnings\">\n";
    for (const Warning &w : r.warnings)
      os << "<li class=\"warn\">" << warningKindName(w.kind) << ": " << escape(w.message)
         << "</li>\n";
    os << "</ul>\n";
  }

  os << "<h2>Layer graph</h2>\n<p>" << kLayerGraphCaption << "</p>\n";
  if (auto err = writeLayerGraphSvg(r, os))
    return std::move(err);

  os << "<h2>Memory plan</h2>\n<p>One box per buffer of the " << lir::regionName(r.plan.region)
     << " region, from the layer that first touches it to the last that reads it; red "
        "outlines: buffers that dominate the peak (hover for names).</p>\n";
  memoryPlanSvg(r, os);

  os << "<h2>Layers</h2>\n";
  layerTable(r, os);
  os << "</body>\n</html>\n";
  return html;
}

} // namespace kiln::report
