// analyze_leniently.hpp - the whole pipeline on one arbitrary log, lenient as
// a user with a damaged log would run it: load, link, every metric, every
// renderer. A log may be rejected only with LogError.
#pragma once

#include "hashtrace/graph/link.hpp"
#include "hashtrace/graph/load.hpp"
#include "hashtrace/logio/reader.hpp"
#include "hashtrace/metrics/analysis.hpp"
#include "hashtrace/metrics/render.hpp"

#include <string>

namespace hashtrace::fuzz {

// `name` is only for messages: the loader tells binary from CSV by the bytes.
inline void analyze_leniently(const std::string& name, const std::string& log) {
    try {
        const auto samples = graph::load_samples_from_memory({{name, log}}, {true, true, 1, {}});
        static const auto spec = graph::parse_spec("[[interval]]\nname = \"any\"\nfrom = \"*/*\"\nto = \"*/*\"\n", "fuzz.toml");
        graph::LinkOptions options;
        options.tolerance_ns = 1'000'000;
        const auto g = graph::link(samples, spec, options);
        const auto r = metrics::analyze(samples, g, spec, {false, true, 1e-3, 1});
        (void)metrics::render_json(r);
        (void)metrics::render_table(r);
    } catch (const logio::LogError&) {
    }
}

}  // namespace hashtrace::fuzz
