// Two specs on one run: their links compared edge by edge, their intervals
// by what they measure (selectors), not by name.
#include "hashtrace/infer/agreement.hpp"

#include "hashtrace/metrics/analysis.hpp"

#include <algorithm>
#include <cmath>

namespace hashtrace::infer {

bool IntervalAgreement::same() const {
    return found && reference_count == other_count &&
           std::fabs(reference_mean_ms - other_mean_ms) <= 1e-9 * std::max({1.0, std::fabs(reference_mean_ms), std::fabs(other_mean_ms)});
}

double SpecAgreement::precision() const { return other_links ? double(common_links) / double(other_links) : 1.0; }
double SpecAgreement::recall() const { return reference_links ? double(common_links) / double(reference_links) : 1.0; }

SpecAgreement compare_specs(const graph::SampleSet& samples, const graph::AnalysisSpec& reference, const graph::AnalysisSpec& other,
                            const graph::LinkOptions& options) {
    SpecAgreement out;
    const auto a = graph::link(samples, reference, options);
    const auto b = graph::link(samples, other, options);
    out.reference_links = a.edges.size();
    out.other_links = b.edges.size();
    // Both edge lists are sorted by (from, to): one merge counts the common ones.
    auto less = [](const graph::Edge& x, const graph::Edge& y) { return x.from != y.from ? x.from < y.from : x.to < y.to; };
    for (std::size_t i = 0, j = 0; i < a.edges.size() && j < b.edges.size();) {
        if (less(a.edges[i], b.edges[j])) ++i;
        else if (less(b.edges[j], a.edges[i])) ++j;
        else ++out.common_links, ++i, ++j;
    }
    // Only the other spec's intervals that the reference also measures.
    graph::AnalysisSpec matching = other;
    matching.intervals.clear();
    std::vector<int> index_in_matching;
    for (const auto& r : reference.intervals) {
        const auto it = std::find_if(other.intervals.begin(), other.intervals.end(),
                                     [&](const graph::IntervalSpec& o) { return o.from.text() == r.from.text() && o.to.text() == r.to.text(); });
        index_in_matching.push_back(it == other.intervals.end() ? -1 : int(matching.intervals.size()));
        if (it != other.intervals.end()) matching.intervals.push_back(*it);
    }
    const auto ra = metrics::analyze(samples, a, reference);
    const auto rb = metrics::analyze(samples, b, matching);
    for (std::size_t k = 0; k < reference.intervals.size(); ++k) {
        IntervalAgreement ia;
        ia.name = reference.intervals[k].name;
        ia.from = reference.intervals[k].from.text();
        ia.to = reference.intervals[k].to.text();
        ia.reference_count = ra.intervals[k].latency_ms.count;
        ia.reference_mean_ms = ra.intervals[k].latency_ms.mean;
        if (index_in_matching[k] >= 0) {
            const auto& m = rb.intervals[std::size_t(index_in_matching[k])].latency_ms;
            ia.found = true;
            ia.other_count = m.count;
            ia.other_mean_ms = m.mean;
        }
        out.intervals.push_back(std::move(ia));
    }
    return out;
}

}  // namespace hashtrace::infer
