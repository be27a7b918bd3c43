// Shared by the time range and log index tests: logs of many blocks as the
// writers lay them out, and what a reader delivers from them as text, so
// that two reads can be compared event by event.
#pragma once

#include <hashtrace/canonical.hpp>
#include <hashtrace/detail/binary_format.hpp>
#include <hashtrace/logio/reader.hpp>
#include <hashtrace/logio/writer.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace range_test {

using namespace hashtrace::logio;
namespace detail = hashtrace::detail;
namespace fs = std::filesystem;

inline constexpr std::int64_t kT0 = 1'763'814'333'000'000'000;
inline constexpr std::int64_t kBlockNs = 1'000'000;  // the time a block of v3_log covers
inline constexpr std::int64_t kNotSample = std::numeric_limits<std::int64_t>::min();

inline fs::path temp_path(const std::string& name) {
    return fs::temp_directory_path() / ("hashtrace-range-" + std::to_string(::getpid()) + "-" + name);
}

inline std::string slurp(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

inline void spill(const fs::path& p, const std::string& bytes) { std::ofstream(p, std::ios::binary) << bytes; }

inline std::uint32_t u32_at(const std::string& s, std::size_t at) {
    std::uint32_t v;
    std::memcpy(&v, s.data() + at, 4);
    return v;
}
inline std::int64_t i64_at(const std::string& s, std::size_t at) {
    std::int64_t v;
    std::memcpy(&v, s.data() + at, 8);
    return v;
}

// The end of the block at `block` (a whole block is there).
inline std::size_t block_end(const std::string& log, std::size_t block) {
    return block + detail::kBlockHeader + u32_at(log, block + detail::kBlockLengthAt);
}

// Makes the checksum of the block at `block` match what it now holds.
inline void reseal(std::string& log, std::size_t block) {
    const std::size_t covered = block + detail::kBlockLengthAt;
    const std::uint64_t checksum = detail::block_checksum(log.data() + covered, block_end(log, block) - covered);
    std::memcpy(log.data() + block + detail::kBlockChecksumAt, &checksum, 8);
}

struct BuiltLog {
    std::string bytes;
    std::vector<std::size_t> blocks;  // each block's offset
};

// A log of the current version, written by the encoder both writers use:
// block 0 defines tracepoints a and b and a thread, then `blocks` blocks of
// `per_block` samples, block b covering [kT0 + b kBlockNs, + kBlockNs). A few
// samples are late (a block and a half earlier), so blocks' times overlap.
// Hashes come from a pool of 20, so most are repeats from the block's ring.
// Block 7 defines tracepoint c, every fifth block has a drop in its middle
// (the reader sends out its batch of samples there), block 9 ends with a
// loss; `clean`: an end marker's block follows.
inline BuiltLog v3_log(int blocks = 40, int per_block = 50, bool clean = true) {
    detail::ByteBuffer out;
    detail::BinaryEncoder enc(out);
    BuiltLog log;
    enc.file_header({{"node", "N"}, {"instance", "1"}, {"host", "lab"}});
    std::vector<hashtrace::Hash128> pool;
    for (int k = 0; k < 20; ++k) pool.push_back(hashtrace::hash_of(hashtrace::HashFunction::md5, k));
    std::uint32_t tracepoints = 2;
    std::array<std::uint64_t, 3> seq{};
    auto begin = [&](std::int64_t t) {
        log.blocks.push_back(out.size());
        enc.begin_block(t);
    };
    begin(kT0);
    enc.tracepoint(0, {"", "", "a", "x", "y", hashtrace::HashFunction::md5});
    enc.tracepoint(1, {"", "", "b", "x", "y", hashtrace::HashFunction::xxh3_128});
    enc.thread(1, 11, "one");
    std::int64_t t = kT0;
    for (int b = 0; b < blocks; ++b) {
        if (b) begin(kT0 + b * kBlockNs);
        if (b == 7) enc.tracepoint(tracepoints++, {"", "", "c", "x", "y", hashtrace::HashFunction::md5});
        for (int i = 0; i < per_block; ++i) {
            t = kT0 + b * kBlockNs + i * (kBlockNs / per_block);
            if (i % 17 == 5 && b > 1) t -= kBlockNs + kBlockNs / 2;
            const int n = b * per_block + i;
            const hashtrace::Hash128* in = n % 4 == 3 ? nullptr : &pool[(n * 7) % pool.size()];
            const hashtrace::Hash128* output = n % 5 == 0 ? in : n % 5 == 1 ? nullptr : &pool[(n * 3 + 1) % pool.size()];
            const auto thread = static_cast<std::uint32_t>(n % 3);
            enc.sample({t, in, output, static_cast<std::uint32_t>(n) % tracepoints, thread != 0, thread, thread != 0, seq[thread]++});
            if (b % 5 == 4 && i == per_block / 2) enc.drop(static_cast<std::uint32_t>(b) % tracepoints, t, 3);
        }
        if (b == 9) enc.loss(1, t - kBlockNs, t - 10, 7);
        enc.end_block();
    }
    if (clean) {
        begin(t);
        enc.end_marker();
        enc.end_block();
    }
    log.bytes.assign(out.data(), out.size());
    return log;
}

struct NamedLog {
    std::string name;
    std::string bytes;
};

// Everything a reader delivers, an event a line; a sample's sequence number
// is left out (the columns do not carry it).
struct Delivery {
    std::vector<std::string> events;
    std::vector<std::int64_t> times;  // a sample's time, kNotSample for the other events
    void event(std::string e) {
        events.push_back(std::move(e));
        times.push_back(kNotSample);
    }
    void sample(std::int64_t time, std::uint32_t tracepoint, const std::uint32_t* thread, const hashtrace::Hash128* in,
                const hashtrace::Hash128* out) {
        auto hex = [](const hashtrace::Hash128* h) {
            if (!h) return std::string("-");
            const auto s = hashtrace::to_hex(*h);
            return std::string(s.data(), s.size());
        };
        events.push_back("sample " + std::to_string(time) + " tp " + std::to_string(tracepoint) + " thread " +
                         (thread ? std::to_string(*thread) : "-") + " in " + hex(in) + " out " + hex(out));
        times.push_back(time);
    }
    std::size_t samples() const {
        std::size_t n = 0;
        for (std::int64_t t : times) n += t != kNotSample;
        return n;
    }
};

// The events a read of [from, to) should deliver, from a whole read's.
inline Delivery filtered(const Delivery& whole, std::int64_t from, std::int64_t to) {
    Delivery d;
    for (std::size_t i = 0; i < whole.events.size(); ++i)
        if (whole.times[i] == kNotSample || (whole.times[i] >= from && whole.times[i] < to)) {
            d.events.push_back(whole.events[i]);
            d.times.push_back(whole.times[i]);
        }
    return d;
}

// SampleRecord batches. The ring positions are replayed over a ring of
// hashes as a consumer does (graph's loader reuses what it made of a
// slot): every repeat must name the slot holding its hash, in a read of a
// time range too, where the sample that filled the slot may not be delivered.
struct RecordTrace : LogVisitor {
    Delivery d;
    std::array<hashtrace::Hash128, 256> ring{};
    std::size_t bad_repeats = 0;
    void on_header(const LogHeader& h) override {
        for (const auto& [k, v] : h) d.event("header " + k + "=" + v);
    }
    void on_tracepoint(std::uint32_t index, const TracepointInfo& t) override {
        d.event("tracepoint " + std::to_string(index) + " " + t.tracepoint_name + " " + t.node_name + " " + t.instance);
    }
    void on_thread(const ThreadInfo& t) override { d.event("thread " + std::to_string(t.thread) + " " + t.name); }
    void on_drop(const DropRecord& x) override {
        d.event("drop " + std::to_string(x.time_ns) + " " + std::to_string(x.tracepoint) + " " + std::to_string(x.count));
    }
    void on_loss(const LossRecord& x) override {
        d.event("loss " + std::to_string(x.tracepoint) + " " + std::to_string(x.first_time_ns) + " " +
                std::to_string(x.last_time_ns) + " " + std::to_string(x.count));
    }
    void on_samples(std::span<const SampleRecord> batch) override {
        for (const SampleRecord& r : batch) {
            replay(r.has_input(), r.input_ring, r.input_hash);  // the input first: "same as input" names its slot
            replay(r.has_output(), r.output_ring, r.output_hash);
            d.sample(r.time_ns, r.tracepoint, r.has_thread() ? &r.thread : nullptr, r.has_input() ? &r.input_hash : nullptr,
                     r.has_output() ? &r.output_hash : nullptr);
        }
    }
    void replay(bool present, std::uint16_t at, const hashtrace::Hash128& h) {
        if (!present || at == SampleRecord::kRingNone) return;
        if (at >= SampleRecord::kRingSlot) ring[at - SampleRecord::kRingSlot] = h;
        else bad_repeats += !(ring[at] == h);
    }
};

// SampleColumns, their hash references resolved over a table carried from
// batch to batch as SampleColumns says (a CSV log still comes as records).
struct ColumnTrace : RecordTrace {
    std::vector<hashtrace::Hash128> table = std::vector<hashtrace::Hash128>(SampleColumns::kReferences);
    bool wants_columns() const override { return true; }
    void on_sample_columns(const SampleColumns& c) override {
        EXPECT_GT(c.size, 0u);
        EXPECT_LE(c.literal_count, 2 * c.size);
        for (std::size_t k = 0; k < c.literal_count; ++k) table[SampleColumns::kFirstLiteral + k] = c.literals[k];
        for (std::size_t i = 0; i < c.size; ++i) {
            auto hash = [&](std::uint16_t ref) { return ref == SampleColumns::kNoHash ? nullptr : &table[ref]; };
            d.sample(c.time_ns[i], c.tracepoint[i], c.thread[i] == SampleColumns::kNoThread ? nullptr : &c.thread[i],
                     hash(c.input_ref[i]), hash(c.output_ref[i]));
        }
        for (std::size_t r = 0; r < SampleColumns::kRingSize; ++r) table[r] = table[c.ring_end[r]];
    }
};

// Every field of a report, as text.
inline std::string report_text(const ReadReport& r) {
    std::string s = "file " + r.file + " samples " + std::to_string(r.samples) + " drops " + std::to_string(r.drop_records) +
                    "/" + std::to_string(r.dropped_samples) + " losses " + std::to_string(r.loss_records) + "/" +
                    std::to_string(r.lost_samples) + " bad " + std::to_string(r.bad_records) + " torn " +
                    std::to_string(r.torn) + " " + std::to_string(r.torn_tail.offset) + " " +
                    std::to_string(r.torn_tail.bytes_ignored) + " " + r.torn_tail.reason + " clean " +
                    std::to_string(r.clean_close) + " binary " + std::to_string(r.format == hashtrace::LogFormat::binary);
    for (const auto& m : r.bad_record_messages) s += "\n  " + m;
    return s;
}

// A read from memory or from a file, into records or columns.
enum class Via { memory, file };
struct Outcome {
    Delivery delivery;
    ReadReport report;
    std::string error;  // what() of the LogError, if one was thrown
    std::size_t bad_repeats = 0;
};

inline Outcome read(const std::string& bytes, Via via, bool columns, const ReadOptions& options = {}) {
    const fs::path path = temp_path("read.log");
    RecordTrace records;
    ColumnTrace column_trace;
    RecordTrace& trace = columns ? column_trace : records;
    Outcome o;
    try {
        if (via == Via::file) {
            spill(path, bytes);
            o.report = read_log(path, trace, options);
        } else {
            o.report = read_log(std::string_view(bytes), path.string(), trace, options);
        }
    } catch (const LogError& e) {
        o.error = e.what();
    }
    fs::remove(path);
    o.delivery = std::move(trace.d);
    o.bad_repeats = trace.bad_repeats;
    return o;
}

// The log as the tools' CSV writer writes it (drops interleaved by time).
inline std::string as_csv(const std::string& binary) {
    const fs::path in = temp_path("to-csv.htlog"), out = temp_path("to-csv.csv");
    spill(in, binary);
    write_log(out, hashtrace::LogFormat::csv, load_log(in));
    std::string csv = slurp(out);
    fs::remove(in);
    fs::remove(out);
    return csv;
}

}  // namespace range_test
