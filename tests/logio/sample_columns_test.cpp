// The binary reader's two ways of delivering samples (SampleRecord batches to
// on_samples, SampleColumns to on_sample_columns) carry the same samples,
// events in the same order, the same reports and the same errors, on random
// logs and on random damage to them (cuts, flipped bytes; strict and lenient).
#include <hashtrace/logio/reader.hpp>
#include <hashtrace/logio/writer.hpp>

#include <gtest/gtest.h>

#include <array>
#include <fstream>
#include <random>
#include <sstream>
#include <unistd.h>

using namespace hashtrace::logio;
namespace fs = std::filesystem;

namespace {

std::string hex(const hashtrace::Hash128& h) {
    const auto s = hashtrace::to_hex(h);
    return std::string(s.data(), s.size());
}

// Every event as a line of text; a sample's sequence number is left out (the
// columns do not carry it).
struct Trace {
    std::vector<std::string> events;
    void sample(std::int64_t time, std::uint32_t tracepoint, const std::uint32_t* thread, const hashtrace::Hash128* in,
                const hashtrace::Hash128* out) {
        events.push_back("sample " + std::to_string(time) + " tp " + std::to_string(tracepoint) + " thread " +
                         (thread ? std::to_string(*thread) : "-") + " in " + (in ? hex(*in) : "-") + " out " +
                         (out ? hex(*out) : "-"));
    }
};

struct RecordTrace : LogVisitor, Trace {
    void on_tracepoint(std::uint32_t index, const TracepointInfo& t) override {
        events.push_back("tracepoint " + std::to_string(index) + " " + t.tracepoint_name);
    }
    void on_thread(const ThreadInfo& t) override { events.push_back("thread " + std::to_string(t.thread) + " " + t.name); }
    void on_drop(const DropRecord& d) override { events.push_back("drop " + std::to_string(d.time_ns) + " " + std::to_string(d.count)); }
    void on_samples(std::span<const SampleRecord> batch) override {
        for (const SampleRecord& r : batch)
            sample(r.time_ns, r.tracepoint, r.has_thread() ? &r.thread : nullptr, r.has_input() ? &r.input_hash : nullptr,
                   r.has_output() ? &r.output_hash : nullptr);
    }
};

// Resolves the columns' hash references over a table of its own, carried
// from batch to batch as SampleColumns says.
bool is_literal(std::uint16_t ref) { return ref >= SampleColumns::kFirstLiteral && ref != SampleColumns::kNoHash; }

struct ColumnTrace : RecordTrace {
    std::vector<hashtrace::Hash128> table = std::vector<hashtrace::Hash128>(SampleColumns::kReferences);
    bool wants_columns() const override { return true; }
    void on_samples(std::span<const SampleRecord>) override { ADD_FAILURE() << "on_samples called for a visitor wanting columns"; }
    void on_sample_columns(const SampleColumns& c) override {
        EXPECT_GT(c.size, 0u);
        for (std::size_t k = 0; k < c.literal_count; ++k) table[SampleColumns::kFirstLiteral + k] = c.literals[k];
        std::size_t literal = 0;
        auto resolve = [&](std::uint16_t ref, hashtrace::Hash128& h) -> const hashtrace::Hash128* {
            if (ref == SampleColumns::kNoHash) return nullptr;
            EXPECT_LT(ref, SampleColumns::kFirstLiteral + c.literal_count);
            if (is_literal(ref)) {
                EXPECT_LE(ref, SampleColumns::kFirstLiteral + literal);  // in order, none skipped
            }
            if (ref == SampleColumns::kFirstLiteral + literal) ++literal;
            h = table[ref];
            return &h;
        };
        for (std::size_t i = 0; i < c.size; ++i) {
            hashtrace::Hash128 in, out;
            const auto* pin = resolve(c.input_ref[i], in);
            const auto* pout = resolve(c.output_ref[i], out);
            sample(c.time_ns[i], c.tracepoint[i], c.thread[i] == SampleColumns::kNoThread ? nullptr : &c.thread[i], pin, pout);
        }
        EXPECT_EQ(literal, c.literal_count);
        for (std::size_t r = 0; r < SampleColumns::kRingSize; ++r) {
            EXPECT_TRUE(c.ring_end[r] == r || is_literal(c.ring_end[r]));  // carried in place below
            table[r] = table[c.ring_end[r]];
        }
    }
};

// A random log: hashes drawn from a small pool (so that the writer's ring
// repeats them), the same bytes under two hash functions, samples with and
// without hashes, threads and sequence numbers, drops and late tracepoints.
std::string random_log(std::mt19937_64& rng, int samples) {
    const fs::path path = fs::temp_directory_path() / ("hashtrace-columns-" + std::to_string(::getpid()) + ".htlog");
    {
        auto w = open_writer(path, hashtrace::LogFormat::binary, {{"node", "N"}, {"instance", "1"}});
        w->add_tracepoint({"N", "1", "a", "x", "y", hashtrace::HashFunction::md5});
        w->add_tracepoint({"N", "1", "b", "x", "y", hashtrace::HashFunction::xxh3_128});
        w->add_thread({1, 11, "one"});
        std::uint32_t tracepoints = 2;
        std::vector<hashtrace::Hash128> pool(1 + rng() % 600);
        for (auto& h : pool)
            for (auto& byte : h.bytes) byte = static_cast<std::uint8_t>(rng());
        std::int64_t t = 1763814333000000000;
        for (int i = 0; i < samples; ++i) {
            if (rng() % 500 == 0) w->add_tracepoint({"N", "1", "t" + std::to_string(tracepoints++), "x", "y", hashtrace::HashFunction::md5});
            if (rng() % 300 == 0) w->write(DropRecord{t, static_cast<std::uint32_t>(rng() % tracepoints), rng() % 9});
            SampleRecord s;
            t += static_cast<std::int64_t>(rng() % 5000) - 1000;
            s.time_ns = t;
            s.tracepoint = static_cast<std::uint32_t>(rng() % tracepoints);
            const unsigned shape = static_cast<unsigned>(rng() % 16);
            if (shape & 1) s.flags |= SampleRecord::kHasInput, s.input_hash = pool[rng() % pool.size()];
            if (shape & 2) s.flags |= SampleRecord::kHasOutput, s.output_hash = (shape & 1) && rng() % 2 ? s.input_hash : pool[rng() % pool.size()];
            if (shape & 4) s.flags |= SampleRecord::kHasThread, s.thread = static_cast<std::uint32_t>(rng() % 3);
            if (shape & 8) s.flags |= SampleRecord::kHasSeq, s.seq = rng() % 1000;
            w->write(s);
        }
        w->close();
    }
    std::ifstream f(path, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    fs::remove(path);
    return ss.str();
}

// What reading `data` into `v` gives: the events, then the report or the error.
std::vector<std::string> read_into(RecordTrace& v, std::string_view data, bool lenient) {
    try {
        const ReadReport r = read_binary(data, "f.htlog", v, ReadOptions{lenient});
        v.events.push_back("report " + std::to_string(r.samples) + " " + std::to_string(r.drop_records) + " " +
                           std::to_string(r.dropped_samples) + " " + std::to_string(r.bad_records) + " torn " +
                           std::to_string(r.torn) + " " + std::to_string(r.torn_tail.offset) + " " +
                           std::to_string(r.torn_tail.bytes_ignored) + " " + r.torn_tail.reason + " clean " +
                           std::to_string(r.clean_close));
        for (const auto& m : r.bad_record_messages) v.events.push_back(m);
    } catch (const LogError& e) {
        v.events.push_back(std::string("error ") + e.what());
    }
    return v.events;
}

void expect_same_delivery(std::string_view data, bool lenient, const std::string& what) {
    RecordTrace records;
    ColumnTrace columns;
    const auto a = read_into(records, data, lenient);
    const auto b = read_into(columns, data, lenient);
    ASSERT_EQ(a.size(), b.size()) << what;
    for (std::size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a[i], b[i]) << what << ", event " << i;
}

}  // namespace

TEST(SampleColumns, CarryWhatTheRecordsCarryOnRandomLogs) {
    std::mt19937_64 rng(7);
    for (int round = 0; round < 20; ++round) {
        const std::string log = random_log(rng, 1 + static_cast<int>(rng() % 20000));
        expect_same_delivery(log, false, "round " + std::to_string(round));
    }
}

TEST(SampleColumns, CarryWhatTheRecordsCarryOnDamagedLogs) {
    std::mt19937_64 rng(11);
    for (int round = 0; round < 300; ++round) {
        std::string log = random_log(rng, 1 + static_cast<int>(rng() % 3000));
        const std::string what = "round " + std::to_string(round);
        const bool lenient = rng() % 2;
        if (rng() % 2) log.resize(rng() % log.size());  // a torn tail
        for (int flips = static_cast<int>(rng() % 4); flips > 0 && !log.empty(); --flips)
            log[rng() % log.size()] ^= static_cast<char>(1 + rng() % 255);
        expect_same_delivery(log, lenient, what);
    }
}
