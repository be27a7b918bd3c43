#include "hashtrace/collectors/camera_log.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>

namespace hashtrace::collectors {

std::vector<FrameRole> classify_appearances(std::span<const FrameObservation> frames,
                                            const PayloadMapping& mapping) {
    std::vector<FrameRole> roles(frames.size(), FrameRole::unreadable);
    const std::string* shown = nullptr;
    for (std::size_t i = 0; i < frames.size(); ++i) {
        if (!frames[i].payload) continue;
        if (!payload_hash(mapping, *frames[i].payload)) {
            roles[i] = FrameRole::misread;
            continue;
        }
        // The video's first code was already on the display when filming
        // began: its appearance was not seen, so it is not a display event.
        roles[i] = (!shown || *shown == *frames[i].payload) ? FrameRole::persisting : FrameRole::first;
        shown = &*frames[i].payload;
    }
    return roles;
}

logio::SampleLog build_camera_log(std::span<const FrameObservation> frames, std::span<const FrameRole> roles,
                                  std::span<const PpsEdge> edges, const FrameClock& clock,
                                  const CameraLogOptions& options, CameraLogStats& stats) {
    if (roles.size() != frames.size()) throw std::invalid_argument("one role per frame is needed");
    logio::SampleLog log;
    log.header = {{"node", options.node_name},
                  {"instance", options.instance},
                  {"clock_source", "video frame count, PPS LED"},
                  {"payload_mapping", describe(options.mapping)}};
    auto tracepoint = [&](const char* name, const std::string& input_type) {
        logio::TracepointInfo info;
        info.node_name = options.node_name;
        info.instance = options.instance;
        info.tracepoint_name = name;
        info.input_hash_type = input_type;
        info.hash_function = options.mapping.hash_function;
        log.tracepoints.push_back(info);
    };
    tracepoint("QrDisplayed", options.input_hash_type);   // kQrDisplayed
    tracepoint("QrPersisting", options.input_hash_type);  // kQrPersisting
    tracepoint("PpsRisingEdge", "");                      // kPpsRisingEdge

    stats = {};
    stats.frames = frames.size();
    stats.pps_edges = edges.size();
    std::vector<logio::SampleRecord> samples;
    std::optional<std::size_t> last_read;  // the latest frame with a code
    for (std::size_t i = 0; i < frames.size(); ++i) {
        if (roles[i] == FrameRole::unreadable || roles[i] == FrameRole::misread) {
            ++(roles[i] == FrameRole::unreadable ? stats.unreadable : stats.misread);
            continue;
        }
        const auto hash = payload_hash(options.mapping, *frames[i].payload);
        if (!hash) throw std::invalid_argument("frame roles were classified under another payload mapping");
        logio::SampleRecord s;
        s.time_ns = clock.frame_time(i);
        if (roles[i] == FrameRole::first && options.display_time == DisplayTime::gap_middle && last_read &&
            i - *last_read - 1 <= options.max_gap_frames) {
            // Middle of the centres of the old code's last frame and this one.
            s.time_ns = clock.time_at((static_cast<double>(*last_read) + static_cast<double>(i)) / 2 + 0.5);
        }
        last_read = i;
        s.input_hash = *hash;
        s.seq = i;
        s.tracepoint = roles[i] == FrameRole::first ? kQrDisplayed : kQrPersisting;
        s.flags = logio::SampleRecord::kHasInput | logio::SampleRecord::kHasSeq;
        ++(roles[i] == FrameRole::first ? stats.appearances : stats.persisting);
        samples.push_back(s);
    }
    for (const auto& e : edges) {
        logio::SampleRecord s;
        s.time_ns = clock.time_at(e.position);
        s.seq = e.frame;
        s.tracepoint = kPpsRisingEdge;
        s.flags = logio::SampleRecord::kHasSeq;
        samples.push_back(s);
    }
    // Writers and readers expect a log in time order.
    std::stable_sort(samples.begin(), samples.end(),
                     [](const auto& a, const auto& b) { return a.time_ns < b.time_ns; });
    log.samples = std::move(samples);
    return log;
}

}  // namespace hashtrace::collectors
