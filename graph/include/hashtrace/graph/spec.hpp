// hashtrace/graph/spec.hpp - the analysis spec of docs/spec.md section 3 (TOML):
// which tracepoint pairs may link, and the named semantic intervals.
#pragma once

#include "hashtrace/graph/sample_set.hpp"

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace hashtrace::graph {

// "node/tracepoint" with `*` matching any run of characters in either part.
struct Selector {
    std::string node;
    std::string tracepoint;

    static Selector parse(std::string_view text);  // throws std::invalid_argument
    bool matches(std::string_view node_name, std::string_view tracepoint_name) const;
    std::string text() const { return node + "/" + tracepoint; }
};

bool glob_match(std::string_view pattern, std::string_view text);

enum class PairScope { any, instance, thread };
enum class IntervalKind { process, end_to_end };

std::string_view to_string(PairScope);
std::string_view to_string(IntervalKind);

struct PairRule {
    Selector from;
    Selector to;
    PairScope scope = PairScope::any;
    std::uint32_t line = 0;  // where it was defined in the spec file (1-based; 0 = not from a file)
};

struct IntervalSpec {
    std::string name;
    Selector from;
    Selector to;
    IntervalKind kind = IntervalKind::process;
    std::uint32_t line = 0;
};

struct AnalysisSpec {
    std::string file;              // for messages; empty when built in code
    std::vector<PairRule> pairs;   // empty: every pair may link
    std::vector<IntervalSpec> intervals;
};

class SpecError : public std::runtime_error {
public:
    SpecError(std::string file, std::uint32_t line, std::string reason);
    const std::string& file() const noexcept { return file_; }
    std::uint32_t line() const noexcept { return line_; }
    const std::string& reason() const noexcept { return reason_; }

private:
    std::string file_;
    std::uint32_t line_;
    std::string reason_;
};

AnalysisSpec parse_spec(std::string_view toml_text, const std::string& file_name);
// Throws SpecError naming the file unless it is a regular file it can read.
AnalysisSpec load_spec(const std::filesystem::path& file);

// For a spec that parsed but says nothing (a file left empty, or all of it
// commented out): "file: ..." saying what that means; "" for any other spec.
std::string empty_spec_warning(const AnalysisSpec& spec);

// Selectors of the spec that match no tracepoint of the samples, as
// "file:line: reason" messages (a typo in a spec otherwise yields silently empty results).
std::vector<SpecError> unmatched_selectors(const AnalysisSpec& spec, const SampleSet& samples);

}  // namespace hashtrace::graph
