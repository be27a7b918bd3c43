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

}  // namespace hashtrace::live
