#include "loop_body.hpp"

#include "tracepoints.hpp"

#include <ctime>

namespace hashtrace::samples {

std::int64_t monotonic_ns() noexcept {
    timespec ts;
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

std::int64_t realtime_ns() noexcept {
    timespec ts;
    ::clock_gettime(CLOCK_REALTIME, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

namespace {

// Burns CPU for `ms` of wall time: work that holds the thread, as a slower
// stage would (a sleep would free the core and model nothing real).
void busy_for(double ms) {
    const std::int64_t until = monotonic_ns() + static_cast<std::int64_t>(ms * 1e6);
    volatile std::uint64_t sink = 0;
    while (monotonic_ns() < until)
        for (int i = 0; i < 64; ++i) sink = sink * 6364136223846793005u + 1442695040888963407u;
}

}  // namespace

LoopBody::LoopBody(NodeContext context)
    : ctx_(context), scene_(context.options.objects), inbox_token_(context.inbox) {}

std::optional<msg::SceneMessage> LoopBody::take_message() {
    msg::SceneMessage m;
    if (!ctx_.inbox.try_dequeue(inbox_token_, m)) return std::nullopt;
    trace_processed(m);
    if (ctx_.options.extra_apply_ms > 0) busy_for(ctx_.options.extra_apply_ms);
    return m;
}

void LoopBody::applied(const msg::SceneMessage& m) {
    ctx_.stats.message_applied(m.origin, static_cast<double>(realtime_ns() - m.created_ns) / 1e6);
}

void LoopBody::publish(msg::SceneMessage m, std::uint64_t step) {
    m.id = msg::make_message_id(ctx_.options.role, next_message_++);
    m.step = step;
    m.created_ns = realtime_ns();
    trace_created(step, m);
    ctx_.stats.message_created();
    ctx_.network.broadcast(m);
}

}  // namespace hashtrace::samples
