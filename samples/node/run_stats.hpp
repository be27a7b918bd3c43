// samples/node/run_stats.hpp - what a node measures about itself, with or
// without tracepoints: its loop rate and the latency of the messages it
// applies (creation time carried in the message, both ends on one host clock).
// This is the baseline the tracepoint overhead is measured against.
#pragma once

#include "samples/msg/message.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace hashtrace::samples {

struct ValueSummary {
    std::size_t count = 0;
    double mean = 0, sd = 0, p50 = 0, p99 = 0, max = 0;
};
// Population sd; nearest-rank percentiles (as docs/spec.md section 5b).
ValueSummary summarize_values(std::vector<double> values);

class RunStats {
public:
    explicit RunStats(std::string node) : node_(std::move(node)) {}

    void reserve(std::size_t iterations) { periods_ms_.reserve(iterations); }
    void loop_period(double ms) { periods_ms_.push_back(ms); }
    void loop_iterations(std::uint64_t n, double seconds) {
        iterations_ = n;
        loop_seconds_ = seconds;
    }
    void message_created() { ++created_; }
    // CPU time the whole process used (all threads: loop, network, trace writer).
    void process_cpu(double seconds) { cpu_seconds_ = seconds; }
    // A message from `origin` was applied `ms` after it was created.
    void message_applied(msg::NodeId origin, double ms) { latency_ms_[origin].push_back(ms); }

    std::string to_json(double target_rate_hz) const;
    // Throws std::runtime_error naming the file when it cannot be written.
    void write(const std::string& file, double target_rate_hz) const;

private:
    std::string node_;
    std::vector<double> periods_ms_;
    std::uint64_t iterations_ = 0;
    double loop_seconds_ = 0;
    std::uint64_t created_ = 0;
    double cpu_seconds_ = 0;
    std::map<msg::NodeId, std::vector<double>> latency_ms_;
};

}  // namespace hashtrace::samples
