#include "network.hpp"

#include <exception>
#include <future>

namespace hashtrace::samples {

namespace {

struct Handshaken {
    msg::Fd socket;
    msg::NodeId peer;
};

}  // namespace

void Network::establish(const NodeOptions& o) {
    const auto deadline = msg::Clock::now() + std::chrono::milliseconds(static_cast<long>(o.connect_timeout_s * 1000));
    const std::string me(msg::to_string(me_));
    // Listen before connecting anywhere, and accept on another thread: in a
    // mesh every node is both a server and a client, in no agreed order.
    std::unique_ptr<msg::Listener> listener;
    if (o.listen) listener = std::make_unique<msg::Listener>(o.listen->host, o.listen->port);
    auto accepted = std::async(std::launch::async, [&] {
        std::vector<Handshaken> result;
        for (int i = 0; i < o.accept; ++i) {
            msg::Fd fd = listener->accept_until(deadline);
            const msg::NodeId peer = msg::handshake(fd, me_, me + " <- " + o.listen->text(), deadline);
            result.push_back({std::move(fd), peer});
        }
        return result;
    });
    std::vector<Handshaken> connected;
    std::exception_ptr connect_error;
    try {
        for (const auto& endpoint : o.connect) {
            msg::Fd fd = msg::connect_until(endpoint, deadline);
            const msg::NodeId peer = msg::handshake(fd, me_, me + " -> " + endpoint.text(), deadline);
            connected.push_back({std::move(fd), peer});
        }
    } catch (...) {
        connect_error = std::current_exception();
    }
    std::vector<Handshaken> all = accepted.get();  // rethrows an accept failure
    if (connect_error) std::rethrow_exception(connect_error);
    for (auto& c : connected) all.push_back(std::move(c));
    for (auto& h : all) {
        const std::string label = me + "<->" + std::string(msg::to_string(h.peer));
        connections_.push_back(std::make_unique<msg::Connection>(std::move(h.socket), h.peer, label, handler_));
    }
}

void Network::start_all() {
    for (auto& c : connections_) c->start();
}

void Network::broadcast(const msg::SceneMessage& message) {
    for (auto& c : connections_) c->send(message);
}

void Network::finish_all() {
    for (auto& c : connections_) c->finish();
}

void Network::stop_all() {
    for (auto& c : connections_) c->stop();
}

bool Network::all_peers_finished() const {
    for (const auto& c : connections_)
        if (!c->peer_finished()) return false;
    return true;
}

bool Network::all_done() const {
    for (const auto& c : connections_)
        if (!c->done()) return false;
    return true;
}

std::vector<std::string> Network::errors() const {
    std::vector<std::string> out;
    for (const auto& c : connections_)
        if (auto e = c->error(); !e.empty()) out.push_back(std::move(e));
    return out;
}

}  // namespace hashtrace::samples
