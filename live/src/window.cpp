#include "hashtrace/live/window.hpp"

#include <algorithm>

namespace hashtrace::live {

void Window::add(std::size_t stream, const std::string& name, const std::string& header_bytes, logio::StreamBlock block) {
    Stream& s = streams_[stream];
    if (s.header.empty()) {
        s.name = name;
        s.header = header_bytes;
    }
    if (block.samples > 0) {
        newest_ = std::max(newest_, block.max_ns);
        oldest_ = std::min(oldest_, block.min_ns);
    }
    s.blocks.push_back(std::move(block));
}

Window::Logs Window::logs(std::int64_t from_ns) const {
    Logs out;
    for (const auto& [id, s] : streams_) {
        std::string bytes = s.header;
        for (const logio::StreamBlock& b : s.blocks)
            if (b.holds_records || b.max_ns >= from_ns) bytes += b.bytes;
        out.emplace_back(s.name, std::move(bytes));
    }
    return out;
}

std::vector<std::size_t> Window::streams() const {
    std::vector<std::size_t> out;
    for (const auto& entry : streams_) out.push_back(entry.first);
    return out;
}

void Window::forget_before(std::int64_t ns) {
    oldest_ = INT64_MAX;
    for (auto& [id, s] : streams_) {
        std::erase_if(s.blocks, [&](const logio::StreamBlock& b) { return !b.holds_records && b.max_ns < ns; });
        for (const logio::StreamBlock& b : s.blocks)
            if (b.samples > 0) oldest_ = std::min(oldest_, b.min_ns);
    }
}

std::uint64_t Window::samples_in(std::int64_t from_ns, std::int64_t to_ns) const {
    std::uint64_t n = 0;
    for (const auto& [id, s] : streams_)
        for (const logio::StreamBlock& b : s.blocks)
            if (b.samples > 0 && b.max_ns >= from_ns && b.min_ns < to_ns) n += b.samples;
    return n;
}

std::map<std::size_t, std::uint64_t> Window::shed(std::int64_t from_ns, std::uint64_t excess) {
    const auto sheddable = [&](const logio::StreamBlock& b) { return !b.holds_records && b.samples > 0 && b.min_ns >= from_ns; };
    std::vector<std::pair<std::int64_t, std::uint64_t>> candidates;  // (newest sample, samples)
    for (const auto& [id, s] : streams_)
        for (const logio::StreamBlock& b : s.blocks)
            if (sheddable(b)) candidates.emplace_back(b.max_ns, b.samples);
    std::sort(candidates.begin(), candidates.end());
    // The cut: every sheddable block up to the newest sample that makes up the excess.
    std::uint64_t taken = 0;
    std::int64_t cut = INT64_MIN;
    for (const auto& [newest, samples] : candidates) {
        if (taken >= excess) break;
        taken += samples;
        cut = newest;
    }
    std::map<std::size_t, std::uint64_t> out;
    if (cut == INT64_MIN) return out;
    for (auto& [id, s] : streams_)
        std::erase_if(s.blocks, [&, id = id](const logio::StreamBlock& b) {
            if (!sheddable(b) || b.max_ns > cut) return false;
            out[id] += b.samples;
            return true;
        });
    return out;
}

}  // namespace hashtrace::live
