// Block checksums (format version 2): a damaged block is an error naming the
// file and its offset, or with --lenient skipped and counted; random byte and
// bit flips never pass as valid data; version 1 logs (no checksums) and
// version 2 logs (no time index) still read.
#include "test_support.hpp"

#include <hashtrace/detail/log_file.hpp>
#include <hashtrace/logio/reader.hpp>

#include <fstream>
#include <random>
#include <sstream>

using namespace hashtrace::logio;
using hashtrace::testing::fresh_dir;
namespace detail = hashtrace::detail;

namespace {

std::string hex(const hashtrace::Hash128& h) { return std::string(hashtrace::to_hex(h).data(), 32); }

// Everything a reader delivers, as text: two reads agree iff this does.
struct Transcript : LogVisitor {
    std::ostringstream out;
    void on_header(const LogHeader& h) override {
        for (const auto& [k, v] : h) out << "H " << k << '=' << v << '\n';
    }
    void on_tracepoint(std::uint32_t i, const TracepointInfo& t) override {
        out << "T " << i << ' ' << t.node_name << ' ' << t.instance << ' ' << t.tracepoint_name << ' '
            << t.input_hash_type << ' ' << t.output_hash_type << ' ' << int(t.hash_function) << '\n';
    }
    void on_thread(const ThreadInfo& t) override { out << "R " << t.thread << ' ' << t.os_tid << ' ' << t.name << '\n'; }
    void on_samples(std::span<const SampleRecord> batch) override {
        for (const auto& s : batch)
            out << "S " << s.time_ns << ' ' << s.tracepoint << ' ' << s.thread << ' ' << s.seq << ' ' << int(s.flags) << ' '
                << hex(s.input_hash) << ' ' << hex(s.output_hash) << '\n';
    }
    void on_drop(const DropRecord& d) override { out << "D " << d.time_ns << ' ' << d.tracepoint << ' ' << d.count << '\n'; }
};

// A log of several blocks with every kind of record, as the SDK writes it.
std::string written_log(const std::filesystem::path& dir) {
    const auto path = (dir / "log.htlog").string();
    {
        detail::LogFile f(path, hashtrace::LogFormat::binary, {{"node", "N"}, {"instance", "0123456789abcdef"}, {"pid", "7"}});
        f.tracepoint(0, {{}, {}, "Send", "messageid", "messageid", hashtrace::HashFunction::md5}, 1000);
        f.tracepoint(1, {{}, {}, "Recv", "messageid", "loop", hashtrace::HashFunction::xxh3_128}, 1000);
        f.thread(0, 4242, "main", 1000);
        for (int b = 0; b < 4; ++b) {
            for (int i = 0; i < 30; ++i) {
                const auto in = hashtrace::hash_of(hashtrace::HashFunction::md5, i % 9);
                const auto out = hashtrace::hash_of(hashtrace::HashFunction::md5, i + b);
                f.sample({1000 + b * 100000 + i * 10, &in, (i % 3) ? &out : &in, static_cast<std::uint32_t>(i % 2), true,
                          static_cast<std::uint32_t>(i % 2), true, static_cast<std::uint64_t>(b * 15 + i / 2)});
            }
            f.drop(1, 1000 + b * 100000 + 500, 2);
            f.flush();
        }
        f.close(true);
    }
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

std::vector<std::size_t> block_offsets(const std::string& log) {
    std::vector<std::size_t> at;
    for (std::size_t p = log.find("HTBK"); p != std::string::npos; p = log.find("HTBK", p + 1)) at.push_back(p);
    return at;
}

}  // namespace

TEST(BlockChecksum, ADamagedBlockIsAnErrorNamingFileAndOffsetAndLenientSkipsIt) {
    const std::string log = written_log(fresh_dir("log"));
    const auto blocks = block_offsets(log);
    ASSERT_EQ(blocks.size(), 5u);  // four flushes and the end marker's
    Transcript whole;
    const auto clean = read_binary(log, "run.htlog", whole);
    EXPECT_EQ(clean.samples, 120u);
    EXPECT_TRUE(clean.clean_close);

    std::string bad = log;
    bad[blocks[2] + detail::kBlockHeader + 5] ^= 0x10;  // one bit in the third block's records
    Transcript strict;
    try {
        read_binary(bad, "run.htlog", strict);
        FAIL() << "a damaged block was read as data";
    } catch (const LogError& e) {
        EXPECT_EQ(e.file(), "run.htlog");
        EXPECT_EQ(e.line(), blocks[2]) << e.what();
        EXPECT_NE(e.reason().find("checksum"), std::string::npos) << e.what();
    }
    Transcript lenient;
    const auto r = read_binary(bad, "run.htlog", lenient, ReadOptions{true});
    EXPECT_EQ(r.bad_records, 1u);
    EXPECT_EQ(r.samples, 90u) << "the other blocks are read";
    EXPECT_TRUE(r.clean_close);
    ASSERT_EQ(r.bad_record_messages.size(), 1u);
    EXPECT_NE(r.bad_record_messages[0].find("run.htlog:" + std::to_string(blocks[2])), std::string::npos)
        << r.bad_record_messages[0];

    // A damaged length: the next block is found by its marker.
    std::string bad_length = log;
    bad_length[blocks[1] + detail::kBlockLengthAt] ^= 0x01;
    Transcript skipped;
    const auto r2 = read_binary(bad_length, "run.htlog", skipped, ReadOptions{true});
    EXPECT_EQ(r2.bad_records, 1u);
    EXPECT_EQ(r2.samples, 90u);
}

TEST(BlockChecksum, ADamagedFileHeaderIsAnError) {
    std::string log = written_log(fresh_dir("log"));
    log[detail::kFileHeaderFixed + 2] ^= 0x01;  // "node=N" becomes another name
    Transcript t;
    EXPECT_THROW(read_binary(log, "run.htlog", t), LogError);
    EXPECT_THROW(read_binary(log, "run.htlog", t, ReadOptions{true}), LogError);
}

// 2,000 random single-byte and single-bit mutations of a written log: each
// must be refused (an error), reported (a skipped block, a torn tail) or read
// exactly as the original. Before checksums, most were read as valid samples.
TEST(BlockChecksum, RandomMutationsNeverPassSilentlyAsValidData) {
    const std::string log = written_log(fresh_dir("log"));
    Transcript original_transcript;
    read_binary(log, "run.htlog", original_transcript);
    const std::string original = original_transcript.out.str();
    std::mt19937_64 random(20261126);
    int refused = 0, reported = 0, unchanged = 0;
    for (int trial = 0; trial < 2000; ++trial) {
        std::string bad = log;
        const std::size_t at = random() % bad.size();
        if (trial % 2) bad[at] = static_cast<char>(bad[at] ^ (1 << (random() % 8)));
        else bad[at] = static_cast<char>(random());  // may leave the byte as it was
        for (bool lenient : {false, true}) {
            Transcript t;
            try {
                const auto r = read_binary(bad, "run.htlog", t, ReadOptions{lenient});
                if (r.bad_records > 0 || r.torn) {
                    reported += !lenient;
                } else {
                    ASSERT_EQ(t.out.str(), original) << "byte " << at << " changed to " << int(bad[at] & 0xff)
                                                     << (lenient ? " (lenient)" : "") << ": read as valid data";
                    unchanged += !lenient;
                }
            } catch (const LogError&) {
                refused += !lenient;
            }
        }
    }
    EXPECT_GT(refused + reported, 1900) << "refused " << refused << ", reported " << reported << ", unchanged " << unchanged;
}

TEST(BlockChecksum, Version1LogsWithoutChecksumsStayReadable) {
    // Written by the version-1 writer (before checksums).
    const auto log = load_log(HASHTRACE_SDK_TEST_DATA "/version1.htlog");
    EXPECT_EQ(log.header.at("node"), "Old");
    ASSERT_EQ(log.tracepoints.size(), 1u);
    EXPECT_EQ(log.tracepoints[0].tracepoint_name, "Send");
    ASSERT_EQ(log.threads.size(), 1u);
    EXPECT_EQ(log.threads[0].name, "main");
    ASSERT_EQ(log.samples.size(), 120u);
    for (std::size_t i = 0; i < log.samples.size(); ++i) EXPECT_EQ(log.samples[i].seq, i);
    EXPECT_EQ(log.report.dropped_samples, 9u);
    EXPECT_TRUE(log.report.clean_close);
    EXPECT_FALSE(log.report.torn);
}

TEST(BlockChecksum, Version2LogsWithoutATimeIndexStayReadable) {
    // Written by the version-2 writer (before the time index): 6 blocks of 40
    // samples, block b at 1000 + b * 100000 ns + 1000 ns a sample.
    const auto log = load_log(HASHTRACE_SDK_TEST_DATA "/version2.htlog");
    EXPECT_EQ(log.header.at("node"), "Old2");
    ASSERT_EQ(log.tracepoints.size(), 2u);
    EXPECT_EQ(log.tracepoints[1].tracepoint_name, "Recv");
    ASSERT_EQ(log.threads.size(), 1u);
    ASSERT_EQ(log.samples.size(), 240u);
    for (std::size_t i = 0; i < log.samples.size(); ++i) EXPECT_EQ(log.samples[i].seq, i);
    EXPECT_EQ(log.report.dropped_samples, 9u);
    EXPECT_TRUE(log.report.clean_close);
    EXPECT_FALSE(log.report.torn);

    // A time range is read by a scan: blocks 2 and 3.
    ReadOptions range;
    range.from_ns = 1000 + 200000;
    range.to_ns = 1000 + 400000;
    const auto part = load_log(HASHTRACE_SDK_TEST_DATA "/version2.htlog", range);
    ASSERT_EQ(part.samples.size(), 80u);
    EXPECT_EQ(part.samples.front().seq, 80u);
    EXPECT_EQ(part.report.samples, 80u);
    EXPECT_EQ(part.report.dropped_samples, 9u);
    EXPECT_EQ(part.tracepoints, log.tracepoints);
}
