// samples/node/tracepoints.hpp - the tracepoints every node shares: one per
// step a message takes (created, sent, received, queued, processed). What each
// hashes decides what links (docs/spec.md section 4), so the choices are here in one
// place:
//   loop      the creating loop's counter: step/force sample -> MessageCreated
//   messageid the message id: created -> sent, received -> queued -> processed
//   wire      message id + the receiving node: sent -> received. Including the
//             receiver keeps a router's two copies of one message apart, so
//             each receiver links to the copy that was sent to it.
//   payload   id, object and values: processed -> applied to the scene graph
// Compiled with -DHASHTRACE_DISABLE they vanish (the overhead baseline).
#pragma once

#include "samples/msg/message.hpp"

#include <hashtrace/hashtrace.hpp>

#include <cstdint>

namespace hashtrace::samples {

inline bool is_scene_update(const msg::SceneMessage& m) noexcept {
    return m.kind == msg::Kind::force || m.kind == msg::Kind::transform;
}

inline void trace_created(std::uint64_t loop, const msg::SceneMessage& m) {
    TRACEPOINT("MessageCreated", hashtrace::in("loop", loop), hashtrace::out("messageid", m.id));
}

inline void trace_sent(msg::NodeId to, const msg::SceneMessage& m) {
    const auto receiver = static_cast<std::uint8_t>(to);
    TRACEPOINT("MessageSent", hashtrace::in("messageid", m.id), hashtrace::out("wire", m.id, receiver));
}

inline void trace_received(msg::NodeId me, const msg::SceneMessage& m) {
    const auto receiver = static_cast<std::uint8_t>(me);
    TRACEPOINT("MessageReceived", hashtrace::in("wire", m.id, receiver), hashtrace::out("messageid", m.id));
}

inline void trace_queued(const msg::SceneMessage& m) {
    TRACEPOINT("MessageQueued", hashtrace::inout("messageid", m.id));
}

inline void trace_processed(const msg::SceneMessage& m) {
    TRACEPOINT("MessageProcessed", hashtrace::in("messageid", m.id),
               hashtrace::out("payload", m.id, m.object, hashtrace::bytes(m.values.data(), sizeof m.values)));
}

// The scene-graph update's input: the same payload hash as trace_processed's output.
#define SAMPLES_PAYLOAD_OF(m) \
    hashtrace::in("payload", (m).id, (m).object, hashtrace::bytes((m).values.data(), sizeof (m).values))

}  // namespace hashtrace::samples
