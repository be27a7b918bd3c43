#include "hashtrace/collectors/camera_log.hpp"

#include "hashtrace/canonical.hpp"

#include <gtest/gtest.h>

using namespace hashtrace;
using namespace hashtrace::collectors;

namespace {
std::vector<FrameObservation> frames_showing(std::vector<const char*> payloads) {
    std::vector<FrameObservation> frames;
    for (const char* p : payloads) {
        FrameObservation f;
        if (p) f.payload = p;
        frames.push_back(f);
    }
    return frames;
}
}  // namespace

TEST(ClassifyAppearances, FirstFrameOfEachCodeAndPersistingOnes) {
    const auto m = parse_payload_mapping("int:32");
    const auto frames = frames_showing({nullptr, "1", "1", nullptr, "1", "2", "x", "2", "1"});
    using R = FrameRole;
    // Code 1 was shown before filming began: only later codes have a seen appearance.
    EXPECT_EQ(classify_appearances(frames, m),
              (std::vector<R>{R::unreadable, R::persisting, R::persisting, R::unreadable, R::persisting, R::first,
                              R::misread, R::persisting, R::first}));
}

TEST(BuildCameraLog, OneSamplePerReadableFrameDatedByTheClock) {
    CameraLogOptions options;
    options.mapping = parse_payload_mapping("int:32");
    options.instance = "cam1";
    const auto frames = frames_showing({"4", "5", "5", "6", "oops", "6"});
    const auto roles = classify_appearances(frames, options.mapping);
    const std::vector<PpsEdge> edges{{2.25, 2}};
    const FrameClock clock = clock_from_start_time(1'000'000'000, 1000);
    CameraLogStats stats;
    const auto log = build_camera_log(frames, roles, edges, clock, options, stats);

    ASSERT_EQ(log.tracepoints.size(), 3u);
    EXPECT_EQ(log.tracepoints[kQrDisplayed].tracepoint_name, "QrDisplayed");
    EXPECT_EQ(log.tracepoints[kQrPersisting].tracepoint_name, "QrPersisting");
    EXPECT_EQ(log.tracepoints[kPpsRisingEdge].tracepoint_name, "PpsRisingEdge");
    EXPECT_EQ(log.tracepoints[kQrDisplayed].node_name, "Camera");
    EXPECT_EQ(log.tracepoints[kQrDisplayed].instance, "cam1");
    EXPECT_EQ(log.tracepoints[kQrDisplayed].input_hash_type, "messageid");
    EXPECT_EQ(log.header.at("payload_mapping"), "int:32");

    EXPECT_EQ(stats.frames, 6u);
    EXPECT_EQ(stats.appearances, 2u);
    EXPECT_EQ(stats.persisting, 3u);
    EXPECT_EQ(stats.unreadable, 0u);
    EXPECT_EQ(stats.misread, 1u);
    EXPECT_EQ(stats.pps_edges, 1u);

    // Frames 0, 1, 2, 3, 5 and the edge at 2.25, in time order.
    ASSERT_EQ(log.samples.size(), 6u);
    const std::vector<std::uint64_t> seqs{0, 1, 2, 2, 3, 5};
    const std::vector<std::uint32_t> tps{kQrPersisting, kQrDisplayed, kPpsRisingEdge, kQrPersisting, kQrDisplayed,
                                         kQrPersisting};
    for (std::size_t i = 0; i < 6; ++i) {
        EXPECT_EQ(log.samples[i].seq, seqs[i]) << i;
        EXPECT_EQ(log.samples[i].tracepoint, tps[i]) << i;
        EXPECT_TRUE(log.samples[i].has_seq());
    }
    EXPECT_EQ(log.samples[0].time_ns, 1'000'500'000);  // middle of frame 0's exposure
    EXPECT_EQ(log.samples[1].time_ns, 1'001'000'000);  // code 5 follows code 4 directly: dated between them
    EXPECT_EQ(log.samples[2].time_ns, 1'002'250'000);
    EXPECT_EQ(log.samples[3].time_ns, 1'002'500'000);
    EXPECT_EQ(log.samples[4].time_ns, 1'003'000'000);
    EXPECT_EQ(log.samples[4].input_hash, hash_of(HashFunction::md5, std::uint32_t{6}));
    EXPECT_TRUE(log.samples[4].has_input());
    EXPECT_FALSE(log.samples[4].has_output());
    EXPECT_FALSE(log.samples[2].has_input());
}

TEST(BuildCameraLog, RejectsRolesForOtherFrames) {
    CameraLogOptions options;
    const auto frames = frames_showing({"a"});
    CameraLogStats stats;
    EXPECT_THROW(build_camera_log(frames, {}, {}, clock_from_start_time(0, 1000), options, stats), std::invalid_argument);
}

TEST(BuildCameraLog, DisplayTimeIsTheMiddleOfTheUnreadableGapUnlessTheGapIsLong) {
    CameraLogOptions options;
    options.mapping = parse_payload_mapping("text");
    options.max_gap_frames = 3;
    // Code b after a 2-frame gap, code c after a 4-frame gap.
    const auto frames = frames_showing({"a", nullptr, nullptr, "b", nullptr, nullptr, nullptr, nullptr, "c"});
    const auto roles = classify_appearances(frames, options.mapping);
    const FrameClock clock = clock_from_start_time(0, 1000);
    CameraLogStats stats;
    auto log = build_camera_log(frames, roles, {}, clock, options, stats);
    ASSERT_EQ(log.samples.size(), 3u);
    EXPECT_EQ(log.samples[0].tracepoint, kQrPersisting);
    EXPECT_EQ(log.samples[1].time_ns, 2'000'000);  // between frame 0's centre (0.5) and frame 3's (3.5)
    EXPECT_EQ(log.samples[2].time_ns, 8'500'000);  // gap too long: frame 8's centre
    options.display_time = DisplayTime::first_frame;
    log = build_camera_log(frames, roles, {}, clock, options, stats);
    EXPECT_EQ(log.samples[1].time_ns, 3'500'000);
}
