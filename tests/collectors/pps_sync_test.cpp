#include "hashtrace/collectors/pps_sync.hpp"

#include "hashtrace/canonical.hpp"

#include <gtest/gtest.h>

using namespace hashtrace;
using namespace hashtrace::collectors;

namespace {

constexpr std::int64_t kSecond = 1'000'000'000;
constexpr std::int64_t kEdge0 = 1'700'000'005 * kSecond;  // the true second of the first edge

logio::SampleLog software_log(std::vector<std::pair<std::uint32_t, std::int64_t>> id_times,
                              HashFunction f = HashFunction::md5) {
    logio::SampleLog log;
    logio::TracepointInfo tp;
    tp.node_name = "Unity";
    tp.tracepoint_name = "MessageProcessed";
    tp.hash_function = f;
    log.tracepoints.push_back(tp);
    for (auto [id, t] : id_times) {
        logio::SampleRecord s;
        s.time_ns = t;
        s.input_hash = s.output_hash = hash_of(f, id);
        s.flags = logio::SampleRecord::kHasInput | logio::SampleRecord::kHasOutput;
        log.samples.push_back(s);
    }
    return log;
}

// 2200 frames at 1000 fps; frame i shows message 100 + i / 20; edges at 500.3 and 1500.3.
struct Footage {
    std::vector<FrameObservation> frames;
    std::vector<PpsEdge> edges{{500.3, 501}, {1500.3, 1501}};
    Footage() {
        for (std::size_t i = 0; i < 2200; ++i) {
            FrameObservation f;
            if (i % 20 != 0) f.payload = std::to_string(100 + i / 20);  // the first frame of a code is unreadable
            frames.push_back(f);
        }
    }
};

}  // namespace

TEST(LastCodeBefore, SkipsUnreadableAndMisreadFrames) {
    std::vector<FrameObservation> frames(5);
    frames[1].payload = "7";
    frames[3].payload = "not a number";
    const auto m = parse_payload_mapping("int:32");
    const auto code = last_code_before(frames, 4, m);
    ASSERT_TRUE(code);
    EXPECT_EQ(code->frame, 1u);
    EXPECT_EQ(code->hash, hash_of(HashFunction::md5, std::uint32_t{7}));
    EXPECT_FALSE(last_code_before(frames, 1, m));
}

TEST(SyncToSoftware, DatesEdgesFromTheLastCodeBeforeThem) {
    Footage f;
    // Message 124 (last before frame 501: frame 500 is unreadable, 499 shows 124) was processed 30 ms
    // before the edge; message 174 likewise before the second edge.
    SoftwareTimes software(HashFunction::md5);
    software.add(software_log({{124, kEdge0 - 30'000'000}, {174, kEdge0 + kSecond - 12'000'000}}));
    const auto r = sync_to_software(f.edges, f.frames, parse_payload_mapping("int:32"), software, 1000, 0);
    ASSERT_TRUE(r.clock);
    EXPECT_EQ(r.first_edge_second_ns, kEdge0);
    EXPECT_EQ(r.edges_with_match, 2u);
    EXPECT_EQ(r.edges_agreeing, 2u);
    EXPECT_EQ(r.clock->time_at(500.3), kEdge0);
    EXPECT_EQ(r.clock->time_at(1000.3), kEdge0 + kSecond / 2);
}

TEST(SyncToSoftware, MaxDeviationKeepsALateClockFromRoundingUpToTheNextSecond) {
    Footage f;
    SoftwareTimes software(HashFunction::md5);
    // A clock 0.4 ms ahead of the PPS stamped message 124 after the edge's second.
    software.add(software_log({{124, kEdge0 + 300'000}}));
    const auto mapping = parse_payload_mapping("int:32");
    const auto naive = sync_to_software(f.edges, f.frames, mapping, software, 1000, 0);
    ASSERT_TRUE(naive.clock);
    EXPECT_EQ(naive.first_edge_second_ns, kEdge0 + kSecond);  // wrong by a second
    const auto r = sync_to_software(f.edges, f.frames, mapping, software, 1000, 400'000);
    EXPECT_EQ(r.first_edge_second_ns, kEdge0);
}

TEST(SyncToSoftware, AStaleCodeIsOutvoted) {
    Footage f;
    f.edges.push_back({2100.3, 2101});
    SoftwareTimes software(HashFunction::md5);
    software.add(software_log({{124, kEdge0 - 30'000'000},
                               {174, kEdge0 + kSecond - 30'000'000},
                               {204, kEdge0 + 2 * kSecond - 1'500'000'000}}));  // processed long before it showed
    const auto r = sync_to_software(f.edges, f.frames, parse_payload_mapping("int:32"), software, 1000, 0);
    ASSERT_TRUE(r.clock);
    EXPECT_EQ(r.first_edge_second_ns, kEdge0);
    EXPECT_EQ(r.edges_with_match, 3u);
    EXPECT_EQ(r.edges_agreeing, 2u);
}

TEST(SyncToSoftware, NoMatchingHashMeansNoClock) {
    Footage f;
    SoftwareTimes other_function(HashFunction::xxh3_128);
    other_function.add(software_log({{124, kEdge0 - 30'000'000}}));  // md5 samples: ignored
    EXPECT_EQ(other_function.samples(), 0u);
    const auto r = sync_to_software(f.edges, f.frames, parse_payload_mapping("int:32", HashFunction::xxh3_128),
                                    other_function, 1000, 0);
    EXPECT_FALSE(r.clock);
    EXPECT_EQ(r.edges_with_match, 0u);
    SoftwareTimes software(HashFunction::md5);
    software.add(software_log({{124, kEdge0 - 30'000'000}}));
    EXPECT_FALSE(sync_to_software({}, f.frames, parse_payload_mapping("int:32"), software, 1000, 0).clock);
}
