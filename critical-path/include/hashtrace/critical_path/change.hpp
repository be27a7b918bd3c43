// hashtrace/critical_path/change.hpp - a what-if change to one segment
// class: "FROM->TO*F" scales its durations by F (> 0), "FROM->TO+D" and
// "FROM->TO-D" add or remove D (units ms, us or s; never below zero). FROM
// and TO are node/tracepoint selectors as in the spec (`*` matches any run
// of characters).
#pragma once

#include "hashtrace/graph/spec.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace hashtrace::critical_path {

struct Change {
    std::string text;  // as given
    graph::Selector from, to;
    double factor = 1;          // *F
    std::int64_t delta_ns = 0;  // +D / -D

    bool matches(const graph::Tracepoint& from_tp, const graph::Tracepoint& to_tp) const {
        return from.matches(from_tp.node_name, from_tp.tracepoint_name) && to.matches(to_tp.node_name, to_tp.tracepoint_name);
    }
    std::int64_t apply(std::int64_t ns) const;
};

// Throws std::invalid_argument with the reason (malformed, factor <= 0, no unit...).
Change parse_change(std::string_view text);

}  // namespace hashtrace::critical_path
