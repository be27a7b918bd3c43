// The evidence for the terminal: what was kept, what was rejected and why.
#include "hashtrace/infer/writers.hpp"

#include "text.hpp"

#include <sstream>

namespace hashtrace::infer {

std::string write_report(const Evidence& ev, const Chains& ch) {
    std::ostringstream out;
    const auto kept = ev.kept();
    out << detail::format("%llu samples, %zu nodes, %zu tracepoints, %.3f s; %llu links when every pair may link\n",
                          (unsigned long long)ev.samples, ev.nodes, ev.classes.size(), ev.window_s, (unsigned long long)ev.links)
        << detail::format("%zu candidate pairs: %zu kept, %zu rejected; a spec from them removes %llu of the %llu links\n\n",
                          ev.pairs.size(), kept.size(), ev.pairs.size() - kept.size(), (unsigned long long)ev.links_a_spec_removes(),
                          (unsigned long long)ev.links);
    for (const bool want_kept : {true, false}) {
        out << (want_kept ? "kept pairs (scope, links, rate, share of the consumer's inputs, median latency):\n" : "\nrejected pairs:\n");
        for (const auto& p : ev.pairs) {
            if ((p.verdict == Verdict::kept) != want_kept) continue;
            out << "  " << ev.classes[p.from].selector() << " -> " << ev.classes[p.to].selector();
            if (want_kept) out << "  [" << graph::to_string(p.scope) << "]";
            out << detail::format("  %llu links, %s, %s, median %s\n", (unsigned long long)p.links, detail::rate_text(p.rate_per_s).c_str(),
                                  detail::percent_text(p.consumer_share).c_str(), detail::duration_text(p.p50_ms).c_str())
                << "      " << p.reason << "\n";
            if (want_kept) out << "      scope " << p.scope_reason << "\n";
        }
    }
    auto list = [&](const char* title, const std::vector<ClassId>& ids) {
        out << title;
        for (std::size_t i = 0; i < ids.size(); ++i) out << (i ? ", " : " ") << ev.classes[ids[i]].selector();
        out << (ids.empty() ? " none\n" : "\n");
    };
    out << "\n";
    list("sources:", ch.sources);
    list("sinks:", ch.sinks);
    list("fan-out:", ch.fan_out);
    list("fan-in:", ch.fan_in);
    out << "main routes:\n";
    for (const auto& r : ch.routes) {
        out << "  ";
        for (std::size_t i = 0; i < r.path.size(); ++i) out << (i ? " -> " : "") << ev.classes[r.path[i]].selector();
        out << detail::format("  (%llu links at its narrowest)\n", (unsigned long long)r.bottleneck);
    }
    return out.str();
}

}  // namespace hashtrace::infer
