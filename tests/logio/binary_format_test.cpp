// The binary format: lossless round trips through both formats, compactness,
// torn tails at every possible cut, and corruption named by byte offset.
#include <hashtrace/canonical.hpp>
#include <hashtrace/detail/binary_format.hpp>
#include <hashtrace/logio/reader.hpp>
#include <hashtrace/logio/writer.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <fstream>
#include <sstream>

using namespace hashtrace::logio;
namespace fs = std::filesystem;

namespace {

fs::path temp(const std::string& name) {
    return fs::temp_directory_path() / ("hashtrace-logio-" + std::to_string(::getpid()) + "-" + name);
}

std::string slurp(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

// A log like a real node's: several tracepoints, threads, reused hashes,
// samples without hashes or threads, drops, a second node instance.
SampleLog realistic_log(int n) {
    SampleLog log;
    log.header = {{"node", "Chai"}, {"instance", "00112233aabbccdd"}, {"host", "lab1"}};
    log.tracepoints = {
        {"Chai", "00112233aabbccdd", "ForceComputed", "loop", "messageid", hashtrace::HashFunction::md5},
        {"Chai", "00112233aabbccdd", "MessageSent", "messageid", "messageid", hashtrace::HashFunction::md5},
        {"Chai", "00112233aabbccdd", "Fast", "x", "", hashtrace::HashFunction::xxh3_128},
        {"Other", "99", "Foreign", "a", "b", hashtrace::HashFunction::md5},
    };
    log.threads = {{1, 4242, "haptics"}, {2, 4243, "net-tx"}};
    std::int64_t t = 1763814333000000000;
    for (int i = 0; i < n; ++i) {
        t += 1000 + (i % 7) * 13;
        const auto loop = hashtrace::hash_of(hashtrace::HashFunction::md5, i % 250);  // a wrapping counter
        const auto msg = hashtrace::hash_of(hashtrace::HashFunction::md5, std::string("m"), i);
        SampleRecord a;
        a.time_ns = t;
        a.tracepoint = 0;
        a.input_hash = loop;
        a.output_hash = msg;
        a.thread = 1;
        a.seq = static_cast<std::uint64_t>(2 * i);
        a.flags = SampleRecord::kHasInput | SampleRecord::kHasOutput | SampleRecord::kHasThread | SampleRecord::kHasSeq;
        log.samples.push_back(a);
        SampleRecord b = a;
        b.time_ns = t + 500;
        b.tracepoint = 1;
        b.input_hash = msg;
        b.output_hash = msg;
        b.seq = static_cast<std::uint64_t>(2 * i + 1);
        log.samples.push_back(b);
        if (i % 10 == 0) {
            SampleRecord c;
            c.time_ns = t + 200;  // out of order: negative delta
            c.tracepoint = static_cast<std::uint32_t>(2 + (i / 10) % 2);
            c.input_hash = loop;
            c.flags = SampleRecord::kHasInput;  // no thread, no seq, no output
            log.samples.push_back(c);
        }
        if (i % 100 == 99) log.drops.push_back({t + 600, 1, static_cast<std::uint64_t>(i)});
    }
    return log;
}

void expect_same_samples(const SampleLog& a, const SampleLog& b) {
    ASSERT_EQ(a.samples.size(), b.samples.size());
    for (std::size_t i = 0; i < a.samples.size(); ++i) {
        const auto& x = a.samples[i];
        const auto& y = b.samples[i];
        ASSERT_EQ(x.time_ns, y.time_ns) << i;
        ASSERT_EQ(x.flags, y.flags) << i;
        ASSERT_EQ(x.tracepoint, y.tracepoint) << i;
        if (x.has_input()) { ASSERT_EQ(x.input_hash, y.input_hash) << i; }
        if (x.has_output()) { ASSERT_EQ(x.output_hash, y.output_hash) << i; }
        if (x.has_thread()) { ASSERT_EQ(x.thread, y.thread) << i; }
        if (x.has_seq()) { ASSERT_EQ(x.seq, y.seq) << i; }
    }
    ASSERT_EQ(a.tracepoints, b.tracepoints);
    ASSERT_EQ(a.drops.size(), b.drops.size());
    for (std::size_t i = 0; i < a.drops.size(); ++i) {
        EXPECT_EQ(a.drops[i].count, b.drops[i].count);
        EXPECT_EQ(a.drops[i].time_ns, b.drops[i].time_ns);
        EXPECT_EQ(a.drops[i].tracepoint, b.drops[i].tracepoint);
    }
}

}  // namespace

TEST(BinaryFormat, RoundTripsThroughBothFormatsLosslessly) {
    const auto original = realistic_log(5000);
    const auto bin = temp("rt.htlog"), csv = temp("rt.csv"), bin2 = temp("rt2.htlog");
    write_log(bin, hashtrace::LogFormat::binary, original);
    const auto from_bin = load_log(bin);
    expect_same_samples(original, from_bin);
    EXPECT_TRUE(from_bin.report.clean_close);
    EXPECT_EQ(from_bin.header.at("host"), "lab1");
    ASSERT_EQ(from_bin.threads.size(), 2u);
    EXPECT_EQ(from_bin.threads[0].name, "haptics");
    EXPECT_EQ(from_bin.threads[1].os_tid, 4243);

    write_log(csv, hashtrace::LogFormat::csv, from_bin);
    const auto from_csv = load_log(csv);
    expect_same_samples(original, from_csv);
    write_log(bin2, hashtrace::LogFormat::binary, from_csv);
    expect_same_samples(original, load_log(bin2));
    EXPECT_EQ(detect_format(bin), hashtrace::LogFormat::binary);
    EXPECT_EQ(detect_format(csv), hashtrace::LogFormat::csv);
    for (const auto& p : {bin, csv, bin2}) fs::remove(p);
}

// Sequence numbers the writer leaves implied (each thread's previous + 1)
// come back per thread, whatever the thread's id: the reader keeps small
// thread ids in a table and others in a list, and ids 62-64 straddle the two.
TEST(BinaryFormat, ImpliedSequenceNumbersFollowEachThread) {
    SampleLog log;
    log.header = {{"node", "N"}, {"instance", "1"}};
    log.tracepoints = {{"N", "1", "T", "a", "b", hashtrace::HashFunction::md5}};
    const std::array<std::uint32_t, 7> threads = {0, 1, 62, 63, 64, 200, 0xFFFFFFF0u};
    std::array<std::uint64_t, threads.size()> next_seq = {5, 0, 17, 1, 2, 3, 40};
    std::uint64_t state = 7;
    for (int i = 0; i < 3000; ++i) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        const std::size_t k = (state >> 33) % (i < 1500 ? 2 : threads.size());  // two threads alternating, then all
        SampleRecord r;
        r.time_ns = 1763814333000000000 + i;
        r.thread = threads[k];
        r.seq = next_seq[k]++;
        if ((state >> 20) % 50 == 0) next_seq[k] += 3;  // a gap: the seq is written out
        r.flags = SampleRecord::kHasThread | SampleRecord::kHasSeq;
        log.samples.push_back(r);
    }
    const auto bin = temp("seq.htlog");
    write_log(bin, hashtrace::LogFormat::binary, log);
    expect_same_samples(log, load_log(bin));
    fs::remove(bin);
}

// SampleRecord::input_ring / output_ring: replaying them over a ring of 256
// slots gives back every repeated hash (what the loader relies on to skip
// its lookup); the CSV reader, without a ring, says kRingNone.
TEST(BinaryFormat, RingPositionsNameTheHashesTheyRepeat) {
    const auto original = realistic_log(20000);
    const auto bin = temp("ring.htlog"), csv = temp("ring.csv");
    write_log(bin, hashtrace::LogFormat::binary, original);
    write_log(csv, hashtrace::LogFormat::csv, original);
    std::array<hashtrace::Hash128, 256> ring{};
    std::size_t stored = 0, repeated = 0;
    auto replay = [&](bool present, std::uint16_t at, const hashtrace::Hash128& h, std::size_t i) {
        if (!present) {
            EXPECT_EQ(at, SampleRecord::kRingNone) << i;
        } else if (at >= SampleRecord::kRingSlot) {
            ASSERT_LT(at, SampleRecord::kRingSlot + 256) << i;
            ring[at - SampleRecord::kRingSlot] = h;
            ++stored;
        } else {
            EXPECT_EQ(ring[at], h) << i;
            ++repeated;
        }
    };
    const auto from_bin = load_log(bin);
    for (std::size_t i = 0; i < from_bin.samples.size(); ++i) {
        const SampleRecord& r = from_bin.samples[i];
        replay(r.has_input(), r.input_ring, r.input_hash, i);  // the input first: "same as input" names its slot
        replay(r.has_output(), r.output_ring, r.output_hash, i);
    }
    EXPECT_GT(stored, 0u);
    EXPECT_GT(repeated, stored) << "loop counters and outputs equal to inputs repeat";
    for (const SampleRecord& r : load_log(csv).samples) {
        EXPECT_EQ(r.input_ring, SampleRecord::kRingNone);
        EXPECT_EQ(r.output_ring, SampleRecord::kRingNone);
    }
    fs::remove(bin);
    fs::remove(csv);
}

TEST(BinaryFormat, IsAtMostAQuarterOfTheCsvForTheSameSamples) {
    const auto log = realistic_log(20000);
    const auto bin = temp("size.htlog"), csv = temp("size.csv");
    write_log(bin, hashtrace::LogFormat::binary, log);
    write_log(csv, hashtrace::LogFormat::csv, log);
    const double ratio = static_cast<double>(fs::file_size(bin)) / static_cast<double>(fs::file_size(csv));
    EXPECT_LE(ratio, 0.25) << fs::file_size(bin) << " vs " << fs::file_size(csv);
    fs::remove(bin);
    fs::remove(csv);
}

TEST(BinaryFormat, EveryTruncationYieldsAPrefixAndATornTailReport) {
    const auto log = realistic_log(300);
    const auto path = temp("cut.htlog");
    write_log(path, hashtrace::LogFormat::binary, log);
    const std::string bytes = slurp(path);
    fs::remove(path);
    struct Count : LogVisitor {
        std::vector<SampleRecord> s;
        void on_samples(std::span<const SampleRecord> b) override { s.insert(s.end(), b.begin(), b.end()); }
    };
    std::size_t previous = 0;
    for (std::size_t cut = 0; cut < bytes.size(); ++cut) {
        Count c;
        try {
            const auto r = read_binary(std::string_view(bytes).substr(0, cut), "cut.htlog", c);
            EXPECT_TRUE(r.torn || c.s.empty()) << "cut at " << cut;  // only a bare header is complete
            EXPECT_FALSE(r.clean_close);
        } catch (const LogError& e) {
            // Only a file too short to hold its own header is an error.
            EXPECT_LT(cut, 16u + 200u) << e.what();
            EXPECT_EQ(c.s.size(), 0u);
            continue;
        }
        ASSERT_GE(c.s.size(), previous) << "cut at " << cut;  // more bytes never give fewer samples
        previous = c.s.size();
        for (std::size_t i = 0; i < c.s.size(); ++i) ASSERT_EQ(c.s[i].time_ns, log.samples[i].time_ns);
    }
    EXPECT_GE(previous, log.samples.size() - 3);
}

TEST(BinaryFormat, CorruptionIsAnErrorNamingTheByteOffset) {
    const auto log = realistic_log(50);
    const auto path = temp("corrupt.htlog");
    write_log(path, hashtrace::LogFormat::binary, log);
    std::string bytes = slurp(path);
    fs::remove(path);
    struct Ignore : LogVisitor {
        void on_samples(std::span<const SampleRecord>) override {}
    } v;
    {
        std::string bad = bytes;
        bad[0] = 'X';
        EXPECT_THROW(read_binary(bad, "x.htlog", v), LogError);
    }
    {
        std::string bad = bytes;
        bad[8] = 9;  // a version from the future
        try {
            read_binary(bad, "x.htlog", v);
            FAIL();
        } catch (const LogError& e) {
            EXPECT_NE(e.reason().find("version 9"), std::string::npos) << e.what();
        }
    }
    {
        // Find the first sample's tracepoint reference and point it past the definitions.
        std::string bad = bytes;
        const std::size_t block = bad.find("HTBK");
        ASSERT_NE(block, std::string::npos);
        bad.replace(block, 4, "JUNK");
        try {
            read_binary(bad, "x.htlog", v);
            FAIL();
        } catch (const LogError& e) {
            EXPECT_EQ(e.file(), "x.htlog");
            EXPECT_EQ(e.line(), block);
            EXPECT_NE(e.reason().find("block marker"), std::string::npos);
        }
    }
    {
        // An unknown record tag inside a block (written so, its checksum made
        // to match): strict mode names its offset, lenient mode skips the rest
        // of the block and counts it.
        namespace detail = hashtrace::detail;
        std::string bad = bytes;
        const std::size_t block = bad.find("HTBK");
        const std::size_t first_record = block + detail::kBlockHeader;
        bad[first_record] = static_cast<char>(0x9f);
        std::uint32_t len;
        std::memcpy(&len, bad.data() + block + detail::kBlockLengthAt, 4);
        const std::uint64_t checksum = detail::block_checksum(bad.data() + block + detail::kBlockLengthAt,
                                                              first_record + len - (block + detail::kBlockLengthAt));
        std::memcpy(bad.data() + block + detail::kBlockChecksumAt, &checksum, 8);
        try {
            read_binary(bad, "x.htlog", v);
            FAIL();
        } catch (const LogError& e) {
            EXPECT_EQ(e.line(), first_record);
            EXPECT_NE(e.reason().find("unknown record tag"), std::string::npos) << e.what();
        }
        const auto r = read_binary(bad, "x.htlog", v, ReadOptions{true});
        EXPECT_EQ(r.bad_records, 1u);
        EXPECT_EQ(r.samples, 0u);
    }
}

TEST(FindLogs, ExpandsDirectoriesAndSkipsOtherCsv) {
    const auto dir = temp("find");
    fs::remove_all(dir);
    fs::create_directories(dir / "sub");
    write_log(dir / "a.htlog", hashtrace::LogFormat::binary, realistic_log(1));
    write_log(dir / "sub" / "b.csv", hashtrace::LogFormat::csv, realistic_log(1));
    std::ofstream(dir / "clock-lab1.csv") << "time_ns,offset_ns\n1,2\n";
    std::ofstream(dir / "table.csv") << "metric,unit,count,mean,node_name\r\nM8,1/s,,4,\r\n";  // one required name: not a log
    std::ofstream(dir / "notes.txt") << "hello";
    const auto logs = find_logs({dir});
    ASSERT_EQ(logs.size(), 2u);
    EXPECT_EQ(logs[0].filename(), "a.htlog");
    EXPECT_EQ(logs[1].filename(), "b.csv");
    EXPECT_THROW(find_logs({dir / "missing"}), LogError);
    fs::remove_all(dir);
}

// A node's CSV log whose header has a typo is not passed over in silence with
// the other CSV of a run directory: it is listed, and reading it says which
// column is wrong, in which file and on which line.
TEST(FindLogs, ListsACsvLogWithABrokenHeaderSoItsErrorIsSeen) {
    const auto dir = temp("find-broken");
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::ofstream(dir / "Physics-1.csv")
        << "node_name,instance,tracepoint_name,input_hash_type,output_hash_type,sampletime,input_hash,output_hash\r\n"
           "Physics,1,Sent,,id,1700000000.000000001,,0123456789abcdef0123456789abcdef\r\n";
    const auto logs = find_logs({dir});
    ASSERT_EQ(logs.size(), 1u);
    EXPECT_EQ(logs[0].filename(), "Physics-1.csv");
    try {
        load_log(logs[0]);
        FAIL() << "a header without sample_time was read";
    } catch (const LogError& e) {
        EXPECT_EQ(e.line(), 1u);
        EXPECT_NE(e.reason().find("missing required column 'sample_time'"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("Physics-1.csv:1:"), std::string::npos) << e.what();
    }
    fs::remove_all(dir);
}

TEST(BinaryFormat, ATimeDeltaThatOverflowsIsCorruptionNotUndefinedBehaviour) {
    // Found by fuzz_binary_reader (fuzz/corpus/binary_reader/time-overflow.htlog).
    const fs::path finding = fs::path(HASHTRACE_SOURCE_DIR) / "fuzz/corpus/binary_reader/time-overflow.htlog";
    struct Ignore : LogVisitor {
        void on_samples(std::span<const SampleRecord>) override {}
    } v;
    try {
        read_log(finding, v);
        FAIL() << "accepted an overflowing time";
    } catch (const LogError& e) {
        EXPECT_NE(e.reason().find("overflows"), std::string::npos) << e.what();
    }
}
