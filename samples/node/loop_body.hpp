// samples/node/loop_body.hpp - the critical loop of a haptics, physics or
// render node: what one iteration does. The loop driver (node_main.cpp) calls
// it at the node's rate, and keeps calling it with producing=false while the
// node drains its inbox at shutdown.
#pragma once

#include "links.hpp"
#include "network.hpp"
#include "options.hpp"
#include "run_stats.hpp"
#include "scene.hpp"

#include <cstdint>
#include <memory>
#include <optional>

namespace hashtrace::samples {

struct NodeContext {
    const NodeOptions& options;
    Network& network;
    Inbox& inbox;
    RunStats& stats;
};

class LoopBody {
public:
    explicit LoopBody(NodeContext context);
    virtual ~LoopBody() = default;
    // `step` counts iterations from 0; producing is false while draining at shutdown.
    virtual void iterate(std::uint64_t step, bool producing) = 0;

protected:
    // The next message from the inbox, traced as processed; nullopt if none.
    std::optional<msg::SceneMessage> take_message();
    // Records the message's creation-to-application latency (no tracing needed).
    void applied(const msg::SceneMessage& m);
    // A new message of this node: id, step and creation time filled in, traced, sent.
    void publish(msg::SceneMessage m, std::uint64_t step);

    NodeContext ctx_;
    SceneGraph scene_;

private:
    moodycamel::ConsumerToken inbox_token_;
    std::uint64_t next_message_ = 0;
};

std::unique_ptr<LoopBody> make_haptics(NodeContext context);
std::unique_ptr<LoopBody> make_physics(NodeContext context);
std::unique_ptr<LoopBody> make_render(NodeContext context);

// CLOCK_REALTIME in nanoseconds: the clock the SDK stamps samples with, so the
// nodes' own latency figures and the trace's agree.
std::int64_t realtime_ns() noexcept;
std::int64_t monotonic_ns() noexcept;

}  // namespace hashtrace::samples
