// samples/node/network.hpp - a node's connections: set up as its options say
// (accept some, connect to others, hello handshake), then one thread each.
#pragma once

#include "options.hpp"
#include "samples/msg/connection.hpp"

#include <memory>
#include <string>
#include <vector>

namespace hashtrace::samples {

class Network {
public:
    Network(msg::NodeId me, msg::MessageHandler& handler) : me_(me), handler_(handler) {}
    ~Network() { stop_all(); }

    // Accepts options.accept connections on options.listen while connecting to
    // every options.connect endpoint. Throws msg::NetError naming what failed.
    void establish(const NodeOptions& options);
    void start_all();

    // Sends to every connection: the mesh topology duplicates at the sender,
    // the router topology has one connection and the router duplicates.
    void broadcast(const msg::SceneMessage& message);
    void finish_all();
    void stop_all();

    bool all_peers_finished() const;
    bool all_done() const;
    std::vector<std::string> errors() const;
    const std::vector<std::unique_ptr<msg::Connection>>& connections() const { return connections_; }

private:
    msg::NodeId me_;
    msg::MessageHandler& handler_;
    std::vector<std::unique_ptr<msg::Connection>> connections_;
};

}  // namespace hashtrace::samples
