// The inferred structure as JSON (docs/infer.md), its keys in the order written.
#include "hashtrace/infer/writers.hpp"

#include <nlohmann/json.hpp>

namespace hashtrace::infer {

std::string write_json(const Evidence& ev, const Chains& ch, const std::vector<ProposedInterval>& intervals) {
    using json = nlohmann::ordered_json;
    auto names = [&](const std::vector<ClassId>& ids) {
        json a = json::array();
        for (const auto c : ids) a.push_back(ev.classes[c].selector());
        return a;
    };
    json j;
    j["samples"] = ev.samples;
    j["nodes"] = ev.nodes;
    j["window_s"] = ev.window_s;
    j["specless_links"] = ev.links;
    j["links_a_spec_removes"] = ev.links_a_spec_removes();
    json tracepoints = json::array();
    for (const auto& c : ev.classes)
        tracepoints.push_back({{"selector", c.selector()}, {"samples", c.samples}, {"input_label", c.input_label}, {"output_label", c.output_label}});
    j["tracepoints"] = std::move(tracepoints);
    json pairs = json::array();
    for (const auto& p : ev.pairs) {
        json e{{"from", ev.classes[p.from].selector()},
               {"to", ev.classes[p.to].selector()},
               {"verdict", std::string(to_string(p.verdict))},
               {"reason", p.reason},
               {"links", p.links},
               {"rate_per_s", p.rate_per_s},
               {"consumer_share", p.consumer_share},
               {"producer_share", p.producer_share},
               {"same_instance", p.same_instance},
               {"same_thread", p.same_thread},
               {"p10_ms", p.p10_ms},
               {"p50_ms", p.p50_ms},
               {"p90_ms", p.p90_ms},
               {"checked", p.checked},
               {"implied_share", p.implied_share}};
        if (p.verdict == Verdict::kept) {
            e["scope"] = std::string(graph::to_string(p.scope));
            e["scope_reason"] = p.scope_reason;
        }
        pairs.push_back(std::move(e));
    }
    j["pairs"] = std::move(pairs);
    j["sources"] = names(ch.sources);
    j["sinks"] = names(ch.sinks);
    j["fan_out"] = names(ch.fan_out);
    j["fan_in"] = names(ch.fan_in);
    json routes = json::array();
    for (const auto& r : ch.routes) routes.push_back({{"path", names(r.path)}, {"bottleneck_links", r.bottleneck}});
    j["routes"] = std::move(routes);
    json ints = json::array();
    for (const auto& i : intervals)
        ints.push_back({{"name", i.name}, {"from", ev.classes[i.from].selector()}, {"to", ev.classes[i.to].selector()},
                        {"kind", std::string(graph::to_string(i.kind))}, {"why", i.why}});
    j["intervals"] = std::move(ints);
    return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace hashtrace::infer
