// hashtrace/collectors/frame_clock.hpp - absolute times for video frames.
//
// A FrameClock maps frame positions (frames since the start of frame 0's
// exposure, see pps_edges.hpp) to UTC nanoseconds. Between PPS edges it is
// linear in the frame count, which absorbs the camera clock's drift; before
// the first and after the last edge it extends the nearest segment. A frame's
// time is the middle of its exposure (position k + 0.5), so an event seen first
// in frame k is dated within half a frame of when it happened.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace hashtrace::collectors {

struct ClockKnot {
    double position = 0;     // frames
    std::int64_t time_ns = 0;
};

class FrameClock {
public:
    // Knots sorted by position. With fewer than two, `frames_per_second` gives the rate.
    FrameClock(std::vector<ClockKnot> knots, double frames_per_second);

    std::int64_t time_at(double position) const noexcept;
    std::int64_t frame_time(std::size_t frame) const noexcept { return time_at(static_cast<double>(frame) + 0.5); }
    const std::vector<ClockKnot>& knots() const noexcept { return knots_; }

private:
    std::vector<ClockKnot> knots_;
    double ns_per_frame_;  // used when there is no segment
};

// Without PPS anchoring: frame 0's exposure starts at `frame0_start_ns`.
FrameClock clock_from_start_time(std::int64_t frame0_start_ns, double frames_per_second);

// Rounds up to a whole second (ns), for times after the epoch and before it.
std::int64_t ceil_to_second(std::int64_t ns) noexcept;

}  // namespace hashtrace::collectors
