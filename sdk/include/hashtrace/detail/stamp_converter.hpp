// hashtrace/detail/stamp_converter.hpp - TSC stamps to CLOCK_REALTIME, on the
// writer thread (see clock.hpp for why tracepoints stamp with the TSC).
//
// The writer reads a clock point - a TSC value and CLOCK_REALTIME at the same
// moment - after every batch it takes from the queue, so every stamp in the
// batch is older than the newest point. It keeps a point every 10 ms or more
// (a "knot"): the TSC's rate in CLOCK_REALTIME ns per tick is measured between
// knots, to ~3 ppm (the points' own uncertainty, tens of ns, over 10 ms), and
// follows PTP's slewing of CLOCK_REALTIME. A stamp after the last knot is
// converted from that knot at the last measured rate; a stamp older than the
// last knot (its thread was preempted between stamping and enqueueing) by
// interpolation between the two knots around it, from a history of 64 knots.
// Errors stay within tens of ns, far below what PTP or PPS give between machines.
//
// A step of CLOCK_REALTIME (settimeofday, a PTP step) shows as a point far
// from where the rate predicts, beyond what slewing can explain: that point
// becomes a knot at once, so stamps after it get the new time, and stamps
// before it keep the old rate.
#pragma once

#include "hashtrace/detail/clock.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>

namespace hashtrace::detail {

struct ClockPoint {
    std::uint64_t tsc = 0;
    std::int64_t ns = 0;          // CLOCK_REALTIME
    std::uint64_t window = 0;     // ticks between the TSC reads around the clock read
};

// The best of three bracketed reads: the TSC before and after clock_gettime,
// the point at the middle of the narrowest bracket.
inline ClockPoint read_clock_point() noexcept {
    ClockPoint best;
    std::uint64_t best_window = ~std::uint64_t{0};
    for (int i = 0; i < 3; ++i) {
        const std::uint64_t before = read_tsc();
        const std::int64_t ns = now_ns();
        const std::uint64_t after = read_tsc();
        if (after - before < best_window) {
            best_window = after - before;
            best = {before + (after - before) / 2, ns, after - before};
        }
    }
    return best;
}

class StampConverter {
public:
    static constexpr std::int64_t kKnotSpacingNs = 10'000'000;
    static constexpr double kStepToleranceNs = 10'000;  // plus kMaxSlew of the span
    static constexpr double kMaxSlew = 1e-3;            // the kernel slews by at most 500 ppm
    static constexpr std::size_t kKnots = 64;
    static constexpr std::uint64_t kWindowSlackTicks = 1000;  // ~0.3-0.5 us: a preemption is longer

    // Stamps are already CLOCK_REALTIME: to_ns is the identity.
    StampConverter() = default;
    // Stamps are TSC ticks; `first` was read before any of them was taken.
    explicit StampConverter(ClockPoint first) noexcept : tsc_(true), narrowest_(first.window) {
        knots_[0] = {first, 0};
        count_ = 1;
        newest_ = first;
    }

    bool converts() const noexcept { return tsc_; }

    // A point read after the previous one. A point whose reads were far apart
    // (the writer was preempted in the middle of all three tries) is uncertain
    // by as much, and is passed over: the next batch brings another.
    void add(ClockPoint p) noexcept {
        if (!tsc_ || p.tsc <= newest_.tsc) return;
        if (p.window > 8 * narrowest_ + kWindowSlackTicks) return;
        narrowest_ = std::min(narrowest_, p.window);
        newest_ = p;
        const ClockPoint& last = knot(count_ - 1).point;
        const double span_tsc = static_cast<double>(p.tsc - last.tsc);
        const double span_ns = static_cast<double>(p.ns - last.ns);
        if (rate_ > 0 && std::fabs(span_ns - span_tsc * rate_) > kStepToleranceNs + kMaxSlew * std::fabs(span_ns)) {
            push({p, rate_});  // a step
            return;
        }
        const double measured = span_ns / span_tsc;
        if (p.ns - last.ns >= kKnotSpacingNs) {
            push({p, measured});
            rate_ = measured;
        } else if (rate_ == 0) {
            first_rate_ = measured;  // the best there is until the first 10 ms have passed
        }
    }

    std::int64_t to_ns(std::int64_t stamp) const noexcept {
        if (!tsc_) return stamp;
        const auto t = static_cast<std::uint64_t>(stamp);
        const Knot& last = knot(count_ - 1);
        if (t >= last.point.tsc) return last.point.ns + scaled(t - last.point.tsc, rate_ > 0 ? rate_ : first_rate_);
        for (std::size_t i = count_ - 1; i > 0; --i) {
            const Knot& start = knot(i - 1);
            if (t >= start.point.tsc) return start.point.ns + scaled(t - start.point.tsc, knot(i).rate_before);
        }
        // Older than the history: back from the oldest knot.
        const double rate = count_ > 1 ? knot(1).rate_before : rate_ > 0 ? rate_ : first_rate_;
        return knot(0).point.ns - scaled(knot(0).point.tsc - t, rate);
    }

private:
    struct Knot {
        ClockPoint point;
        double rate_before;  // ns per tick from the previous knot to this one
    };

    static std::int64_t scaled(std::uint64_t ticks, double rate) noexcept {
        return static_cast<std::int64_t>(static_cast<double>(ticks) * rate + 0.5);
    }
    const Knot& knot(std::size_t i) const noexcept { return knots_[(first_ + i) % kKnots]; }
    void push(const Knot& k) noexcept {
        if (count_ < kKnots) {
            knots_[(first_ + count_++) % kKnots] = k;
        } else {
            knots_[first_] = k;
            first_ = (first_ + 1) % kKnots;
        }
    }

    bool tsc_ = false;
    std::array<Knot, kKnots> knots_{};
    std::size_t first_ = 0, count_ = 0;
    ClockPoint newest_;
    double rate_ = 0;        // of the last knot-to-knot span that was no step
    double first_rate_ = 0;  // before there is one
    std::uint64_t narrowest_ = 0;  // window of the best point seen
};

}  // namespace hashtrace::detail
