#include "loop_body.hpp"

#include "tracepoints.hpp"

#include <ctime>

namespace hashtrace::samples {

std::int64_t realtime_ns() noexcept {
    timespec ts;
    ::clock_gettime(CLOCK_REALTIME, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

LoopBody::LoopBody(NodeContext context)
    : ctx_(context), scene_(context.options.objects), inbox_token_(context.inbox) {}

std::optional<msg::SceneMessage> LoopBody::take_message() {
    msg::SceneMessage m;
    if (!ctx_.inbox.try_dequeue(inbox_token_, m)) return std::nullopt;
    trace_processed(m);
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
