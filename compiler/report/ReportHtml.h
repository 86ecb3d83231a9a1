//===- ReportHtml.h - The compile report as one HTML page ------*- C++ -*-===//
#ifndef KILN_REPORT_REPORTHTML_H
#define KILN_REPORT_REPORTHTML_H

#include "compiler/report/CompileReport.h"

#include <string>

namespace kiln::report {

/// NAME.report.html: one self-contained page (inline CSS and SVG, no script,
/// nothing fetched), readable offline: the footprint as a bar, the warnings,
/// the memory plan as a picture (layers across, offsets up, one box per
/// buffer, the peak marked) and a table of the layers.
std::string reportHtml(const CompileReport &r);

} // namespace kiln::report

#endif
