// report_assets.hpp - the report's page template, style and script, embedded
// at build time from report/assets/ (cmake/embed_assets.cmake).
#pragma once

#include <string_view>

namespace hashtrace::report::assets {

extern const std::string_view report_html;
extern const std::string_view report_css;
extern const std::string_view report_js;

}  // namespace hashtrace::report::assets
