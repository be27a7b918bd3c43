// hashtrace/infer/agreement.hpp - how far two specs agree on one run: the
// links each makes and what their intervals measure. The proof of structure
// recovery (an inferred spec against a hand-written one), and a check a user
// can run on their own spec.
#pragma once

#include "hashtrace/graph/link.hpp"
#include "hashtrace/graph/sample_set.hpp"
#include "hashtrace/graph/spec.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace hashtrace::infer {

struct IntervalAgreement {
    std::string name;            // the reference's interval
    std::string from, to;        // its selectors
    bool found = false;          // the other spec has an interval with the same selectors
    std::size_t reference_count = 0, other_count = 0;
    double reference_mean_ms = 0, other_mean_ms = 0;
    bool same() const;           // found, same count, means equal to 1e-9 relative
};

struct SpecAgreement {
    std::uint64_t reference_links = 0, other_links = 0, common_links = 0;
    double precision() const;    // common / other (1 when other has none)
    double recall() const;       // common / reference (1 when the reference has none)
    std::vector<IntervalAgreement> intervals;  // one per interval of the reference
};

// Links the samples with each spec (the hash ids must still be there) and
// measures the reference's intervals and the other's intervals of the same selectors.
SpecAgreement compare_specs(const graph::SampleSet& samples, const graph::AnalysisSpec& reference, const graph::AnalysisSpec& other,
                            const graph::LinkOptions& options = {});

}  // namespace hashtrace::infer
