//===- ReportHtml.h - The compile report as one HTML page ------*- C++ -*-===//
#ifndef KILN_REPORT_REPORTHTML_H
#define KILN_REPORT_REPORTHTML_H

#include "compiler/report/CompileReport.h"

#include "llvm/Support/Error.h"

#include <string>

namespace kiln::report {

/// NAME.report.html: one self-contained page (inline CSS and SVG, no script,
/// nothing fetched), readable offline: the footprint as a bar, the warnings,
/// the layer graph (LayerGraph.h), the memory plan as a picture (layers
/// across, offsets up, one box per buffer, the peak marked) and a table of
/// the layers. An error only where the layer graph cannot be drawn.
llvm::Expected<std::string> reportHtml(const CompileReport &r);

} // namespace kiln::report

#endif
