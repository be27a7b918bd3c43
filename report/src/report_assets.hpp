// report_assets.hpp - the report's page template, style and scripts, embedded
// at build time from report/assets/, and uPlot, embedded from npm's copy
// (report/CMakeLists.txt, cmake/embed_assets.cmake).
#pragma once

#include <string_view>

namespace hashtrace::report::assets {

extern const std::string_view report_html;
extern const std::string_view report_css;
extern const std::string_view common_js, tables_js, graph_js, charts_js, critical_path_js, spacetime_js, report_js;
extern const std::string_view uPlot_iife_min_js;
extern const std::string_view uPlot_min_css;

}  // namespace hashtrace::report::assets
