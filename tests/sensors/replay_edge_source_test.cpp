#include "hashtrace/sensors/edge_source.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace hs = hashtrace::sensors;

TEST(EdgeReplay, ParsesHeaderCommentsAndDefaultsSequence) {
    const auto edges = hs::parse_edge_replay(
        "time_ns,edge\n# recorded on pin 17\n1000000000,rising\n1500000000,falling\n2000000001,rising\n", "t");
    ASSERT_EQ(edges.size(), 3u);
    EXPECT_EQ(edges[0], (hs::Edge{1'000'000'000, hs::EdgeKind::rising, 1}));
    EXPECT_EQ(edges[1], (hs::Edge{1'500'000'000, hs::EdgeKind::falling, 2}));
    EXPECT_EQ(edges[2].sequence, 3u);
}

TEST(EdgeReplay, FormatThenParseRoundTrips) {
    const std::vector<hs::Edge> edges{{5, hs::EdgeKind::rising, 7}, {9, hs::EdgeKind::falling, 9}};
    EXPECT_EQ(hs::parse_edge_replay(hs::format_edge_replay(edges), "t"), edges);
}

TEST(EdgeReplay, RejectsBadLinesNamingFileAndLine) {
    const auto expect_error = [](const char* text, const char* fragment) {
        try {
            hs::parse_edge_replay(text, "edges.txt");
            ADD_FAILURE() << "no error for: " << text;
        } catch (const hs::SensorError& e) {
            EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
        }
    };
    expect_error("time_ns,edge\n12,up\n", "edges.txt:2: edge 'up'");
    expect_error("12x,rising\n", "edges.txt:1: time_ns '12x'");
    expect_error("5,rising\n4,rising\n", "edges.txt:2: time goes backwards");
    expect_error("5\n", "edges.txt:1: expected time_ns,edge");
    expect_error("5,rising,1,2\n", "edges.txt:1: too many fields");
    expect_error("5,rising,-1\n", "edges.txt:1: sequence '-1'");
}

TEST(EdgeReplay, SourceFiltersEdgesAndFinishes) {
    auto source = hs::make_replay_edges(
        {{1, hs::EdgeKind::rising, 1}, {2, hs::EdgeKind::falling, 2}, {3, hs::EdgeKind::rising, 3}},
        hs::EdgeFilter::rising);
    EXPECT_FALSE(source->finished());
    EXPECT_EQ(source->next(std::chrono::seconds(0))->realtime_ns, 1);
    EXPECT_EQ(source->next(std::chrono::seconds(0))->realtime_ns, 3);
    EXPECT_TRUE(source->finished());
    EXPECT_FALSE(source->next(std::chrono::seconds(0)).has_value());

    auto falling_only = hs::make_replay_edges({{1, hs::EdgeKind::rising, 1}}, hs::EdgeFilter::falling);
    EXPECT_TRUE(falling_only->finished());
}

TEST(EdgeReplay, LoadsFromFileAndReportsMissingFile) {
    const auto path = std::filesystem::temp_directory_path() / "hashtrace_edges_test.txt";
    std::ofstream(path) << "time_ns,edge,sequence\n10,rising,4\n";
    EXPECT_EQ(hs::load_edge_replay(path), (std::vector<hs::Edge>{{10, hs::EdgeKind::rising, 4}}));
    std::filesystem::remove(path);
    EXPECT_THROW(hs::load_edge_replay(path), hs::SensorError);
}

TEST(EdgeRecording, WritesWhatPassesThroughAsAReplayableFile) {
    const auto path = std::filesystem::temp_directory_path() / "hashtrace_edges_recorded.txt";
    const std::vector<hs::Edge> edges{{100, hs::EdgeKind::rising, 1}, {200, hs::EdgeKind::falling, 2}, {300, hs::EdgeKind::rising, 3}};
    {
        auto recording = hs::make_recording_edges(hs::make_replay_edges(edges, hs::EdgeFilter::rising), path);
        while (recording->next(std::chrono::seconds(0))) {
        }
        EXPECT_TRUE(recording->finished());
    }
    EXPECT_EQ(hs::load_edge_replay(path), (std::vector<hs::Edge>{edges[0], edges[2]}));
    std::filesystem::remove(path);
    EXPECT_THROW(hs::make_recording_edges(hs::make_replay_edges({}), "/nonexistent-dir/x.txt"), hs::SensorError);
}
