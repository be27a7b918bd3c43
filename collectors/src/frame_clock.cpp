#include "hashtrace/collectors/frame_clock.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace hashtrace::collectors {

FrameClock::FrameClock(std::vector<ClockKnot> knots, double frames_per_second)
    : knots_(std::move(knots)), ns_per_frame_(frames_per_second > 0 ? 1e9 / frames_per_second : 0) {
    if (knots_.empty()) throw std::invalid_argument("a frame clock needs at least one known time");
    if (knots_.size() < 2 && !(frames_per_second > 0))
        throw std::invalid_argument("a frame clock with one known time needs the frame rate");
    for (std::size_t i = 1; i < knots_.size(); ++i)
        if (!(knots_[i].position > knots_[i - 1].position))
            throw std::invalid_argument("frame clock knots must have increasing positions");
}

std::int64_t FrameClock::time_at(double position) const noexcept {
    // Offsets from a knot keep nanosecond precision: an epoch time in a double would not.
    auto from = [position](const ClockKnot& k, double ns_per_frame) {
        return k.time_ns + std::llround((position - k.position) * ns_per_frame);
    };
    if (knots_.size() < 2) return from(knots_.front(), ns_per_frame_);
    auto upper = std::upper_bound(knots_.begin(), knots_.end(), position,
                                  [](double p, const ClockKnot& k) { return p < k.position; });
    std::size_t segment = upper == knots_.begin() ? 0 : static_cast<std::size_t>(upper - knots_.begin()) - 1;
    segment = std::min(segment, knots_.size() - 2);
    const ClockKnot& a = knots_[segment];
    const ClockKnot& b = knots_[segment + 1];
    const double rate = static_cast<double>(b.time_ns - a.time_ns) / (b.position - a.position);
    return from(a, rate);
}

FrameClock clock_from_start_time(std::int64_t frame0_start_ns, double frames_per_second) {
    return FrameClock({{0.0, frame0_start_ns}}, frames_per_second);
}

std::int64_t ceil_to_second(std::int64_t ns) noexcept {
    constexpr std::int64_t second = 1'000'000'000;
    std::int64_t q = ns / second;
    if (ns % second > 0) ++q;  // C++ division truncates toward zero, which is already the ceiling below zero
    return q * second;
}

}  // namespace hashtrace::collectors
