// hashtrace/metrics/render.hpp - the render stage: AnalysisResult -> text.
#pragma once

#include "hashtrace/metrics/analysis.hpp"

#include <string>

namespace hashtrace::metrics {

std::string render_table(const AnalysisResult&);     // terminal, like the paper's Table 5
std::string render_markdown(const AnalysisResult&);
std::string render_csv(const AnalysisResult&);       // one row per statistic: section,name,stat,value
std::string render_json(const AnalysisResult&);      // docs/spec.md section 5b, plus the extra fields documented in docs/analysis.md

}  // namespace hashtrace::metrics
