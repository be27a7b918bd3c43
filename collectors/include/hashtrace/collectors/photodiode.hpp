// hashtrace/collectors/photodiode.hpp - display latency without a camera: a
// photodiode on a comparator watches the display node's patch
// (display_picture.hpp) and drives a GPIO line; each edge becomes a sample.
//
// Samples (node `Photodiode`): DisplayBright for a rising edge, DisplayDark for
// a falling one, at the edge's CLOCK_REALTIME time (the edge source maps the
// kernel's stamps, sensors/clock_mapping.hpp). Input hash: the flash number as
// canonical uint64 (docs/spec.md section 2, type "flash"), the same state the display node
// hashes as the output of its PatchFlashed tracepoint, so the analysis links
// Display/PatchFlashed -> Photodiode/Display*. Flash n is the n-th edge since
// the display started (first_flash is the number of the first edge recorded),
// counted with the source's own sequence numbers, so a lost edge does not
// shift the flashes after it. The patch is white on odd flashes: a rising
// edge on an even flash means the count is off (an edge lost before the
// recording began, or an inverted comparator); those are counted.
#pragma once

#include "hashtrace/hash128.hpp"
#include "hashtrace/logio/sample_log.hpp"
#include "hashtrace/logio/writer.hpp"
#include "hashtrace/sensors/edge_source.hpp"

#include <cstdint>
#include <optional>
#include <string>

namespace hashtrace::collectors {

struct PhotodiodeOptions {
    std::string node_name = "Photodiode";
    std::string instance = "1";
    std::uint64_t first_flash = 1;
    HashFunction hash_function = HashFunction::md5;
};

inline constexpr std::uint32_t kDisplayBright = 0;
inline constexpr std::uint32_t kDisplayDark = 1;

// Pure: the sample for an edge that is flash `flash`.
logio::SampleRecord photodiode_sample(const sensors::Edge& edge, std::uint64_t flash, HashFunction function) noexcept;

struct PhotodiodeStats {
    std::uint64_t edges = 0;
    std::uint64_t lost_edges = 0;        // gaps in the source's sequence numbers
    std::uint64_t parity_mismatches = 0;  // edge direction disagrees with the flash number
};

// Writes each edge as it arrives (a live capture is never held in memory).
class PhotodiodeRecorder {
public:
    PhotodiodeRecorder(logio::LogWriter& writer, const PhotodiodeOptions& options);
    void record(const sensors::Edge& edge);
    const PhotodiodeStats& stats() const noexcept { return stats_; }

private:
    logio::LogWriter& writer_;
    PhotodiodeOptions options_;
    std::optional<std::uint64_t> first_sequence_, last_sequence_;
    PhotodiodeStats stats_;
};

}  // namespace hashtrace::collectors
