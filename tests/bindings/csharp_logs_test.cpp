// Logs written by the managed C# runtime (tests/bindings/csharp, run first by
// ctest) read in the C++ readers with the hashes the C++ SDK computes for the
// same state, and a C#-written CSV is byte for byte what the C++ writer
// writes for the same records.
#include <hashtrace/canonical.hpp>
#include <hashtrace/logio/reader.hpp>
#include <hashtrace/logio/writer.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

namespace fs = std::filesystem;
using hashtrace::HashFunction;
using hashtrace::hash_of;

namespace {

const fs::path kDir = HASHTRACE_CSHARP_LOG_DIR;

fs::path log_of(const std::string& node) {
    for (const auto& p : hashtrace::logio::find_logs({kDir}))
        if (p.filename().string().rfind(node + "-", 0) == 0) return p;
    ADD_FAILURE() << "no log of node " << node << " in " << kDir << " (run csharp_tests first)";
    return {};
}

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

void expect_known_states(const hashtrace::logio::SampleLog& log) {
    ASSERT_EQ(log.samples.size(), 800u);
    std::map<std::string, int> seen;
    unsigned char payload[300];
    for (int i = 0; i < 300; ++i) payload[i] = static_cast<unsigned char>(i * 131 + 7);
    std::map<std::string, std::uint64_t> next_id;
    for (const auto& s : log.samples) {
        const auto& tp = log.tracepoints[s.tracepoint];
        const std::string& name = tp.tracepoint_name;
        EXPECT_EQ(tp.hash_function, name.rfind("Fast", 0) == 0 ? HashFunction::xxh3_128 : HashFunction::md5) << name;
        const std::uint64_t id = next_id[name]++;
        ++seen[name];
        SCOPED_TRACE(name + " #" + std::to_string(id));
        if (name == "Typed" || name == "Deferred") {
            EXPECT_EQ(tp.input_hash_type, "messageid");
            EXPECT_EQ(tp.output_hash_type, "force");
            EXPECT_EQ(s.input_hash, hash_of(HashFunction::md5, id));
            EXPECT_EQ(s.output_hash, hash_of(HashFunction::md5, id, 1.5));
        } else if (name == "InOut") {
            EXPECT_EQ(s.input_hash, hash_of(HashFunction::md5, std::int32_t{7}, std::string("héllo wörld ✓")));
            EXPECT_EQ(s.output_hash, s.input_hash);
        } else if (name == "Big") {
            EXPECT_FALSE(s.has_input());
            EXPECT_EQ(tp.input_hash_type, "");
            EXPECT_EQ(s.output_hash, hash_of(HashFunction::md5, hashtrace::bytes(payload, 300)));
        } else if (name == "Source") {
            EXPECT_FALSE(s.has_input());
            EXPECT_EQ(s.output_hash, hash_of(HashFunction::md5, id));
        } else if (name == "Extended") {
            EXPECT_EQ(s.input_hash, hash_of(HashFunction::md5, id));
            EXPECT_EQ(s.output_hash, hash_of(HashFunction::md5, id, std::uint16_t{3}));
        } else if (name == "Fast") {
            EXPECT_EQ(s.input_hash, hash_of(HashFunction::xxh3_128, id));
            EXPECT_EQ(s.output_hash, s.input_hash);
        } else if (name == "FastDeferred") {
            // Deferred up to 92 payload bytes (96 canonical), hashed inline beyond: the same digests.
            // (Through the canonical bytes: GCC's -Wmaybe-uninitialized misfires on the
            // streaming XXH3 path of hash_of in sanitizer builds.)
            const std::string canonical = hashtrace::canonical_bytes(hashtrace::bytes(payload, id));
            EXPECT_EQ(s.input_hash, hashtrace::hash_canonical_bytes(HashFunction::xxh3_128, canonical.data(), canonical.size()));
            EXPECT_FALSE(s.has_output());
        } else {
            ADD_FAILURE() << "unexpected tracepoint " << name;
        }
        EXPECT_TRUE(s.has_thread());
        EXPECT_TRUE(s.has_seq());
    }
    for (const char* name : {"Typed", "Deferred", "InOut", "Big", "Source", "Extended", "Fast", "FastDeferred"})
        EXPECT_EQ(seen[name], 100) << name;
    // One thread, its sequence numbers contiguous and its times in order.
    for (std::size_t i = 1; i < log.samples.size(); ++i) {
        EXPECT_EQ(log.samples[i].seq, log.samples[i - 1].seq + 1);
        EXPECT_GE(log.samples[i].time_ns, log.samples[i - 1].time_ns);
    }
    const std::int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                 std::chrono::system_clock::now().time_since_epoch()).count();
    EXPECT_LT(std::llabs(log.samples.front().time_ns - now), std::int64_t{3600} * 1000000000) << "times are CLOCK_REALTIME";
}

TEST(CsharpLogs, BinaryLogHoldsTheSdksHashes) {
    const auto log = hashtrace::logio::load_log(log_of("CsTypes"));
    expect_known_states(log);
    EXPECT_TRUE(log.report.clean_close);
    EXPECT_FALSE(log.report.torn);
    EXPECT_EQ(log.header.at("node"), "CsTypes");
    EXPECT_EQ(log.header.at("clock_source"), "CLOCK_REALTIME");
    ASSERT_EQ(log.threads.size(), 1u);
    EXPECT_EQ(log.threads[0].name, "main thread");
}

TEST(CsharpLogs, CsvLogHoldsTheSdksHashesAndIsTheCppWritersBytes) {
    const fs::path path = log_of("CsTypesCsv");
    const auto log = hashtrace::logio::load_log(path);
    expect_known_states(log);
    const fs::path again = fs::temp_directory_path() / ("hashtrace-csharp-rewritten-" + std::to_string(::getpid()) + ".csv");
    hashtrace::logio::write_log(again, hashtrace::LogFormat::csv, log);
    EXPECT_EQ(slurp(again), slurp(path)) << "the C++ writer's bytes for the same records differ";
    fs::remove(again);
}

TEST(CsharpLogs, DropsAreLoggedAsDropRecords) {
    const auto log = hashtrace::logio::load_log(log_of("CsDrops"));
    EXPECT_GT(log.report.dropped_samples, 0u);
    EXPECT_EQ(log.samples.size() + log.report.dropped_samples, 100000u);
    // Sequence numbers skip where samples were dropped.
    EXPECT_EQ(log.samples.back().seq - log.samples.front().seq + 1 > log.samples.size(), true);
}

TEST(CsharpLogs, ThreadsAreNamedAndTheirSamplesComplete) {
    const auto log = hashtrace::logio::load_log(log_of("CsThreads"));
    EXPECT_EQ(log.samples.size(), 20000u);
    std::map<std::uint32_t, std::uint64_t> count;
    for (const auto& s : log.samples) ++count[s.thread];
    EXPECT_EQ(count.size(), 4u);
    for (const auto& [thread, n] : count) EXPECT_EQ(n, 5000u) << "thread " << thread;
    int named = 0;
    for (const auto& t : log.threads) named += t.name.rfind("worker ", 0) == 0;
    EXPECT_GE(named, 4);
}

// The process returned from Main without stopping: ProcessExit completed the log.
TEST(CsharpLogs, ExitCompletesTheLog) {
    const auto log = hashtrace::logio::load_log(log_of("CsExit"));
    EXPECT_EQ(log.samples.size(), 10u);
    EXPECT_TRUE(log.report.clean_close);
}

// The C# writer writes the binary format's current version (3: checksums and
// the blocks' time index), which the reader checks as it reads.
TEST(CsharpLogs, BinaryLogIsVersion3) {
    const fs::path path = log_of("CsTypes");
    const std::string bytes = slurp(path);
    ASSERT_GE(bytes.size(), 16u);
    EXPECT_EQ(static_cast<unsigned char>(bytes[8]) | static_cast<unsigned char>(bytes[9]) << 8, 3);
    // A time window read passes over blocks by their index: it must give what a
    // whole read filtered by time gives.
    const auto whole = hashtrace::logio::load_log(path);
    ASSERT_EQ(whole.samples.size(), 800u);
    const std::int64_t from = whole.samples[200].time_ns, to = whole.samples[600].time_ns;
    hashtrace::logio::ReadOptions window;
    window.from_ns = from;
    window.to_ns = to;
    const auto part = hashtrace::logio::load_log(path, window);
    std::size_t expected = 0;
    for (const auto& s : whole.samples) expected += s.time_ns >= from && s.time_ns < to;
    EXPECT_EQ(part.samples.size(), expected);
}

// What the C# node streamed to a loopback collector (csharp_tests kept the
// bytes): a log closed cleanly, with the disk log's samples, none lost.
TEST(CsharpLogs, StreamReadsAsTheDiskLog) {
    const auto disk = hashtrace::logio::load_log(log_of("CsStream"));
    const auto stream = hashtrace::logio::load_log(kDir / "received" / "CsStream.htlog");
    EXPECT_TRUE(stream.report.clean_close);
    EXPECT_FALSE(stream.report.torn);
    EXPECT_EQ(stream.report.lost_samples, 0u);
    EXPECT_EQ(disk.report.stream_dropped, 0u);
    EXPECT_EQ(stream.header.at("instance"), disk.header.at("instance"));
    ASSERT_EQ(disk.samples.size(), 5000u);
    ASSERT_EQ(stream.samples.size(), disk.samples.size());
    for (std::size_t i = 0; i < disk.samples.size(); ++i) {
        const auto& a = disk.samples[i];
        const auto& b = stream.samples[i];
        ASSERT_EQ(a.time_ns, b.time_ns) << i;
        ASSERT_EQ(a.seq, b.seq) << i;
        ASSERT_EQ(a.input_hash, b.input_hash) << i;
        ASSERT_EQ(a.output_hash, b.output_hash) << i;
        ASSERT_EQ(disk.tracepoints[a.tracepoint].tracepoint_name, stream.tracepoints[b.tracepoint].tracepoint_name) << i;
    }
}

// No collector: the disk log still holds every sample and closes cleanly, and
// says how many the stream dropped as drops of hashtrace.stream_dropped.
TEST(CsharpLogs, AbsentCollectorLeavesACompleteLogWithStreamDrops) {
    const auto log = hashtrace::logio::load_log(log_of("CsStreamAbsent"));
    EXPECT_EQ(log.samples.size(), 1000u);
    EXPECT_TRUE(log.report.clean_close);
    EXPECT_EQ(log.report.dropped_samples, 0u);
    EXPECT_EQ(log.report.stream_dropped, 1000u);
}

}  // namespace
