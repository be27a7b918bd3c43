// The inferred system as a Graphviz picture: one cluster per node, its
// tracepoints inside, kept pairs solid, suspect pairs dashed.
#include "hashtrace/infer/system_picture.hpp"
#include "hashtrace/infer/writers.hpp"

#include "text.hpp"

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

}  // namespace

std::string write_dot(const Evidence& ev, const Chains& ch) {
    const SystemPicture picture = system_picture(ev, ch);
    std::ostringstream out;
    out << "// The system as `hashtrace infer` recovered it; render: dot -Tsvg system.dot -o system.svg\n"
        << "digraph system {\n  rankdir=LR;\n  node [shape=box, style=rounded, fontsize=10];\n  edge [fontsize=9];\n"
        << "  label=" << dot_id(detail::format("%zu kept pairs (solid), %zu suspect (dashed); %zu shortcuts not drawn", picture.kept,
                                              picture.suspect, picture.shortcuts))
        << ";\n";
    std::size_t cluster = 0;
    for (const auto& node : picture.nodes) {
        out << "  subgraph cluster_" << cluster++ << " {\n    label=" << dot_id(node.name) << ";\n";
        for (const auto& tp : node.tracepoints) {
            std::string shape;
            if (tp.source) shape = ", style=\"rounded,bold\"";
            else if (tp.sink) shape = ", peripheries=2";
            out << "    " << dot_id(tp.selector) << " [label=" << dot_id(tp.name + "\n" + std::to_string(tp.samples) + " samples") << shape
                << "];\n";
        }
        out << "  }\n";
    }
    for (const auto& edge : picture.edges) {
        std::string label = detail::rate_text(edge.rate_per_s) + "\n" + detail::duration_text(edge.p50_ms);
        out << "  " << dot_id(edge.from) << " -> " << dot_id(edge.to) << " [label=";
        if (!edge.suspect) {
            if (edge.scope != graph::PairScope::any) label += "\n" + std::string(graph::to_string(edge.scope));
            out << dot_id(label) << "];\n";
        } else {
            out << dot_id(label + "\n" + std::string(to_string(edge.verdict))) << ", style=dashed, color=gray50, fontcolor=gray50];\n";
        }
    }
    out << "}\n";
    return out.str();
}

}  // namespace hashtrace::infer
