// hashtrace/report/html_report.hpp - the render stage of the report:
// ReportData -> JSON -> one self-contained HTML page (its script and style
// are compiled into hashtrace from report/assets/; nothing is fetched when
// the page is opened).
#pragma once

#include "hashtrace/report/report_data.hpp"

#include <ostream>

namespace hashtrace::report {

// The data model as JSON (docs/report.md).
void write_report_json(const ReportData& data, std::ostream& out);

void write_report_html(const ReportData& data, std::ostream& out);

}  // namespace hashtrace::report
