// The analysis spec (docs/spec.md section 3): TOML via toml++, strict about keys so
// a typo ("scpoe") is an error with its line instead of a silently ignored rule.
#include "hashtrace/graph/spec.hpp"

#include "hashtrace/fileio/read_file.hpp"

#include <toml++/toml.h>

#include <set>

namespace hashtrace::graph {
namespace {

std::uint32_t line_of(const toml::node& n) { return static_cast<std::uint32_t>(n.source().begin.line); }

class TableReader {
public:
    TableReader(const toml::table& table, const std::string& file, std::string_view what)
        : table_(table), file_(file), what_(what) {}

    std::string required(std::string_view key) const {
        auto value = optional(key);
        if (!value) throw SpecError(file_, line_of(table_), std::string(what_) + " needs a string '" + std::string(key) + "'");
        return *value;
    }
    std::optional<std::string> optional(std::string_view key) const {
        const toml::node* n = table_.get(key);
        if (!n) return std::nullopt;
        if (!n->is_string())
            throw SpecError(file_, line_of(*n), std::string(what_) + " key '" + std::string(key) + "' must be a string");
        return n->value<std::string>();
    }
    void reject_unknown(std::initializer_list<std::string_view> known) const {
        for (const auto& [key, node] : table_) {
            bool ok = false;
            for (auto k : known) ok |= key.str() == k;
            if (!ok) throw SpecError(file_, line_of(node), "unknown key '" + std::string(key.str()) + "' in " + std::string(what_));
        }
    }
    Selector selector(std::string_view key) const {
        const std::string text = required(key);
        try {
            return Selector::parse(text);
        } catch (const std::invalid_argument& e) {
            throw SpecError(file_, line_of(*table_.get(key)), e.what());
        }
    }
    std::uint32_t line() const { return line_of(table_); }

private:
    const toml::table& table_;
    const std::string& file_;
    std::string_view what_;
};

const toml::array& array_of_tables(const toml::table& root, std::string_view key, const std::string& file) {
    static const toml::array empty;
    const toml::node* n = root.get(key);
    if (!n) return empty;
    const toml::array* a = n->as_array();
    if (!a || !a->is_array_of_tables())
        throw SpecError(file, line_of(*n), "'" + std::string(key) + "' must be an array of tables ([[" + std::string(key) + "]])");
    return *a;
}

}  // namespace

SpecError::SpecError(std::string file, std::uint32_t line, std::string reason)
    : std::runtime_error(file + (line ? ":" + std::to_string(line) : std::string()) + ": " + reason),
      file_(std::move(file)), line_(line), reason_(std::move(reason)) {}

Selector Selector::parse(std::string_view text) {
    const auto slash = text.find('/');
    if (slash == std::string_view::npos || slash == 0 || slash + 1 == text.size() || text.find('/', slash + 1) != std::string_view::npos)
        throw std::invalid_argument("selector '" + std::string(text) + "' must be 'node/tracepoint' (with optional * globs)");
    return {std::string(text.substr(0, slash)), std::string(text.substr(slash + 1))};
}

bool Selector::matches(std::string_view node_name, std::string_view tracepoint_name) const {
    return glob_match(node, node_name) && glob_match(tracepoint, tracepoint_name);
}

// Iterative glob with backtracking to the last star: linear in practice, no recursion to blow up on fuzzed input.
bool glob_match(std::string_view pattern, std::string_view text) {
    std::size_t p = 0, t = 0, star = std::string_view::npos, resume = 0;
    while (t < text.size()) {
        if (p < pattern.size() && pattern[p] == '*') {
            star = p++;
            resume = t;
        } else if (p < pattern.size() && pattern[p] == text[t]) {
            ++p;
            ++t;
        } else if (star != std::string_view::npos) {
            p = star + 1;
            t = ++resume;
        } else {
            return false;
        }
    }
    while (p < pattern.size() && pattern[p] == '*') ++p;
    return p == pattern.size();
}

std::string_view to_string(PairScope s) {
    switch (s) {
        case PairScope::any: return "any";
        case PairScope::instance: return "instance";
        case PairScope::thread: return "thread";
    }
    return "?";
}

std::string_view to_string(IntervalKind k) { return k == IntervalKind::process ? "process" : "end_to_end"; }

AnalysisSpec parse_spec(std::string_view toml_text, const std::string& file_name) {
    toml::table root;
    try {
        root = toml::parse(toml_text, std::string_view(file_name));
    } catch (const toml::parse_error& e) {
        throw SpecError(file_name, static_cast<std::uint32_t>(e.source().begin.line), std::string(e.description()));
    }
    AnalysisSpec spec;
    spec.file = file_name;
    for (const auto& [key, node] : root)
        if (key.str() != "pair" && key.str() != "interval")
            throw SpecError(file_name, line_of(node), "unknown top-level key '" + std::string(key.str()) + "' (expected [[pair]] or [[interval]])");

    for (const toml::node& n : array_of_tables(root, "pair", file_name)) {
        TableReader r(*n.as_table(), file_name, "[[pair]]");
        r.reject_unknown({"from", "to", "scope"});
        PairRule rule{r.selector("from"), r.selector("to"), PairScope::any, r.line()};
        if (auto scope = r.optional("scope")) {
            if (*scope == "any") rule.scope = PairScope::any;
            else if (*scope == "instance") rule.scope = PairScope::instance;
            else if (*scope == "thread") rule.scope = PairScope::thread;
            else throw SpecError(file_name, line_of(*n.as_table()->get("scope")), "scope '" + *scope + "' is not one of any, instance, thread");
        }
        spec.pairs.push_back(std::move(rule));
    }
    std::set<std::string> names;
    for (const toml::node& n : array_of_tables(root, "interval", file_name)) {
        TableReader r(*n.as_table(), file_name, "[[interval]]");
        r.reject_unknown({"name", "from", "to", "kind"});
        IntervalSpec interval{r.required("name"), r.selector("from"), r.selector("to"), IntervalKind::process, r.line()};
        if (auto kind = r.optional("kind")) {
            if (*kind == "process") interval.kind = IntervalKind::process;
            else if (*kind == "end_to_end") interval.kind = IntervalKind::end_to_end;
            else throw SpecError(file_name, line_of(*n.as_table()->get("kind")), "kind '" + *kind + "' is not one of process, end_to_end");
        }
        if (!names.insert(interval.name).second)
            throw SpecError(file_name, interval.line, "interval name '" + interval.name + "' is used twice");
        spec.intervals.push_back(std::move(interval));
    }
    return spec;
}

AnalysisSpec load_spec(const std::filesystem::path& file) {
    // A directory would read as nothing, an empty spec: refused by name, as anything but a regular file.
    std::string why;
    const auto text = fileio::read_file(file, &why);
    if (!text) throw SpecError(file.string(), 0, why.starts_with("is ") ? why + ", not a spec file" : "cannot open the spec file: " + why);
    return parse_spec(*text, file.string());
}

std::string empty_spec_warning(const AnalysisSpec& spec) {
    if (!spec.pairs.empty() || !spec.intervals.empty()) return {};
    return spec.file + ": the spec has no [[pair]] and no [[interval]]: nothing will be linked by rule (every pair of "
                       "tracepoints may link) and no M4/M5 interval is measured, as without --spec";
}

std::vector<SpecError> unmatched_selectors(const AnalysisSpec& spec, const SampleSet& samples) {
    std::vector<SpecError> problems;
    auto check = [&](const Selector& s, std::uint32_t line, std::string_view where) {
        for (const Tracepoint& tp : samples.tracepoints)
            if (s.matches(tp.node_name, tp.tracepoint_name)) return;
        problems.emplace_back(spec.file, line, std::string(where) + " selector '" + s.text() + "' matches no tracepoint in the logs");
    };
    for (const PairRule& p : spec.pairs) {
        check(p.from, p.line, "[[pair]] from");
        check(p.to, p.line, "[[pair]] to");
    }
    for (const IntervalSpec& i : spec.intervals) {
        check(i.from, i.line, "[[interval]] '" + i.name + "' from");
        check(i.to, i.line, "[[interval]] '" + i.name + "' to");
    }
    return problems;
}

}  // namespace hashtrace::graph
