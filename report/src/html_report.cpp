#include "hashtrace/report/html_report.hpp"

#include "report_assets.hpp"

#include <sstream>
#include <stdexcept>
#include <string>

namespace hashtrace::report {

namespace {

// Copies `page` to `out`, replacing each placeholder by its content.
void fill_template(std::string_view page, std::ostream& out,
                   std::initializer_list<std::pair<std::string_view, std::string_view>> slots) {
    for (const auto& [placeholder, content] : slots) {
        const auto at = page.find(placeholder);
        if (at == std::string_view::npos)
            throw std::logic_error("report template lacks " + std::string(placeholder));
        out << page.substr(0, at) << content;
        page.remove_prefix(at + placeholder.size());
    }
    out << page;
}

// The page's scripts, each in its own element, in the order they must run:
// the helpers first, report.js (which draws every part) last.
std::string report_scripts() {
    std::string html;
    for (const std::string_view script : {assets::common_js, assets::tables_js, assets::graph_js, assets::charts_js,
                                          assets::critical_path_js, assets::spacetime_js, assets::report_js}) {
        html += "<script>\n";
        html += script;
        html += "</script>\n";
    }
    return html;
}

}  // namespace

void write_report_html(const ReportData& data, std::ostream& out) {
    std::ostringstream json;
    write_report_json(data, json);  // escapes '<': safe inside <script>
    static const std::string scripts = report_scripts();
    fill_template(assets::report_html, out,
                  {{"/*UPLOT_CSS*/", assets::uPlot_min_css},
                   {"/*HASHTRACE_CSS*/", assets::report_css},
                   {"/*HASHTRACE_DATA*/", json.str()},
                   {"/*UPLOT_JS*/", assets::uPlot_iife_min_js},
                   {"<!--HASHTRACE_SCRIPTS-->", scripts}});
}

}  // namespace hashtrace::report
