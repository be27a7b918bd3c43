// samples/msg/connection.hpp - one TCP connection, served by its own thread.
//
// As in the paper's prototype (section 5.1), every connection has its own
// network thread, and the critical loops never touch a socket: they hand
// messages over through lock-free queues. send() enqueues into the
// connection's outbox (moodycamel::ConcurrentQueue) and wakes the thread
// through an eventfd; received messages go to a MessageHandler on the
// connection's thread, which typically enqueues them into the loop's inbox.
//
// Shutdown is an explicit handshake so no message is lost at the end of a run:
// finish() makes the thread send a goodbye frame once the outbox is empty; a
// peer's goodbye (or its closing the socket) marks peer_finished(). A node
// stops when every connection is done().
#pragma once

#include "samples/msg/frame_reader.hpp"
#include "samples/msg/message.hpp"
#include "samples/msg/socket.hpp"

#include <concurrentqueue/concurrentqueue.h>

#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace hashtrace::samples::msg {

class Connection;

// Called on the connection's own thread.
class MessageHandler {
public:
    virtual ~MessageHandler() = default;
    // Every frame the peer sent except hello and goodbye.
    virtual void on_received(Connection& from, const SceneMessage& message) = 0;
    // As the message is handed to the kernel: just before the write that
    // carries it, so on any clock it precedes the peer's receipt.
    virtual void on_sent(Connection& /*to*/, const SceneMessage& /*message*/) {}
    // First thing the connection's thread does (e.g. name the thread for the trace).
    virtual void on_thread_start(Connection& /*connection*/) {}
};

class Connection {
public:
    // `socket` has completed the handshake (see socket.hpp); `peer` is who is on the other end.
    Connection(Fd socket, NodeId peer, std::string label, MessageHandler& handler);
    ~Connection();  // stops the thread
    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;

    void start();

    // Any thread; never blocks (the outbox is unbounded).
    void send(const SceneMessage& message);
    // Send a goodbye after everything queued so far; send() must not be called afterwards.
    void finish();
    // Stop the thread now, whatever is still queued.
    void stop();

    NodeId peer() const noexcept { return peer_; }
    const std::string& label() const noexcept { return label_; }
    bool peer_finished() const noexcept { return peer_finished_.load(std::memory_order_acquire); }
    bool goodbye_sent() const noexcept { return goodbye_sent_.load(std::memory_order_acquire); }
    // Nothing more will happen on this connection: both goodbyes, or a failure.
    bool done() const noexcept { return (peer_finished() && goodbye_sent()) || failed_.load(std::memory_order_acquire); }
    // Empty unless the connection failed (a framing error, a reset): the reason.
    std::string error() const;

private:
    void run();
    void wake() noexcept;
    bool read_available();  // false at end of stream or error
    bool flush_outbox();    // false on a write error
    void fail(std::string reason);

    Fd socket_;
    Fd wake_fd_;
    NodeId peer_;
    std::string label_;
    MessageHandler& handler_;
    moodycamel::ConcurrentQueue<SceneMessage> outbox_;
    std::thread thread_;
    std::atomic<bool> stopping_{false};
    std::atomic<bool> finishing_{false};
    std::atomic<bool> peer_finished_{false};
    std::atomic<bool> goodbye_sent_{false};
    std::atomic<bool> failed_{false};

    // Connection-thread state: bytes not yet accepted by the kernel (the
    // socket is non-blocking, so a slow peer never stalls reading).
    FrameReader reader_;
    std::vector<std::byte> unsent_;
    std::size_t written_ = 0;
    bool goodbye_queued_ = false;
    std::size_t goodbye_end_ = 0;
    mutable std::mutex error_mutex_;
    std::string error_;
};

}  // namespace hashtrace::samples::msg
