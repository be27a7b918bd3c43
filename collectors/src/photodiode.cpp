#include "hashtrace/collectors/photodiode.hpp"

#include "hashtrace/canonical.hpp"

namespace hashtrace::collectors {

logio::SampleRecord photodiode_sample(const sensors::Edge& edge, std::uint64_t flash, HashFunction function) noexcept {
    logio::SampleRecord s;
    s.time_ns = edge.realtime_ns;
    s.input_hash = hash_of(function, flash);
    s.seq = edge.sequence;
    s.tracepoint = edge.kind == sensors::EdgeKind::rising ? kDisplayBright : kDisplayDark;
    s.flags = logio::SampleRecord::kHasInput | logio::SampleRecord::kHasSeq;
    return s;
}

PhotodiodeRecorder::PhotodiodeRecorder(logio::LogWriter& writer, const PhotodiodeOptions& options)
    : writer_(writer), options_(options) {
    for (const char* name : {"DisplayBright", "DisplayDark"}) {  // kDisplayBright, kDisplayDark
        logio::TracepointInfo t;
        t.node_name = options.node_name;
        t.instance = options.instance;
        t.tracepoint_name = name;
        t.input_hash_type = "flash";
        t.hash_function = options.hash_function;
        writer_.add_tracepoint(t);
    }
}

void PhotodiodeRecorder::record(const sensors::Edge& edge) {
    if (!first_sequence_) first_sequence_ = edge.sequence;
    if (last_sequence_ && edge.sequence > *last_sequence_ + 1) stats_.lost_edges += edge.sequence - *last_sequence_ - 1;
    last_sequence_ = edge.sequence;
    const std::uint64_t flash = options_.first_flash + (edge.sequence - *first_sequence_);
    if ((flash % 2 == 1) != (edge.kind == sensors::EdgeKind::rising)) ++stats_.parity_mismatches;
    writer_.write(photodiode_sample(edge, flash, options_.hash_function));
    ++stats_.edges;
}

}  // namespace hashtrace::collectors
