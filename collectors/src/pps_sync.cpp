#include "hashtrace/collectors/pps_sync.hpp"

#include <cmath>
#include <map>
#include <set>

namespace hashtrace::collectors {

void SoftwareTimes::add(const logio::SampleLog& log) {
    for (const auto& s : log.samples) {
        if (s.tracepoint >= log.tracepoints.size() || log.tracepoints[s.tracepoint].hash_function != function_)
            continue;
        if (s.has_input()) times_[s.input_hash].push_back(s.time_ns);
        if (s.has_output() && !(s.has_input() && s.output_hash == s.input_hash)) times_[s.output_hash].push_back(s.time_ns);
        ++samples_;
    }
}

const std::vector<std::int64_t>* SoftwareTimes::find(const Hash128& hash) const {
    auto it = times_.find(hash);
    return it == times_.end() ? nullptr : &it->second;
}

std::optional<CodeBefore> last_code_before(std::span<const FrameObservation> frames, std::size_t frame,
                                           const PayloadMapping& mapping) {
    for (std::size_t i = std::min(frame, frames.size()); i-- > 0;) {
        if (!frames[i].payload) continue;
        if (auto h = payload_hash(mapping, *frames[i].payload)) return CodeBefore{i, *h};
    }
    return std::nullopt;
}

PpsSyncResult sync_to_software(std::span<const PpsEdge> edges, std::span<const FrameObservation> frames,
                               const PayloadMapping& mapping, const SoftwareTimes& software,
                               double frames_per_second, std::int64_t max_clock_deviation_ns) {
    constexpr std::int64_t second = 1'000'000'000;
    PpsSyncResult result;
    result.edges = edges.size();
    if (edges.empty() || !(frames_per_second > 0)) return result;

    // Whole seconds since the first edge, from the frame count: camera drift
    // of even 1000 ppm moves an edge by a millisecond, far from half a second.
    std::vector<std::int64_t> seconds_since_first(edges.size());
    for (std::size_t i = 0; i < edges.size(); ++i)
        seconds_since_first[i] = std::llround((edges[i].position - edges[0].position) / frames_per_second);

    std::map<std::int64_t, std::size_t> votes;  // candidate first-edge second -> edges voting for it
    std::vector<std::set<std::int64_t>> candidates(edges.size());
    for (std::size_t i = 0; i < edges.size(); ++i) {
        // Frames before the one holding the edge were exposed entirely before it.
        const auto code = last_code_before(frames, edges[i].frame, mapping);
        if (!code) continue;
        const auto* times = software.find(code->hash);
        if (!times) continue;
        for (std::int64_t t : *times)
            candidates[i].insert(ceil_to_second(t - max_clock_deviation_ns) - seconds_since_first[i] * second);
        ++result.edges_with_match;
        for (std::int64_t c : candidates[i]) ++votes[c];
    }
    if (votes.empty()) return result;

    auto best = votes.begin();
    for (auto it = votes.begin(); it != votes.end(); ++it)
        if (it->second > best->second) best = it;
    result.first_edge_second_ns = best->first;
    result.edges_agreeing = best->second;

    std::vector<ClockKnot> knots;
    for (std::size_t i = 0; i < edges.size(); ++i) {
        // Two edges in the same second (a glitch the detector let through)
        // would make a zero-length segment: keep the first.
        if (!knots.empty() && best->first + seconds_since_first[i] * second <= knots.back().time_ns) continue;
        knots.push_back({edges[i].position, best->first + seconds_since_first[i] * second});
    }
    result.clock.emplace(std::move(knots), frames_per_second);
    return result;
}

}  // namespace hashtrace::collectors
