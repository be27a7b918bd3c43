// The report's system section: the picture `hashtrace infer` draws
// (infer/system_picture.hpp), as the page draws it.
#include "hashtrace/infer/chains.hpp"
#include "hashtrace/infer/system_picture.hpp"
#include "hashtrace/report/build.hpp"

namespace hashtrace::report {

SystemDrawing system_section(const infer::Evidence& evidence) {
    const auto picture = infer::system_picture(evidence, infer::recover_chains(evidence));
    SystemDrawing d;
    d.kept = picture.kept;
    d.suspect = picture.suspect;
    d.shortcuts = picture.shortcuts;
    d.depths = picture.depths;
    d.links = evidence.links;
    d.links_a_spec_removes = evidence.links_a_spec_removes();
    for (const auto& node : picture.nodes) {
        SystemNode& box = d.nodes.emplace_back();
        box.name = node.name;
        for (const auto& tp : node.tracepoints) box.tracepoints.push_back({tp.selector, tp.name, tp.samples, tp.source, tp.sink, tp.depth});
    }
    for (const auto& e : picture.edges)
        d.edges.push_back({e.from, e.to, e.rate_per_s, e.p50_ms, e.suspect, std::string(infer::to_string(e.verdict)),
                           e.suspect ? std::string() : std::string(graph::to_string(e.scope))});
    return d;
}

}  // namespace hashtrace::report
