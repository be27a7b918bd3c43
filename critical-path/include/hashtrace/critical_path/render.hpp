// hashtrace/critical_path/render.hpp - the critical-path and what-if results
// as a terminal table, Markdown and JSON (docs/critical-path.md).
#pragma once

#include "hashtrace/critical_path/critical_path.hpp"
#include "hashtrace/critical_path/whatif.hpp"

#include <string>
#include <vector>

namespace hashtrace::critical_path {

std::string render_table(const std::vector<IntervalCriticalPath>& paths);
std::string render_markdown(const std::vector<IntervalCriticalPath>& paths);
// {"critical_path": [{interval, count, mean_ms, segments: [...]}]}
std::string render_json(const std::vector<IntervalCriticalPath>& paths);

std::string render_table(const WhatIfResult& result);
// {interval, changes, baseline: {count, mean_ms, p50_ms, p95_ms, p99_ms, m8}, predicted: {...}, ...}
std::string render_json(const WhatIfResult& result);

}  // namespace hashtrace::critical_path
