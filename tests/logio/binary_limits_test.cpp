// The binary reader at the limits of its fields: a value that does not fit
// where it goes (a thread id past 32 bits, a sequence number past 2^64 - 2,
// a sum of drop counts past 2^64 - 1) is refused with the record's byte
// offset, never cut or wrapped into another value; and the per-thread
// sequence numbers of a log of many threads.
#include <hashtrace/detail/binary_format.hpp>
#include <hashtrace/logio/reader.hpp>
#include <hashtrace/logio/writer.hpp>

#include <gtest/gtest.h>

#include <limits>
#include <optional>
#include <string>
#include <vector>

using namespace hashtrace::logio;
namespace detail = hashtrace::detail;
namespace fs = std::filesystem;

namespace {

constexpr std::uint64_t kMax64 = std::numeric_limits<std::uint64_t>::max();

std::string varint(std::uint64_t v) {
    unsigned char bytes[10];
    return std::string(reinterpret_cast<const char*>(bytes), static_cast<std::size_t>(detail::put_varint(bytes, v) - bytes));
}

// A log of one block and one tracepoint; `records` are raw bytes after the
// tracepoint definition. `offset` is set to where they start.
std::string one_block(const std::string& records, std::size_t& offset) {
    detail::ByteBuffer out;
    detail::BinaryEncoder enc(out);
    enc.file_header({{"node", "N"}, {"instance", "1"}});
    enc.begin_block(1000);
    enc.tracepoint(0, {"", "", "tp", "a", "b", hashtrace::HashFunction::md5});
    offset = out.size();
    out += records;
    enc.end_block();
    return std::string(out.data(), out.size());
}

// A sample without hashes, its time 1 ns after the previous record: with a
// thread code (id + 1) when `thread_code` is given, a seq code (seq + 1) when `seq_code` is.
std::string sample(std::optional<std::uint64_t> thread_code, std::optional<std::uint64_t> seq_code) {
    char tag = 0;
    if (thread_code) tag |= detail::kSampleThreadBit;
    if (seq_code) tag |= detail::kSampleSeqBit;
    std::string s{tag, 0 /*tracepoint*/, 2 /*time +1*/};
    if (thread_code) s += varint(*thread_code);
    if (seq_code) s += varint(*seq_code);
    return s;
}

// A block of `records` with base time 0, for appending to a log the current
// writer began: the current version's header, its checksum made right. Its
// time index says nothing (no samples) and that it holds other records, so
// that every reader decodes it.
std::string sealed_block(const std::string& records) {
    std::string covered;
    auto put = [&covered](std::uint64_t v, int bytes) {
        for (int i = 0; i < bytes; ++i) covered += static_cast<char>(v >> (8 * i));
    };
    put(records.size(), 4);
    put(0, 8);  // base time
    put(static_cast<std::uint64_t>(detail::kNoSampleMin), 8);
    put(static_cast<std::uint64_t>(detail::kNoSampleMax), 8);
    put(0, 4);
    put(detail::kBlockHoldsRecords, 4);
    covered += records;
    const std::uint64_t checksum = detail::block_checksum(covered.data(), covered.size());
    std::string b(detail::kBlockMagic, detail::kBlockMagic + 4);
    for (int i = 0; i < 8; ++i) b += static_cast<char>(checksum >> (8 * i));
    return b + covered;
}

std::string drop(std::uint64_t count) { return std::string{static_cast<char>(detail::kTagDrop), 0, 2} + varint(count); }

struct Records : LogVisitor {
    std::vector<SampleRecord> samples;
    std::vector<ThreadInfo> threads;
    void on_samples(std::span<const SampleRecord> b) override { samples.insert(samples.end(), b.begin(), b.end()); }
    void on_thread(const ThreadInfo& t) override { threads.push_back(t); }
};

struct Columns : LogVisitor {
    std::vector<std::uint32_t> threads;
    bool wants_columns() const override { return true; }
    void on_samples(std::span<const SampleRecord>) override { ADD_FAILURE() << "records for a visitor of columns"; }
    void on_sample_columns(const SampleColumns& c) override { threads.insert(threads.end(), c.thread.begin(), c.thread.begin() + c.size); }
};

// "offset: reason" of the LogError reading `log` gives through either sink, or "accepted".
std::string error_of(const std::string& log) {
    std::string outcome[2];
    Records records;
    Columns columns;
    LogVisitor* visitors[2] = {&records, &columns};
    for (int i = 0; i < 2; ++i) {
        try {
            read_binary(log, "limits.htlog", *visitors[i]);
            outcome[i] = "accepted";
        } catch (const LogError& e) {
            outcome[i] = std::to_string(e.line()) + ": " + e.reason();
        }
    }
    EXPECT_EQ(outcome[0], outcome[1]) << "the two sinks disagree";
    return outcome[0];
}

}  // namespace

TEST(BinaryLimits, AThreadIdPast32BitsIsRefusedNotCut) {
    std::size_t at = 0;
    // id 2^32 + 5 (code + 1) was read as thread 5.
    std::string log = one_block(sample(4294967302u, 1), at);
    EXPECT_EQ(error_of(log), std::to_string(at) + ": byte offset " + std::to_string(at) +
                                 ": thread id 4294967301 is out of range (at most 4294967294)");
    // The largest 32-bit id is "no thread" after reading: refused too.
    const std::string before = sample(1, 1);
    log = one_block(before + sample(4294967296u, 1), at);
    at += before.size();
    EXPECT_EQ(error_of(log), std::to_string(at) + ": byte offset " + std::to_string(at) +
                                 ": thread id 4294967295 is out of range (at most 4294967294)");
    // The one below it is a thread like any other, in both sinks.
    log = one_block(sample(4294967295u, 1), at);
    Records records;
    read_binary(log, "limits.htlog", records);
    ASSERT_EQ(records.samples.size(), 1u);
    EXPECT_TRUE(records.samples[0].has_thread());
    EXPECT_EQ(records.samples[0].thread, 4294967294u);
    Columns columns;
    read_binary(log, "limits.htlog", columns);
    EXPECT_EQ(columns.threads, std::vector<std::uint32_t>{4294967294u});
}

TEST(BinaryLimits, AThreadRecordPast32BitsIsRefusedNotCut) {
    std::size_t at = 0;
    const std::string record = std::string{static_cast<char>(detail::kTagThread)} + varint(4294967297u) + varint(0) + varint(1) + "x";
    const std::string log = one_block(record, at);
    EXPECT_EQ(error_of(log),
              std::to_string(at) + ": byte offset " + std::to_string(at) + ": thread id 4294967297 is out of range (at most 4294967294)");
}

// seq is stored + 1 (0: none), so 2^64 - 2 is the largest a binary log holds;
// a sample implying the next one was read as having no seq at all.
TEST(BinaryLimits, AnImpliedSequenceNumberPastTheLargestIsRefusedNotWrapped) {
    std::size_t at = 0;
    const std::string largest = sample(1, kMax64);
    const std::string log = one_block(largest + sample(std::nullopt, std::nullopt), at);
    EXPECT_EQ(error_of(log), std::to_string(at + largest.size()) + ": byte offset " + std::to_string(at + largest.size()) +
                                 ": sample's implied sequence number is past 2^64 - 2");
    Records records;
    read_binary(one_block(largest, at), "limits.htlog", records);
    ASSERT_EQ(records.samples.size(), 1u);
    EXPECT_EQ(records.samples[0].seq, kMax64 - 1);
}

TEST(BinaryLimits, TheWriterRefusesASequenceNumberABinaryLogCannotHold) {
    SampleLog log;
    log.header = {{"node", "N"}, {"instance", "1"}};
    log.tracepoints = {{"N", "1", "tp", "a", "b", hashtrace::HashFunction::md5}};
    SampleRecord s;
    s.time_ns = 5;
    s.seq = kMax64;
    s.flags = SampleRecord::kHasSeq;
    log.samples = {s};
    const fs::path dir = fs::temp_directory_path() / ("hashtrace-limits-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    // It was written as "no seq" (seq + 1 wrapped to 0).
    EXPECT_THROW(write_log(dir / "max.htlog", hashtrace::LogFormat::binary, log), std::invalid_argument);
    // CSV holds it whole.
    write_log(dir / "max.csv", hashtrace::LogFormat::csv, log);
    const SampleLog back = load_log(dir / "max.csv");
    ASSERT_EQ(back.samples.size(), 1u);
    EXPECT_TRUE(back.samples[0].has_seq());
    EXPECT_EQ(back.samples[0].seq, kMax64);
    // And a thread id that reads as "no thread".
    log.samples[0].seq = 1;
    log.samples[0].thread = SampleColumns::kNoThread;
    log.samples[0].flags |= SampleRecord::kHasThread;
    EXPECT_THROW(write_log(dir / "thread.htlog", hashtrace::LogFormat::binary, log), std::invalid_argument);
    fs::remove_all(dir);
}

TEST(BinaryLimits, TheSumOfDropCountsMayNotOverflow) {
    std::size_t at = 0;
    const std::string first = drop(kMax64);
    // The sum wrapped to 0: "nothing dropped".
    const std::string log = one_block(first + drop(1), at);
    EXPECT_EQ(error_of(log),
              std::to_string(at + first.size()) + ": byte offset " + std::to_string(at + first.size()) +
                  ": drop count 1 takes the log's sum of drops past 2^64 - 1");
    Records records;
    const ReadReport r = read_binary(one_block(first + drop(0), at), "limits.htlog", records);
    EXPECT_EQ(r.dropped_samples, kMax64);
    EXPECT_EQ(r.drop_records, 2u);
}

// Threads past the ones looked up directly (codes of 64 and more): each
// keeps its own sequence within a block, and a block starts afresh.
TEST(BinaryLimits, ManyThreadsKeepTheirOwnSequenceNumbersBlockByBlock) {
    constexpr std::uint32_t kThreads = 1000, kFirstThread = 40;  // both sides of the direct lookup
    detail::ByteBuffer out;
    detail::BinaryEncoder enc(out);
    enc.file_header({{"node", "N"}, {"instance", "1"}});
    std::vector<std::uint64_t> next_seq(kThreads);
    std::int64_t t = 1000;
    for (int block = 0; block < 3; ++block) {
        enc.begin_block(t);
        if (block == 0) enc.tracepoint(0, {"", "", "tp", "a", "b", hashtrace::HashFunction::md5});
        for (std::uint32_t i = 0; i < 5 * kThreads; ++i) {
            const std::uint32_t thread = (i * 7919) % kThreads;  // threads interleaved, not in turn
            enc.sample({++t, nullptr, nullptr, 0, true, kFirstThread + thread, true, next_seq[thread]++});
        }
        enc.end_block();
    }
    const std::string log(out.data(), out.size());
    Records records;
    const ReadReport r = read_binary(log, "threads.htlog", records);
    ASSERT_EQ(r.samples, 15u * kThreads);
    std::vector<std::uint64_t> expected(kThreads);
    for (const SampleRecord& s : records.samples) {
        ASSERT_TRUE(s.has_thread() && s.has_seq());
        ASSERT_EQ(s.seq, expected[s.thread - kFirstThread]++) << "thread " << s.thread;
    }
    // A block in which a thread seen in earlier blocks first implies its seq: there is none to follow.
    const std::string first = sample(kFirstThread + 500 + 1, 8);
    const std::string next = sealed_block(first + sample(kFirstThread + 700 + 1, std::nullopt));
    const std::size_t at = log.size() + detail::kBlockHeader + first.size();
    EXPECT_EQ(error_of(log + next),
              std::to_string(at) + ": byte offset " + std::to_string(at) + ": sample omits its sequence number with none to follow");
}
