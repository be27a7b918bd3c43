// samples/node/options.hpp - how one process of the sample system is started.
#pragma once

#include "samples/msg/message.hpp"
#include "samples/msg/socket.hpp"

#include <optional>
#include <string>
#include <vector>

namespace hashtrace::samples {

struct NodeOptions {
    msg::NodeId role = msg::NodeId::haptics;
    std::optional<msg::Endpoint> listen;     // accept connections here
    int accept = 0;                          // how many connections to accept on `listen`
    std::vector<msg::Endpoint> connect;      // peers (mesh) or the router to connect to
    bool wait_start = false;                 // router topology: loop starts on the router's start frame
    double rate_hz = 0;                      // loop rate; 0 = the role's default
    // --phase-ms: the loop's deadlines at this phase of its period on the
    // monotonic clock (shared by the processes of one machine) instead of
    // from its start: two loops' relative phase, which sets how long one's
    // messages wait for the other's tick, is then the same in every run.
    std::optional<double> phase_ms;
    int objects = 5;                         // physics: simulated objects (one transform message each per step)
    double duration_s = 0;                   // 0 = until SIGINT/SIGTERM
    bool bug = false;                        // haptics: read one message per iteration (case study 1)
    // --extra-work apply=MS: busy CPU (a spin on the monotonic clock, not a
    // sleep) for MS milliseconds per message the loop applies, between its
    // MessageProcessed and SceneGraphUpdated: real work of a known size, to
    // check what-if predictions against (bench/critical-path).
    double extra_apply_ms = 0;
    std::string stats_file;                  // loop-rate and latency figures, JSON, written at exit
    double connect_timeout_s = 20;
    double drain_timeout_s = 10;
};

// The role's loop rate when --rate is not given: the paper's node rates.
double default_rate_hz(msg::NodeId role) noexcept;

// Parses "ROLE [options]". Throws cli::UsageError with the reason.
NodeOptions parse_node_options(const std::vector<std::string>& argv);

extern const char* const kNodeUsage;

}  // namespace hashtrace::samples
