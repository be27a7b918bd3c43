// counting_visitor.hpp - a LogVisitor that reads every field it is given, so
// the sanitizers see any out-of-bounds or uninitialised value a reader hands out.
#pragma once

#include "hashtrace/logio/reader.hpp"

#include <cstdint>

namespace hashtrace::fuzz {

class CountingVisitor final : public logio::LogVisitor {
public:
    void on_header(const logio::LogHeader& h) override {
        for (const auto& [k, v] : h) checksum += k.size() + v.size();
    }
    void on_tracepoint(std::uint32_t index, const logio::TracepointInfo& t) override {
        checksum += index + t.node_name.size() + t.instance.size() + t.tracepoint_name.size() + static_cast<unsigned>(t.hash_function);
    }
    void on_thread(const logio::ThreadInfo& t) override { checksum += t.thread + t.name.size(); }
    void on_samples(std::span<const logio::SampleRecord> batch) override {
        for (const auto& s : batch)
            checksum += static_cast<std::uint64_t>(s.time_ns) + s.input_hash.prefix64() + s.output_hash.prefix64() + s.seq + s.tracepoint +
                        s.thread + s.flags;
    }
    void on_drop(const logio::DropRecord& d) override { checksum += d.count + d.tracepoint; }
    std::uint64_t checksum = 0;
};

}  // namespace hashtrace::fuzz
