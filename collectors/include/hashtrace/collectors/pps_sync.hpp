// hashtrace/collectors/pps_sync.hpp - dating PPS edges from the software logs
// (the paper, section 5.4).
//
// For each PPS edge, the last code readable before it is hashed and looked up
// in the software logs. Any sample with that hash was taken before the code
// was shown, and (for a steady message flow) less than a second before the
// edge; its time, less the clocks' maximum recorded deviation from the PPS,
// rounded up to the second, is the edge's second. Edges are numbered in whole
// seconds from the first (from the frame count), so each candidate votes for
// the second of the first edge; the most voted one wins. A code whose samples
// are older than a second (a stalled display) or a reused hash only casts a
// losing vote instead of corrupting the clock.
#pragma once

#include "hashtrace/collectors/frame_clock.hpp"
#include "hashtrace/collectors/frame_observation.hpp"
#include "hashtrace/collectors/payload.hpp"
#include "hashtrace/collectors/pps_edges.hpp"
#include "hashtrace/hash128.hpp"
#include "hashtrace/logio/sample_log.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

namespace hashtrace::collectors {

// Times of software samples by hash (input or output), for one hash function.
class SoftwareTimes {
public:
    explicit SoftwareTimes(HashFunction function) : function_(function) {}
    void add(const logio::SampleLog& log);
    const std::vector<std::int64_t>* find(const Hash128& hash) const;
    std::size_t samples() const noexcept { return samples_; }

private:
    struct HashKey {
        std::size_t operator()(const Hash128& h) const noexcept { return h.prefix64(); }
    };
    HashFunction function_;
    std::unordered_map<Hash128, std::vector<std::int64_t>, HashKey> times_;
    std::size_t samples_ = 0;
};

struct PpsSyncResult {
    std::optional<FrameClock> clock;       // nullopt when no edge could be dated
    std::int64_t first_edge_second_ns = 0;
    std::size_t edges = 0;
    std::size_t edges_with_match = 0;      // edges whose last code matched a software sample
    std::size_t edges_agreeing = 0;        // of those, edges that voted for the winner
};

// The index of the last frame before `frame` whose payload maps to a hash, and that hash.
struct CodeBefore {
    std::size_t frame = 0;
    Hash128 hash;
};
std::optional<CodeBefore> last_code_before(std::span<const FrameObservation> frames, std::size_t frame,
                                           const PayloadMapping& mapping);

PpsSyncResult sync_to_software(std::span<const PpsEdge> edges, std::span<const FrameObservation> frames,
                               const PayloadMapping& mapping, const SoftwareTimes& software,
                               double frames_per_second, std::int64_t max_clock_deviation_ns);

}  // namespace hashtrace::collectors
