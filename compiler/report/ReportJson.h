//===- ReportJson.h - The compile report as JSON ---------------*- C++ -*-===//
#ifndef KILN_REPORT_REPORTJSON_H
#define KILN_REPORT_REPORTJSON_H

#include "compiler/report/CompileReport.h"

#include <string>

namespace kiln::report {

/// NAME.report.json: every field of the report, snake_case, sizes in bytes;
/// stack_bytes is null when not measured. For scripts and CI to diff.
std::string reportJson(const CompileReport &r);

} // namespace kiln::report

#endif
