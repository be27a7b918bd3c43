// The whole pipeline on an arbitrary CSV log (lenient, as a user with a
// damaged log would run it): load, link, every metric, every renderer.
#include "hashtrace/graph/link.hpp"
#include "hashtrace/graph/load.hpp"
#include "hashtrace/logio/reader.hpp"
#include "hashtrace/metrics/analysis.hpp"
#include "hashtrace/metrics/render.hpp"

#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace hashtrace;
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        const auto samples = graph::load_samples_from_memory({{"fuzz.csv", text}}, {true, true, 1, {}});
        static const auto spec = graph::parse_spec("[[interval]]\nname = \"any\"\nfrom = \"*/*\"\nto = \"*/*\"\n", "fuzz.toml");
        graph::LinkOptions options;
        options.tolerance_ns = 1'000'000;
        const auto g = graph::link(samples, spec, options);
        const auto r = metrics::analyze(samples, g, spec, {false, true, 1e-3, 1});
        (void)metrics::render_json(r);
        (void)metrics::render_table(r);
    } catch (const logio::LogError&) {
    }
    return 0;
}
