// The camera simulator's world, as a schedule of events (no images here).
#include "hashtrace/collectors/camera_sim.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

namespace hashtrace::collectors {

double average_ramp(double a, double b, double start, double duration) noexcept {
    if (!(b > a)) return (a >= start + duration) ? 1.0 : 0.0;
    // Integral of clamp((t - start) / duration, 0, 1) over [a, b): a constant
    // 0, a linear part and a constant 1, each clipped to [a, b).
    const double end = start + duration;
    double integral = std::max(0.0, b - std::max(a, end));  // the part where the ramp is 1
    const double lo = std::max(a, start), hi = std::min(b, end);
    if (hi > lo && duration > 0) integral += ((hi - start) * (hi - start) - (lo - start) * (lo - start)) / (2 * duration);
    return integral / (b - a);
}

SimulationPlan plan_simulation(const SimulationConfig& c) {
    if (!(c.camera_fps > 0) || !(c.display_hz > 0) || !(c.duration_s > 0) || !(c.message_rate_hz > 0))
        throw std::invalid_argument("simulation: rates and the duration must be positive");
    std::mt19937_64 rng(c.seed);
    auto uniform = [&](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); };
    auto ms = [](double v) { return static_cast<std::int64_t>(std::llround(v * 1e6)); };

    SimulationPlan plan;
    plan.frame_period_exact_ns = 1e9 / c.camera_fps * (1.0 + c.camera_drift_ppm * 1e-6);
    plan.frame_period_ns = std::llround(plan.frame_period_exact_ns);
    const auto frames = static_cast<std::size_t>(std::llround(c.duration_s * c.camera_fps));
    for (std::size_t k = 0; k < frames; ++k)
        plan.frame_start_ns.push_back(c.frame0_start_ns + std::llround(static_cast<double>(k) * plan.frame_period_exact_ns));
    const std::int64_t begin = c.frame0_start_ns - ms(600);  // the system runs before the camera starts
    const std::int64_t end = c.frame0_start_ns + std::llround(static_cast<double>(frames) * plan.frame_period_exact_ns);

    // Messages: Chai creates, Unity receives and processes them in order.
    std::int64_t created = begin, processed = begin;
    for (std::uint32_t id = c.first_message_id; created < end; ++id) {
        created += ms(uniform(0.5, 1.5) * 1e3 / c.message_rate_hz);
        SimulatedMessage m;
        m.id = id;
        m.created_ns = created;
        m.received_ns = created + ms(uniform(c.network_ms_min, c.network_ms_max));
        processed = std::max(processed, m.received_ns) + ms(uniform(c.processing_ms_min, c.processing_ms_max));
        m.processed_ns = processed;
        plan.messages.push_back(m);
    }

    // The display: at each refresh, the latest message processed in time.
    const double refresh_ns = 1e9 / c.display_hz;
    const std::int64_t epoch = begin + ms(1.234);
    std::optional<std::size_t> shown;
    for (std::int64_t j = 0;; ++j) {
        const std::int64_t refresh = epoch + std::llround(static_cast<double>(j) * refresh_ns);
        if (refresh >= end) break;
        const auto processed_by = [&](std::int64_t t) {
            auto it = std::upper_bound(plan.messages.begin(), plan.messages.end(), t,
                                       [](std::int64_t v, const SimulatedMessage& m) { return v < m.processed_ns; });
            return static_cast<std::size_t>(it - plan.messages.begin());  // messages processed by t
        };
        const std::size_t ready = processed_by(refresh - ms(c.render_delay_ms));
        if (ready == 0) continue;
        const std::size_t latest = ready - 1;
        if (!shown) {
            shown = latest;
            plan.initial = latest;
            continue;
        }
        if (latest == *shown) continue;
        if (!plan.messages[*shown].double_frame && uniform(0, 1) < c.double_frame_probability) {
            plan.messages[*shown].double_frame = true;  // this refresh is missed: the old code stays
            continue;
        }
        DisplayTransition t;
        t.start_ns = refresh + ms(c.scanout_ms);
        t.duration_ns = ms(c.transition_ms);
        t.from = *shown;
        t.to = latest;
        plan.messages[latest].displayed_ns = t.start_ns + t.duration_ns / 2;
        plan.transitions.push_back(t);
        shown = latest;
    }
    return plan;
}

}  // namespace hashtrace::collectors
