// hashtrace/clocksync/simulated_pps.hpp - a clock and a PPS input with known
// truth, for the replay tests and `hashtrace clock pps --simulate`.
//
// SimulatedClock keeps true time and the local clock's offset from it; the
// local clock drifts by `natural_drift_ppb` plus whatever frequency the servo
// sets. SimulatedPpsEdges emits one rising edge per true second, stamped with
// the local clock plus Gaussian jitter (the interrupt latency of a GPIO pin).
#pragma once

#include "hashtrace/clocksync/adjustable_clock.hpp"
#include "hashtrace/sensors/edge_source.hpp"

#include <cstdint>
#include <random>

namespace hashtrace::clocksync {

class SimulatedClock final : public AdjustableClock {
public:
    SimulatedClock(std::int64_t true_start_ns, double initial_offset_ns, double natural_drift_ppb)
        : true_now_ns_(true_start_ns), offset_ns_(initial_offset_ns), natural_drift_ppb_(natural_drift_ppb) {}

    double frequency_ppb() const override { return frequency_ppb_; }
    void set_frequency_ppb(double ppb) override { frequency_ppb_ = ppb; }
    void step(std::int64_t delta_ns) override { offset_ns_ += static_cast<double>(delta_ns); }

    void advance_to(std::int64_t true_ns) {
        offset_ns_ += (natural_drift_ppb_ + frequency_ppb_) * static_cast<double>(true_ns - true_now_ns_) * 1e-9;
        true_now_ns_ = true_ns;
    }
    std::int64_t true_now_ns() const noexcept { return true_now_ns_; }
    double offset_ns() const noexcept { return offset_ns_; }  // local minus true: the truth tests check
    std::int64_t local_now_ns() const noexcept { return true_now_ns_ + static_cast<std::int64_t>(offset_ns_); }

private:
    std::int64_t true_now_ns_;
    double offset_ns_;
    double natural_drift_ppb_;
    double frequency_ppb_ = 0;
};

class SimulatedPpsEdges final : public sensors::EdgeSource {
public:
    SimulatedPpsEdges(SimulatedClock& clock, double jitter_sd_ns, std::uint64_t edges, std::uint32_t seed)
        : clock_(clock), jitter_(0.0, jitter_sd_ns), remaining_(edges), random_(seed) {}

    std::optional<sensors::Edge> next(std::chrono::nanoseconds) override {
        if (remaining_ == 0) return std::nullopt;
        --remaining_;
        constexpr std::int64_t kSecond = 1'000'000'000;
        const std::int64_t boundary = (clock_.true_now_ns() / kSecond + 1) * kSecond;
        clock_.advance_to(boundary);
        const auto stamp = clock_.local_now_ns() + static_cast<std::int64_t>(jitter_(random_));
        return sensors::Edge{stamp, sensors::EdgeKind::rising, ++sequence_};
    }
    bool finished() const override { return remaining_ == 0; }
    std::string describe() const override { return "simulated PPS"; }

private:
    SimulatedClock& clock_;
    std::normal_distribution<double> jitter_;
    std::uint64_t remaining_;
    std::uint64_t sequence_ = 0;
    std::mt19937_64 random_;
};

}  // namespace hashtrace::clocksync
