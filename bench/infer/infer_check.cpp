// infer_check LOGS... --reference HAND.toml --inferred INFERRED.toml [--min 0.999]
// Links one run with both specs and prints how far they agree: precision and
// recall of the inferred spec's links against the reference's, and for every
// reference interval the inferred interval with the same (from, to), its
// count and mean. Exit status 1 when precision or recall is below --min or
// an interval is missing or measures differently (docs/infer.md;
// bench/infer/check_samples.sh runs it).
#include "hashtrace/graph/load.hpp"
#include "hashtrace/infer/agreement.hpp"
#include "hashtrace/logio/reader.hpp"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

int main(int argc, char** argv) {
    using namespace hashtrace;
    std::vector<std::filesystem::path> inputs;
    std::string reference, inferred;
    double min = 0.999;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--reference" && i + 1 < argc) reference = argv[++i];
        else if (a == "--inferred" && i + 1 < argc) inferred = argv[++i];
        else if (a == "--min" && i + 1 < argc) min = std::strtod(argv[++i], nullptr);
        else inputs.emplace_back(a);
    }
    if (inputs.empty() || reference.empty() || inferred.empty()) {
        std::fprintf(stderr, "usage: infer_check LOGS... --reference HAND.toml --inferred INFERRED.toml [--min 0.999]\n");
        return 2;
    }
    try {
        graph::LoadOptions load;
        const auto samples = graph::load_samples(logio::find_logs(inputs), load);
        auto hand = graph::load_spec(reference);
        const auto other = graph::load_spec(inferred);
        // The reference may name tracepoints a configuration lacks (one spec
        // serves all the sample system's configurations): those intervals measure nothing.
        std::erase_if(hand.intervals, [&](const graph::IntervalSpec& i) {
            const bool unmatched = !graph::unmatched_selectors(graph::AnalysisSpec{"", {}, {i}}, samples).empty();
            if (unmatched) std::printf("  (reference interval '%s' names tracepoints this run lacks: left out)\n", i.name.c_str());
            return unmatched;
        });
        const auto r = infer::compare_specs(samples, hand, other);
        std::printf("links: reference %llu, inferred %llu, common %llu: precision %.6f, recall %.6f\n",
                    (unsigned long long)r.reference_links, (unsigned long long)r.other_links, (unsigned long long)r.common_links,
                    r.precision(), r.recall());
        bool ok = r.precision() >= min && r.recall() >= min;
        for (const auto& i : r.intervals) {
            std::printf("  %-4s %-48s %8zu %12.6f ms | %8zu %12.6f ms\n", i.same() ? "same" : i.found ? "DIFF" : "MISS", i.name.c_str(),
                        i.reference_count, i.reference_mean_ms, i.other_count, i.other_mean_ms);
            ok = ok && i.same();
        }
        std::printf("%s\n", ok ? "agree" : "DISAGREE");
        return ok ? 0 : 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "infer_check: %s\n", e.what());
        return 2;
    }
}
