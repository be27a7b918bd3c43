// The time index (format version 3) as the SDK's writer thread writes it:
// each block header gives its samples' count, smallest and largest time and
// whether it holds other records, and these are what the blocks hold, so a
// reader of a time range may pass over the others.
#include "test_support.hpp"

#include <hashtrace/detail/binary_format.hpp>
#include <hashtrace/logio/log_index.hpp>
#include <hashtrace/logio/reader.hpp>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <thread>

using hashtrace::testing::fresh_dir;
using hashtrace::testing::test_config;
using namespace hashtrace::logio;
namespace detail = hashtrace::detail;

namespace {

struct BlockIndex {
    std::int64_t min_ns, max_ns;
    std::uint32_t samples, flags;
};

template <typename T>
T at(const std::string& log, std::size_t offset) {
    T v;
    std::memcpy(&v, log.data() + offset, sizeof v);
    return v;
}

// Every block's time index, walking the blocks by their lengths.
std::vector<BlockIndex> block_indexes(const std::string& log) {
    std::vector<BlockIndex> blocks;
    std::size_t pos = detail::kFileHeaderFixed + at<std::uint32_t>(log, 12) + detail::kFileHeaderChecksum;
    while (pos < log.size()) {
        EXPECT_EQ(log.compare(pos, 4, "HTBK"), 0) << pos;
        blocks.push_back({at<std::int64_t>(log, pos + detail::kBlockMinTimeAt), at<std::int64_t>(log, pos + detail::kBlockMaxTimeAt),
                          at<std::uint32_t>(log, pos + detail::kBlockSamplesAt), at<std::uint32_t>(log, pos + detail::kBlockFlagsAt)});
        pos += detail::kBlockHeader + at<std::uint32_t>(log, pos + detail::kBlockLengthAt);
    }
    return blocks;
}

}  // namespace

TEST(TimeIndex, TheWriterThreadIndexesEveryBlock) {
    const auto dir = fresh_dir("index");
    std::string path;
    {
        auto config = test_config(dir);
        config.flush_interval = std::chrono::milliseconds(2);
        hashtrace::Session s(config);
        path = s.log_path();
        for (std::uint32_t burst = 0; burst < 20; ++burst) {
            for (std::uint32_t i = 0; i < 50; ++i) TRACEPOINT("Send", hashtrace::inout("messageid", burst * 50 + i));
            std::this_thread::sleep_for(std::chrono::milliseconds(6));
        }
    }
    std::ifstream in(path, std::ios::binary);
    const std::string bytes(std::istreambuf_iterator<char>(in), {});
    EXPECT_EQ(at<std::uint16_t>(bytes, 8), detail::kBinaryVersion);
    EXPECT_EQ(detail::kBinaryVersion, 3u);

    const SampleLog log = load_log(path);  // a whole read checks the index of every block of samples only
    ASSERT_EQ(log.samples.size(), 1000u);
    const std::vector<BlockIndex> blocks = block_indexes(bytes);
    std::uint64_t samples = 0, samples_only = 0;
    for (const BlockIndex& b : blocks) {
        samples += b.samples;
        samples_only += b.flags == 0;
        EXPECT_LE(b.flags, detail::kBlockHoldsRecords);
        if (b.samples == 0) {
            EXPECT_EQ(b.min_ns, detail::kNoSampleMin);
            EXPECT_EQ(b.max_ns, detail::kNoSampleMax);
        }
    }
    EXPECT_EQ(samples, 1000u);
    EXPECT_GE(samples_only, 3u) << "of " << blocks.size() << " blocks: the flushes between the definitions and the end";
    EXPECT_EQ(blocks.back().flags, detail::kBlockHoldsRecords) << "the end marker's";

    // The index's spans (the blocks of samples only, from their headers) hold the samples in file order.
    const LogIndex index = index_log(path);
    std::size_t next = 0;
    for (const TimeSpan& span : index.spans) {
        ASSERT_LE(next + span.samples, log.samples.size());
        const auto [low, high] = std::minmax_element(log.samples.begin() + static_cast<std::ptrdiff_t>(next),
                                                     log.samples.begin() + static_cast<std::ptrdiff_t>(next + span.samples),
                                                     [](const SampleRecord& a, const SampleRecord& b) { return a.time_ns < b.time_ns; });
        EXPECT_EQ(span.min_ns, low->time_ns);
        EXPECT_EQ(span.max_ns, high->time_ns);
        next += span.samples;
    }
    EXPECT_EQ(next, log.samples.size());
    EXPECT_TRUE(index.report.clean_close);

    // A window: the samples of its time, in order.
    ReadOptions window;
    window.from_ns = log.samples[300].time_ns;
    window.to_ns = log.samples[700].time_ns;
    const SampleLog part = load_log(path, window);
    std::vector<std::int64_t> expected;
    for (const SampleRecord& s : log.samples)
        if (window.wants(s.time_ns)) expected.push_back(s.time_ns);
    std::vector<std::int64_t> got;
    for (const SampleRecord& s : part.samples) got.push_back(s.time_ns);
    EXPECT_EQ(got, expected);
    EXPECT_EQ(part.tracepoints, log.tracepoints);
}
