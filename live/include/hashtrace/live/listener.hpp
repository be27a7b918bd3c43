// hashtrace/live/listener.hpp - the TCP port the nodes stream to: one
// thread accepts, one thread a connection reads and hands the bytes to the
// collector, which refuses what it must (the connection is then closed).
#pragma once

#include "hashtrace/live/collector.hpp"

#include <atomic>
#include <list>
#include <string>
#include <thread>

namespace hashtrace::live {

class StreamListener {
public:
    // Binds host:port (port 0: any free one); throws std::runtime_error saying why it cannot.
    StreamListener(Collector& collector, const std::string& host, int port);
    ~StreamListener();  // stops accepting and reading, joins every thread
    int port() const noexcept { return port_; }

private:
    struct Reader {
        std::thread thread;
        std::atomic<bool> done{false};
    };
    void accept_loop();
    void read_loop(int socket, std::size_t connection, Reader& self);
    void join_finished();

    Collector& collector_;
    int socket_ = -1, port_ = 0;
    std::atomic<bool> stopping_{false};
    std::thread acceptor_;
    std::list<Reader> readers_;  // a node's connection each; joined once done (a list: a Reader never moves)
};

}  // namespace hashtrace::live
