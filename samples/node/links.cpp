#include "links.hpp"

#include "tracepoints.hpp"

namespace hashtrace::samples {

void NodeLinks::on_received(msg::Connection&, const msg::SceneMessage& m) {
    if (m.kind == msg::Kind::start) {
        started_.store(true, std::memory_order_release);
        return;
    }
    if (!is_scene_update(m)) return;
    trace_received(me_, m);
    // Traced before the enqueue: the loop may take the message the instant it
    // is queued, and its MessageProcessed must not precede MessageQueued.
    trace_queued(m);
    inbox_.enqueue(m);
}

void NodeLinks::on_sent(msg::Connection& to, const msg::SceneMessage& m) {
    if (is_scene_update(m)) trace_sent(to.peer(), m);
}

void NodeLinks::on_thread_start(msg::Connection& c) { hashtrace::set_thread_name("net " + c.label()); }

void RouterLinks::on_received(msg::Connection& from, const msg::SceneMessage& m) {
    if (!is_scene_update(m)) return;
    trace_received(msg::NodeId::router, m);
    // Fan-out: everyone but the sender gets a copy.
    for (const auto& c : *connections_) {
        if (c.get() != &from) c->send(m);
    }
    forwarded_.fetch_add(1, std::memory_order_relaxed);
}

void RouterLinks::on_sent(msg::Connection& to, const msg::SceneMessage& m) {
    if (is_scene_update(m)) trace_sent(to.peer(), m);
}

void RouterLinks::on_thread_start(msg::Connection& c) { hashtrace::set_thread_name("net " + c.label()); }

}  // namespace hashtrace::samples
