// test_logs.hpp - hand-made CSV logs for the graph builder and metrics tests.
//
//   CsvLog chai;
//   chai.row("Chai", "1", "Force", 100.000, "", "m1");    // time in seconds
//   auto samples = load({{"chai.csv", chai.text()}});
//
// Hash fields are readable labels turned into 32 hex digits (label_hash), so a
// test reads like the message flow it describes.
#pragma once

#include "hashtrace/graph/load.hpp"
#include "hashtrace/graph/sample_set.hpp"

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace hashtrace::graph::testing {

// A label like "m1" -> 32 hex digits (the label's bytes, zero padded): unique,
// valid, and visibly derived from the label when a test fails.
inline std::string label_hash(const std::string& label) {
    if (label.empty()) return "";
    std::string hex;
    for (std::size_t i = 0; i < 16; ++i) {
        char buf[3];
        std::snprintf(buf, sizeof buf, "%02x", i < label.size() ? static_cast<unsigned char>(label[i]) : 0);
        hex += buf;
    }
    return hex;
}

class CsvLog {
public:
    explicit CsvLog(bool with_thread = true, bool with_hash_function = false)
        : with_thread_(with_thread), with_hash_function_(with_hash_function) {
        text_ = "node_name,instance,tracepoint_name,input_hash_type,output_hash_type,sample_time,input_hash,output_hash";
        if (with_thread_) text_ += ",thread";
        if (with_hash_function_) text_ += ",hash_function";
        text_ += "\n";
    }

    // `seconds` is written with 9 decimals: exact to the nanosecond.
    CsvLog& row(const std::string& node, const std::string& instance, const std::string& tracepoint, double seconds,
                const std::string& in, const std::string& out, int thread = 0, const std::string& hash_function = "md5") {
        char time[64];
        std::snprintf(time, sizeof time, "%.9f", seconds);
        text_ += node + "," + instance + "," + tracepoint + ",id,id," + time + "," + label_hash(in) + "," + label_hash(out);
        if (with_thread_) text_ += "," + std::to_string(thread);
        if (with_hash_function_) text_ += "," + hash_function;
        text_ += "\n";
        return *this;
    }
    CsvLog& raw(const std::string& line) {
        text_ += line + "\n";
        return *this;
    }
    const std::string& text() const { return text_; }

private:
    bool with_thread_, with_hash_function_;
    std::string text_;
};

inline SampleSet load(const std::vector<std::pair<std::string, std::string>>& logs, bool lenient = false) {
    LoadOptions options;
    options.lenient = lenient;
    options.keep_hash_values = true;
    options.threads = 2;  // exercise the parallel merge even on tiny inputs
    return load_samples_from_memory(logs, options);
}

// The sample of tracepoint `node/tracepoint` at `seconds` (exact), or -1.
inline long find(const SampleSet& s, const std::string& node, const std::string& tracepoint, double seconds) {
    const auto ns = static_cast<std::int64_t>(seconds * 1e9 + (seconds >= 0 ? 0.5 : -0.5));
    for (SampleIndex i = 0; i < s.size(); ++i)
        if (s.tracepoint_of(i).node_name == node && s.tracepoint_of(i).tracepoint_name == tracepoint && s.time_ns[i] == ns) return i;
    return -1;
}

}  // namespace hashtrace::graph::testing
