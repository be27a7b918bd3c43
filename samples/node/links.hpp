// samples/node/links.hpp - what a node and the router do on their network
// threads: trace each message's arrival and departure, and pass arrivals on
// (nodes: into the critical loop's lock-free inbox; router: into every other
// connection's outbox).
#pragma once

#include "samples/msg/connection.hpp"

#include <concurrentqueue/concurrentqueue.h>

#include <atomic>
#include <memory>
#include <vector>

namespace hashtrace::samples {

using Inbox = moodycamel::ConcurrentQueue<msg::SceneMessage>;

class NodeLinks : public msg::MessageHandler {
public:
    NodeLinks(msg::NodeId me, Inbox& inbox) : me_(me), inbox_(inbox) {}
    void on_received(msg::Connection& from, const msg::SceneMessage& message) override;
    void on_sent(msg::Connection& to, const msg::SceneMessage& message) override;
    void on_thread_start(msg::Connection& connection) override;
    // The router said every node is connected.
    bool started() const noexcept { return started_.load(std::memory_order_acquire); }

private:
    msg::NodeId me_;
    Inbox& inbox_;
    std::atomic<bool> started_{false};
};

class RouterLinks : public msg::MessageHandler {
public:
    // Set before the connections start.
    void route_between(const std::vector<std::unique_ptr<msg::Connection>>& connections) { connections_ = &connections; }
    void on_received(msg::Connection& from, const msg::SceneMessage& message) override;
    void on_sent(msg::Connection& to, const msg::SceneMessage& message) override;
    void on_thread_start(msg::Connection& connection) override;
    std::uint64_t forwarded() const noexcept { return forwarded_.load(std::memory_order_relaxed); }

private:
    const std::vector<std::unique_ptr<msg::Connection>>* connections_ = nullptr;
    std::atomic<std::uint64_t> forwarded_{0};
};

}  // namespace hashtrace::samples
