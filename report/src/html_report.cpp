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

}  // namespace

void write_report_html(const ReportData& data, std::ostream& out) {
    std::ostringstream json;
    write_report_json(data, json);  // escapes '<': safe inside <script>
    fill_template(assets::report_html, out,
                  {{"/*HASHTRACE_CSS*/", assets::report_css},
                   {"/*HASHTRACE_DATA*/", json.str()},
                   {"/*HASHTRACE_JS*/", assets::report_js}});
}

}  // namespace hashtrace::report
