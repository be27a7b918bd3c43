#include "hashtrace/collectors/photodiode.hpp"

#include "hashtrace/canonical.hpp"
#include "hashtrace/logio/reader.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <unistd.h>

using namespace hashtrace;
using namespace hashtrace::collectors;
using sensors::Edge;
using sensors::EdgeKind;

TEST(PhotodiodeSample, RisingIsBrightAndTheFlashIsTheInputHash) {
    const Edge rising{1'700'000'000'123'456'789, EdgeKind::rising, 9};
    const auto s = photodiode_sample(rising, 3, HashFunction::md5);
    EXPECT_EQ(s.tracepoint, kDisplayBright);
    EXPECT_EQ(s.time_ns, rising.realtime_ns);
    EXPECT_EQ(s.seq, 9u);
    EXPECT_TRUE(s.has_input());
    EXPECT_FALSE(s.has_output());
    // What the display node's TRACEPOINT(..., out("flash", std::uint64_t{3})) hashes.
    EXPECT_EQ(s.input_hash, hash_of(HashFunction::md5, std::uint64_t{3}));
    EXPECT_EQ(photodiode_sample({0, EdgeKind::falling, 1}, 4, HashFunction::md5).tracepoint, kDisplayDark);
}

TEST(PhotodiodeRecorder, CountsFlashesBySequenceAndReportsLostEdges) {
    const auto file = std::filesystem::temp_directory_path() / ("hashtrace-photodiode-" + std::to_string(::getpid()) + ".csv");
    PhotodiodeStats stats;
    {
        auto writer = logio::open_writer(file, LogFormat::csv, {{"node", "Photodiode"}, {"instance", "pd"}});
        PhotodiodeOptions options;
        options.instance = "pd";
        PhotodiodeRecorder recorder(*writer, options);
        recorder.record({1'000, EdgeKind::rising, 20});   // flash 1
        recorder.record({2'000, EdgeKind::falling, 21});  // flash 2
        recorder.record({5'000, EdgeKind::rising, 24});   // flash 5: edges 22 and 23 were lost
        recorder.record({6'000, EdgeKind::rising, 25});   // flash 6 cannot be rising
        stats = recorder.stats();
        writer->close();
    }
    EXPECT_EQ(stats.edges, 4u);
    EXPECT_EQ(stats.lost_edges, 2u);
    EXPECT_EQ(stats.parity_mismatches, 1u);

    const auto log = logio::load_log(file);
    std::filesystem::remove(file);
    ASSERT_EQ(log.tracepoints.size(), 2u);
    EXPECT_EQ(log.tracepoints[kDisplayBright].tracepoint_name, "DisplayBright");
    EXPECT_EQ(log.tracepoints[kDisplayDark].tracepoint_name, "DisplayDark");
    EXPECT_EQ(log.tracepoints[kDisplayBright].input_hash_type, "flash");
    EXPECT_EQ(log.tracepoints[kDisplayBright].node_name, "Photodiode");
    ASSERT_EQ(log.samples.size(), 4u);
    const std::uint64_t flashes[] = {1, 2, 5, 6};
    for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(log.samples[i].input_hash, hash_of(HashFunction::md5, flashes[i])) << i;
    EXPECT_EQ(log.samples[2].time_ns, 5'000);
}
