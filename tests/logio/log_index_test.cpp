// index_log: its spans cover every sample of a log once, in file order, and
// its report is what a whole read reports (drops, a loss, torn tails,
// unclean closes, damage), for CSV and binary versions 1 to 3. A version-3
// log is indexed from its block headers, every block checked against its
// checksum: a damaged header field is an error naming the file and the
// block's offset, or (lenient) a block skipped and counted.
#include "range_logs.hpp"

#include <hashtrace/logio/log_index.hpp>
#include <hashtrace/logio/writer.hpp>

#include <algorithm>

using namespace range_test;

namespace {

struct Samples : LogVisitor {
    void on_samples(std::span<const SampleRecord>) override {}
};

std::vector<NamedLog> all_logs() {
    const BuiltLog v3 = v3_log();
    const BuiltLog unclean = v3_log(40, 50, false);
    const std::size_t last = unclean.blocks.back();
    const std::string csv = as_csv(v3_log(40, 250).bytes);  // 10,000 samples: more than a batch
    const std::string v2 = slurp(HASHTRACE_SDK_TEST_DATA "/version2.htlog");
    return {
        {"v3", v3.bytes},
        {"v3 unclean", unclean.bytes},
        {"v3 torn in a block", unclean.bytes.substr(0, last + detail::kBlockHeader + 300)},
        {"v3 torn in a block header", unclean.bytes.substr(0, last + 20)},
        {"v3 zero-filled tail", v3.bytes + std::string(4096, '\0')},
        {"csv", csv},
        {"csv torn", csv.substr(0, csv.size() - 30)},
        {"v2", v2},
        {"v2 torn", v2.substr(0, v2.size() - 100)},
        {"v2 unclean", v2.substr(0, v2.rfind("HTBK"))},
        {"v1", slurp(HASHTRACE_SDK_TEST_DATA "/version1.htlog")},
    };
}

// The index of `bytes` (as a file) against a whole read of it, with `options`.
void expect_index_of(const std::string& bytes, const std::string& name, const ReadOptions& options = {}) {
    const fs::path path = temp_path("index.log");
    spill(path, bytes);
    RecordTrace whole;
    const ReadReport report = read_log(path, whole, options);
    const LogIndex index = index_log(path, options);
    fs::remove(path);

    EXPECT_EQ(index.path, path.string()) << name;
    EXPECT_EQ(report_text(index.report), report_text(report)) << name;
    // In file order, each span's samples are the next ones of the whole read, and its range is theirs.
    std::vector<std::int64_t> times;
    for (std::int64_t t : whole.d.times)
        if (t != kNotSample) times.push_back(t);
    std::size_t next = 0;
    for (const TimeSpan& span : index.spans) {
        ASSERT_GT(span.samples, 0u) << name;
        ASSERT_LE(next + span.samples, times.size()) << name;
        const auto [low, high] = std::minmax_element(times.begin() + static_cast<std::ptrdiff_t>(next),
                                                     times.begin() + static_cast<std::ptrdiff_t>(next + span.samples));
        EXPECT_EQ(span.min_ns, *low) << name << ", span from sample " << next;
        EXPECT_EQ(span.max_ns, *high) << name << ", span from sample " << next;
        next += span.samples;
    }
    EXPECT_EQ(next, times.size()) << name;
    EXPECT_EQ(index.samples, times.size()) << name;
    if (!times.empty()) {
        EXPECT_EQ(index.min_ns, *std::min_element(times.begin(), times.end())) << name;
        EXPECT_EQ(index.max_ns, *std::max_element(times.begin(), times.end())) << name;
    }
    if (report.format == hashtrace::LogFormat::binary) {
        LogHeader header;
        for (const auto& e : whole.d.events)
            if (e.rfind("header ", 0) == 0) header[e.substr(7, e.find('=') - 7)] = e.substr(e.find('=') + 1);
        EXPECT_EQ(index.header, header) << name;
    }
}

}  // namespace

TEST(IndexLog, SpansCoverEverySampleOnceAndTheReportIsAWholeReads) {
    for (const auto& [name, bytes] : all_logs()) expect_index_of(bytes, name);
}

// Version 3: a span a block of samples only, from its header; the blocks
// with other records are decoded (their samples come as batches, cut where
// the reader sends out its batch: at a definition or a drop). Older versions
// and CSV: batches of at most SampleColumns::kCapacity samples.
TEST(IndexLog, AVersion3LogHasASpanABlockAndTheOthersOneABatch) {
    const BuiltLog log = v3_log(40, 250);
    const fs::path path = temp_path("spans.htlog");
    spill(path, log.bytes);
    const LogIndex v3 = index_log(path);
    std::vector<std::string> headers;  // of the blocks of samples only, in order
    for (std::size_t at : log.blocks)
        if (!(u32_at(log.bytes, at + detail::kBlockFlagsAt) & detail::kBlockHoldsRecords))
            headers.push_back(std::to_string(i64_at(log.bytes, at + detail::kBlockMinTimeAt)) + " " +
                              std::to_string(i64_at(log.bytes, at + detail::kBlockMaxTimeAt)) + " " +
                              std::to_string(u32_at(log.bytes, at + detail::kBlockSamplesAt)));
    ASSERT_GT(headers.size(), 20u);
    std::size_t found = 0;
    for (const TimeSpan& span : v3.spans) {
        const std::string text = std::to_string(span.min_ns) + " " + std::to_string(span.max_ns) + " " + std::to_string(span.samples);
        if (found < headers.size() && text == headers[found]) ++found;
        else EXPECT_LE(span.samples, SampleColumns::kCapacity);
    }
    EXPECT_EQ(found, headers.size()) << "a span each block of samples only, in order";
    spill(path, as_csv(log.bytes));
    const LogIndex csv = index_log(path);
    fs::remove(path);
    EXPECT_EQ(csv.samples, 10'000u);
    EXPECT_GE(csv.spans.size(), 3u);
    for (const TimeSpan& span : csv.spans) EXPECT_LE(span.samples, SampleColumns::kCapacity);
}

// The blocks of samples only are checked but not decoded: records that do
// not parse under a checksum made to match are found by a whole read, and
// not by the index (what the writer wrote, the checksum vouches for).
TEST(IndexLog, AVersion3LogIsIndexedFromItsBlockHeaders) {
    const BuiltLog log = v3_log();
    std::string resealed = log.bytes;
    const std::size_t block = log.blocks[12];
    ASSERT_FALSE(u32_at(resealed, block + detail::kBlockFlagsAt) & detail::kBlockHoldsRecords);
    std::memset(resealed.data() + block + detail::kBlockHeader, 0xff, block_end(resealed, block) - block - detail::kBlockHeader);
    reseal(resealed, block);

    const fs::path path = temp_path("resealed.htlog");
    spill(path, resealed);
    RecordTrace whole;
    EXPECT_THROW(read_log(path, whole), LogError);
    const LogIndex index = index_log(path);
    fs::remove(path);
    EXPECT_EQ(index.samples, 40u * 50u);
}

// A bit flipped in any field of a block header the index reads (time
// index, length) is found by the block's checksum.
TEST(IndexLog, ADamagedBlockHeaderIsAnErrorNamingFileAndOffsetOrLenientlySkipped) {
    const BuiltLog log = v3_log();
    const std::size_t block = log.blocks[22];
    ASSERT_FALSE(u32_at(log.bytes, block + detail::kBlockFlagsAt) & detail::kBlockHoldsRecords);
    for (std::size_t field : {detail::kBlockLengthAt, detail::kBlockBaseTimeAt, detail::kBlockMinTimeAt, detail::kBlockMaxTimeAt,
                              detail::kBlockSamplesAt, detail::kBlockFlagsAt}) {
        std::string bad = log.bytes;
        bad[block + field] ^= 0x01;
        const fs::path path = temp_path("damaged.htlog");
        spill(path, bad);
        try {
            index_log(path);
            ADD_FAILURE() << "field at " << field << ": the damage was not found";
        } catch (const LogError& e) {
            EXPECT_EQ(e.file(), path.string());
            EXPECT_EQ(e.line(), block) << e.what();
            EXPECT_NE(e.reason().find("block checksum mismatch"), std::string::npos) << e.what();
        }
        fs::remove(path);
        ReadOptions lenient;
        lenient.lenient = true;
        expect_index_of(bad, "field at " + std::to_string(field) + ", lenient", lenient);
    }
}

// Lenient, a damaged block that defined the tracepoints and threads leaves
// the samples of every later block naming undefined ones: a whole read
// counts them as bad records block by block, and so does the index, which
// then decodes the blocks it would have passed over.
TEST(IndexLog, ADamagedBlockOfDefinitionsMakesTheIndexAWholeRead) {
    const BuiltLog log = v3_log();
    std::string bad = log.bytes;
    bad[log.blocks[0] + detail::kBlockHeader + 4] ^= 0x01;  // block 0 defines tracepoints a and b
    ReadOptions lenient;
    lenient.lenient = true;
    RecordTrace whole;
    const fs::path path = temp_path("definitions.htlog");
    spill(path, bad);
    const ReadReport report = read_log(path, whole, lenient);
    fs::remove(path);
    EXPECT_GT(report.bad_records, 30u) << "a block's rest, block after block";
    expect_index_of(bad, "definitions damaged", lenient);
}

// The writer's time index of a block of samples only is checked when the
// block is decoded: a sample outside its range, or a count that is not the
// block's (the checksum made to match), is refused naming the block or the
// sample. (A range wider than the samples' is not wrong: a window read would
// only decode the block in vain.)
TEST(IndexLog, ATimeIndexThatDisagreesWithItsRecordsIsCorrupt) {
    const BuiltLog log = v3_log();
    const std::size_t block = log.blocks[5];
    ASSERT_FALSE(u32_at(log.bytes, block + detail::kBlockFlagsAt) & detail::kBlockHoldsRecords);
    const std::size_t end = block_end(log.bytes, block);
    struct Change {
        std::size_t field;
        std::int64_t by;
        const char* reason;
    };
    for (const Change change : {Change{detail::kBlockMinTimeAt, 1, "lies outside its block header's time index"},
                                Change{detail::kBlockMaxTimeAt, -1, "lies outside its block header's time index"},
                                Change{detail::kBlockSamplesAt, 1, "block header says 51 samples, its records hold 50"}}) {
        std::string bad = log.bytes;
        if (change.field == detail::kBlockSamplesAt) {
            const std::uint32_t samples = u32_at(bad, block + change.field) + static_cast<std::uint32_t>(change.by);
            std::memcpy(bad.data() + block + change.field, &samples, 4);
        } else {
            const std::int64_t time = i64_at(bad, block + change.field) + change.by;
            std::memcpy(bad.data() + block + change.field, &time, 8);
        }
        reseal(bad, block);
        try {
            Samples ignore;
            read_binary(bad, "index.htlog", ignore);
            ADD_FAILURE() << change.reason << ": accepted";
        } catch (const LogError& e) {
            EXPECT_NE(e.reason().find(change.reason), std::string::npos) << e.what();
            EXPECT_GE(e.line(), block) << e.what();
            EXPECT_LT(e.line(), end) << e.what();
        }
        ReadOptions lenient;
        lenient.lenient = true;
        EXPECT_EQ(read(bad, Via::memory, false, lenient).report.bad_records, 1u) << change.reason;
    }
    // A record other than a sample in a block flagged as holding samples only.
    std::string bad = log.bytes;
    const std::size_t with_records = log.blocks[4];  // a drop
    ASSERT_TRUE(u32_at(bad, with_records + detail::kBlockFlagsAt) & detail::kBlockHoldsRecords);
    bad[with_records + detail::kBlockFlagsAt] = 0;
    reseal(bad, with_records);
    EXPECT_NE(read(bad, Via::memory, false).error.find("holds samples only"), std::string::npos);
}

TEST(IndexLog, ALogWithoutSamplesHasNoSpans) {
    detail::ByteBuffer out;
    detail::BinaryEncoder enc(out);
    enc.file_header({{"node", "N"}, {"instance", "1"}});
    enc.begin_block(5);
    enc.tracepoint(0, {"", "", "a", "x", "y", hashtrace::HashFunction::md5});
    enc.end_block();
    enc.begin_block(5);  // an empty block: no samples, no flags
    enc.end_block();
    enc.begin_block(5);
    enc.end_marker();
    enc.end_block();
    expect_index_of(std::string(out.data(), out.size()), "no samples");
    const fs::path path = temp_path("empty.htlog");
    spill(path, std::string(out.data(), out.size()));
    const LogIndex index = index_log(path);
    fs::remove(path);
    EXPECT_TRUE(index.spans.empty());
    EXPECT_EQ(index.samples, 0u);
    EXPECT_TRUE(index.report.clean_close);
}

// The tools' writer (open_writer: the generators, slices, conversions) cuts
// its blocks as a traced process's writer does, every 100 ms of the samples'
// time, so that a window of a log it wrote is read from blocks as small: 2 s
// of a 10 kHz node (~400 KB, under the 1 MiB a block may also hold) is ~20
// blocks, none spanning more than the interval.
TEST(IndexLog, TheToolsWriterCutsABlockEveryHundredMillisecondsOfSamples) {
    const fs::path path = temp_path("writer.htlog");
    constexpr std::int64_t kStep = 100'000;  // 10 kHz
    {
        auto w = open_writer(path, hashtrace::LogFormat::binary, {{"node", "N"}, {"instance", "1"}});
        TracepointInfo tp;
        tp.node_name = "N";
        tp.instance = "1";
        tp.tracepoint_name = "a";
        w->add_tracepoint(tp);
        for (std::int64_t i = 0; i < 20'000; ++i) {
            SampleRecord s;
            s.time_ns = kT0 + i * kStep;
            s.input_hash = hashtrace::hash_of(hashtrace::HashFunction::md5, static_cast<std::uint64_t>(i));
            s.flags = SampleRecord::kHasInput;
            w->write(s);
        }
        w->close();
    }
    const LogIndex index = index_log(path);
    fs::remove(path);
    EXPECT_EQ(index.samples, 20'000u);
    EXPECT_GE(index.spans.size(), 19u);
    EXPECT_LE(index.spans.size(), 21u);
    for (const TimeSpan& span : index.spans) EXPECT_LE(span.max_ns - span.min_ns, 100'000'000) << span.samples << " samples";
}
