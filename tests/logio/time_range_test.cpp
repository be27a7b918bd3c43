// Reading a time range (ReadOptions::from_ns/to_ns) and indexing a log
// (index_log), for both formats: a range read delivers exactly the samples a
// whole read delivers in that range, with every definition; the index's
// spans cover every sample once and its report is a whole read's.
#include <hashtrace/logio/log_index.hpp>
#include <hashtrace/logio/reader.hpp>
#include <hashtrace/logio/slice.hpp>
#include <hashtrace/logio/writer.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <random>

namespace fs = std::filesystem;
using namespace hashtrace::logio;

namespace {

constexpr std::int64_t kStart = 1'700'000'000'000'000'000;
constexpr int kSamples = 300000;  // several of the tools' writer's 1 MiB blocks

// Two tracepoints, the second defined only after 5000 samples; times jump
// back now and then (threads flushed out of order); a drop record.
fs::path write_log(LogFormat format, const std::string& name) {
    const fs::path file = fs::temp_directory_path() / (name + "-" + std::to_string(::getpid()) + (format == LogFormat::csv ? ".csv" : ".htlog"));
    auto writer = open_writer(file, format, {{"node", "Chai"}, {"instance", "1"}});
    const std::uint32_t send = writer->add_tracepoint({"Chai", "1", "Send", "id", "id", hashtrace::HashFunction::md5});
    std::uint32_t late = 0;
    std::mt19937 rng(5);
    for (int i = 0; i < kSamples; ++i) {
        if (i == 5000) late = writer->add_tracepoint({"Chai", "1", "Late", "id", "id", hashtrace::HashFunction::md5});
        SampleRecord s;
        s.time_ns = kStart + std::int64_t{i} * 1000 - (i % 97 == 0 ? 50'000 : 0) + static_cast<std::int64_t>(rng() % 500);
        s.tracepoint = i >= 5000 && i % 3 == 0 ? late : send;
        s.output_hash.bytes[0] = static_cast<std::uint8_t>(i);
        s.output_hash.bytes[1] = static_cast<std::uint8_t>(i >> 8);
        s.flags = SampleRecord::kHasOutput;
        writer->write(s);
        if (i == 7000) writer->write(DropRecord{s.time_ns, send, 12});
    }
    writer->close();
    return file;
}

class TimeRange : public ::testing::TestWithParam<LogFormat> {
protected:
    void SetUp() override { file = write_log(GetParam(), "hashtrace-range"); }
    void TearDown() override { fs::remove(file); }
    fs::path file;
};

TEST_P(TimeRange, DeliversExactlyTheSamplesOfTheRangeWithEveryDefinition) {
    const SampleLog whole = load_log(file);
    for (auto [from, to] : {std::pair{kStart + 3'000'000, kStart + 9'000'123}, std::pair{kStart - 10, kStart + 1}, std::pair{kStart + 30'000'000, kStart + 40'000'000}}) {
        ReadOptions range;
        range.from_ns = from;
        range.to_ns = to;
        const SampleLog part = load_log(file, range);
        std::vector<SampleRecord> expected;
        std::copy_if(whole.samples.begin(), whole.samples.end(), std::back_inserter(expected),
                     [&](const SampleRecord& s) { return s.time_ns >= from && s.time_ns < to; });
        ASSERT_EQ(part.samples.size(), expected.size());
        for (std::size_t i = 0; i < expected.size(); ++i) {
            EXPECT_EQ(part.samples[i].time_ns, expected[i].time_ns);
            EXPECT_EQ(part.samples[i].tracepoint, expected[i].tracepoint);
            EXPECT_EQ(part.samples[i].output_hash, expected[i].output_hash);
        }
        EXPECT_EQ(part.report.samples, expected.size());
        EXPECT_EQ(part.tracepoints.size(), 2u);  // the late definition too, whatever the range
        EXPECT_EQ(part.report.dropped_samples, 12u);
    }
}

TEST_P(TimeRange, ASliceReadsInItsRangeAsTheLogDoes) {
    const fs::path slice = fs::path(file).replace_extension(".slice.htlog");
    ReadOptions range;
    range.from_ns = kStart + 150'000'000;  // mid-run: the first block (definitions) and the last (the end) come too
    range.to_ns = kStart + 152'500'000;
    const std::uint64_t bytes = slice_log(file, slice, range.from_ns, range.to_ns);
    EXPECT_EQ(bytes, fs::file_size(slice));
    if (GetParam() == LogFormat::binary) {
        EXPECT_LT(bytes, fs::file_size(file) / 2);  // cut by blocks
    }
    const SampleLog from_slice = load_log(slice, range), from_log = load_log(file, range);
    ASSERT_EQ(from_slice.samples.size(), from_log.samples.size());
    for (std::size_t i = 0; i < from_log.samples.size(); ++i) {
        EXPECT_EQ(from_slice.samples[i].time_ns, from_log.samples[i].time_ns);
        EXPECT_EQ(from_slice.samples[i].output_hash, from_log.samples[i].output_hash);
    }
    EXPECT_EQ(from_slice.tracepoints.size(), 2u);
    EXPECT_TRUE(from_slice.report.clean_close);  // the end record's block comes along
    fs::remove(slice);
}

TEST_P(TimeRange, TheSameFromMemory) {
    std::ifstream in(file, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    struct Count : LogVisitor {
        std::uint64_t n = 0;
        void on_samples(std::span<const SampleRecord> b) override { n += b.size(); }
    } all, part;
    read_log(bytes, file.string(), all);
    ReadOptions range;
    range.from_ns = kStart + 1'000'000;
    range.to_ns = kStart + 2'000'000;
    const ReadReport report = read_log(bytes, file.string(), part, range);
    EXPECT_EQ(all.n, std::uint64_t(kSamples));
    EXPECT_GT(part.n, 900u);
    EXPECT_LT(part.n, 1100u);
    EXPECT_EQ(report.samples, part.n);
}

TEST_P(TimeRange, TheIndexCoversEverySampleOnceAndReportsAsAWholeRead) {
    const SampleLog whole = load_log(file);
    const LogIndex index = index_log(file);
    EXPECT_EQ(index.samples, whole.samples.size());
    std::uint64_t in_spans = 0;
    for (const TimeSpan& span : index.spans) {
        EXPECT_LE(span.min_ns, span.max_ns);
        in_spans += span.samples;
    }
    EXPECT_EQ(in_spans, whole.samples.size());
    const auto [low, high] = std::minmax_element(whole.samples.begin(), whole.samples.end(),
                                                 [](const SampleRecord& a, const SampleRecord& b) { return a.time_ns < b.time_ns; });
    EXPECT_EQ(index.min_ns, low->time_ns);
    EXPECT_EQ(index.max_ns, high->time_ns);
    // In file order, the spans' samples are the log's: each sample inside its span's range.
    std::size_t next = 0;
    for (const TimeSpan& span : index.spans)
        for (std::uint64_t k = 0; k < span.samples; ++k, ++next) {
            EXPECT_GE(whole.samples[next].time_ns, span.min_ns);
            EXPECT_LE(whole.samples[next].time_ns, span.max_ns);
        }
    EXPECT_EQ(index.report.dropped_samples, whole.report.dropped_samples);
    EXPECT_EQ(index.report.clean_close, whole.report.clean_close);
    EXPECT_EQ(index.report.torn, whole.report.torn);
}

TEST_P(TimeRange, ATornLogIsIndexedAsItIsRead) {
    const auto size = fs::file_size(file);
    fs::resize_file(file, size - 7);
    const SampleLog whole = load_log(file);
    const LogIndex index = index_log(file);
    EXPECT_EQ(index.samples, whole.samples.size());
    EXPECT_EQ(index.report.torn, whole.report.torn);
    EXPECT_EQ(index.report.torn_tail.offset, whole.report.torn_tail.offset);
    EXPECT_EQ(index.report.closed_uncleanly(), whole.report.closed_uncleanly());
}

TEST(TimeRangeErrors, AMissingLogIsAnErrorNamingIt) {
    try {
        index_log("/nonexistent/log.htlog");
        FAIL();
    } catch (const LogError& e) {
        EXPECT_NE(std::string(e.what()).find("/nonexistent/log.htlog"), std::string::npos);
    }
}

INSTANTIATE_TEST_SUITE_P(BothFormats, TimeRange, ::testing::Values(LogFormat::binary, LogFormat::csv));

}  // namespace
