// The inferred system as a Graphviz picture: one cluster per node, its
// tracepoints inside, kept pairs solid, suspect pairs dashed.
#include "hashtrace/infer/writers.hpp"

#include "text.hpp"

#include <algorithm>
#include <map>
#include <sstream>

namespace hashtrace::infer {
namespace {

std::string dot_id(const std::string& text) {
    std::string out = "\"";
    for (const char ch : text) {
        if (ch == '\n') out += "\\n";  // Graphviz's line break in a label
        else if (ch == '"' || ch == '\\') out += '\\', out += ch;
        else if (ch != '\r') out += ch;
    }
    return out + "\"";
}

bool contains(const std::vector<ClassId>& v, ClassId c) { return std::find(v.begin(), v.end(), c) != v.end(); }

}  // namespace

std::string write_dot(const Evidence& ev, const Chains& ch) {
    std::ostringstream out;
    std::size_t kept = 0, suspect = 0, shortcuts = 0;
    for (const auto& p : ev.pairs) {
        kept += p.verdict == Verdict::kept;
        shortcuts += p.verdict == Verdict::shortcut;
        suspect += p.verdict != Verdict::kept && p.verdict != Verdict::shortcut;
    }
    out << "// The system as `hashtrace infer` recovered it; render: dot -Tsvg system.dot -o system.svg\n"
        << "digraph system {\n  rankdir=LR;\n  node [shape=box, style=rounded, fontsize=10];\n  edge [fontsize=9];\n"
        << "  label=" << dot_id(detail::format("%zu kept pairs (solid), %zu suspect (dashed); %zu shortcuts not drawn", kept, suspect, shortcuts))
        << ";\n";
    std::map<std::string, std::vector<ClassId>> by_node;
    for (ClassId c = 0; c < ev.classes.size(); ++c) by_node[ev.classes[c].node].push_back(c);
    std::size_t cluster = 0;
    for (const auto& [node, members] : by_node) {
        out << "  subgraph cluster_" << cluster++ << " {\n    label=" << dot_id(node) << ";\n";
        for (const ClassId c : members) {
            const auto& cls = ev.classes[c];
            std::string shape;
            if (contains(ch.sources, c)) shape = ", style=\"rounded,bold\"";
            else if (contains(ch.sinks, c)) shape = ", peripheries=2";
            out << "    " << dot_id(cls.selector()) << " [label=" << dot_id(cls.tracepoint + "\n" + std::to_string(cls.samples) + " samples") << shape
                << "];\n";
        }
        out << "  }\n";
    }
    for (const auto& p : ev.pairs) {
        if (p.verdict == Verdict::shortcut) continue;
        std::string label = detail::rate_text(p.rate_per_s) + "\n" + detail::duration_text(p.p50_ms);
        out << "  " << dot_id(ev.classes[p.from].selector()) << " -> " << dot_id(ev.classes[p.to].selector()) << " [label=";
        if (p.verdict == Verdict::kept) {
            if (p.scope != graph::PairScope::any) label += "\n" + std::string(graph::to_string(p.scope));
            out << dot_id(label) << "];\n";
        } else {
            out << dot_id(label + "\n" + std::string(to_string(p.verdict))) << ", style=dashed, color=gray50, fontcolor=gray50];\n";
        }
    }
    out << "}\n";
    return out.str();
}

}  // namespace hashtrace::infer
