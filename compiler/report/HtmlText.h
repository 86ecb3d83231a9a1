//===- HtmlText.h - Text inside the report's HTML and SVG ------*- C++ -*-===//
#ifndef KILN_REPORT_HTMLTEXT_H
#define KILN_REPORT_HTMLTEXT_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace kiln::report {

/// `s` with the five characters HTML gives meaning escaped.
inline std::string escape(llvm::StringRef s) {
  std::string out;
  for (char c : s) {
    switch (c) {
    case '&': out += "&amp;"; break;
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '"': out += "&quot;"; break;
    case '\'': out += "&#39;"; break;
    default: out += c;
    }
  }
  return out;
}

} // namespace kiln::report

#endif
