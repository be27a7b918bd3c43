// The loading stage: many files, both formats, bad input.
#include "hashtrace/graph/load.hpp"
#include "hashtrace/logio/reader.hpp"
#include "hashtrace/logio/writer.hpp"
#include "test_logs.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace hashtrace::graph {
namespace {

using testing::CsvLog;
using testing::load;

namespace fs = std::filesystem;

struct TempDir {
    fs::path path = fs::temp_directory_path() / ("hashtrace-graph-load-" + std::to_string(::getpid()) + "-" +
                                                 ::testing::UnitTest::GetInstance()->current_test_info()->name());
    TempDir() { fs::create_directories(path); }
    ~TempDir() { fs::remove_all(path); }
};

TEST(Load, InternsHashesAcrossFilesAndKeepsTimeOrder) {
    CsvLog a, b;
    a.row("A", "1", "Send", 100.002, "", "m1");
    a.row("A", "1", "Send", 100.004, "", "m2");
    b.row("B", "2", "Recv", 100.001, "m0", "");
    b.row("B", "2", "Recv", 100.003, "m1", "m2");
    const auto s = load({{"a.csv", a.text()}, {"b.csv", b.text()}});
    ASSERT_EQ(s.size(), 4u);
    EXPECT_TRUE(std::is_sorted(s.time_ns.begin(), s.time_ns.end()));
    EXPECT_EQ(s.hash_count, 3u);  // m0, m1, m2
    EXPECT_EQ(s.output[testing::find(s, "A", "Send", 100.002)], s.input[testing::find(s, "B", "Recv", 100.003)]);
    EXPECT_EQ(s.output[testing::find(s, "A", "Send", 100.004)], s.output[testing::find(s, "B", "Recv", 100.003)]);
    EXPECT_EQ(s.input[testing::find(s, "A", "Send", 100.002)], kNoHash);
    ASSERT_EQ(s.files.size(), 2u);
    EXPECT_EQ(s.files[0].path, "a.csv");
    EXPECT_EQ(s.files[0].sample_count, 2u);
    EXPECT_EQ(s.file_of(static_cast<SampleIndex>(testing::find(s, "B", "Recv", 100.001))), 1u);
    EXPECT_EQ(s.node_names.size(), 2u);
    EXPECT_EQ(s.instances.size(), 2u);
    Hash128 m1;
    ASSERT_TRUE(from_hex(testing::label_hash("m1"), m1));
    EXPECT_EQ(s.hash_values[s.input[testing::find(s, "B", "Recv", 100.003)]], m1);
}

// 100 samples in falling time order are 100 sorted runs (the radix path);
// pairs at equal times keep file order (stable). Three interleaved sorted
// files take the merge path.
TEST(Load, TimeOrderIsRestoredStably) {
    CsvLog falling;
    for (int i = 99; i >= 0; --i) falling.row("A", "1", i % 2 ? "Odd" : "Even", 100 + (i / 2) * 0.001, "", "x" + std::to_string(i));
    const auto s = load({{"falling.csv", falling.text()}});
    ASSERT_EQ(s.size(), 100u);
    for (SampleIndex i = 0; i + 1 < s.size(); i += 2) {
        EXPECT_EQ(s.time_ns[i], s.time_ns[i + 1]);
        EXPECT_EQ(s.tracepoint_of(i).tracepoint_name, "Odd") << "file order kept for equal times at " << i;
    }
    EXPECT_TRUE(std::is_sorted(s.time_ns.begin(), s.time_ns.end()));

    CsvLog a, b, c;
    for (int i = 0; i < 30; ++i) (i % 3 == 0 ? a : i % 3 == 1 ? b : c).row("N", std::to_string(i % 3), "T", 100 + i * 0.001, "", "");
    const auto merged = load({{"a.csv", a.text()}, {"b.csv", b.text()}, {"c.csv", c.text()}});
    for (SampleIndex i = 0; i < merged.size(); ++i) EXPECT_EQ(merged.time_ns[i], 100'000'000'000LL + i * 1'000'000LL);
}

TEST(Load, SameInstanceInTwoFilesSharesSources) {
    CsvLog a, b;
    a.row("A", "1", "Send", 100.000, "", "m1");
    b.row("A", "1", "Send", 100.001, "", "m2");
    const auto s = load({{"part1.csv", a.text()}, {"part2.csv", b.text()}});
    EXPECT_EQ(s.source_count, 1u);
    EXPECT_EQ(s.instances.size(), 1u);
    EXPECT_NE(s.tracepoint[0], s.tracepoint[1]) << "tracepoints stay per file (a sample's file is its tracepoint's)";
}

// Which worker parses which file is a race; the ids of nodes, instances and
// tracepoints must not be (analysis results are listed in their order).
TEST(Load, IdsFollowFileOrderWhicheverWorkerParsedTheFile) {
    std::vector<std::pair<std::string, std::string>> logs;
    for (int f = 0; f < 8; ++f) {
        CsvLog log;
        for (int i = 0; i < 50 * (8 - f); ++i) log.row("N" + std::to_string(f), "1", "T", 100 + i * 0.001, "", "");
        logs.emplace_back("n" + std::to_string(f) + ".csv", log.text());
    }
    for (unsigned threads : {2u, 4u, 8u})
        for (int run = 0; run < 20; ++run) {
            LoadOptions options;
            options.threads = threads;
            const auto s = load_samples_from_memory(logs, options);
            ASSERT_EQ(s.instances.size(), 8u);
            for (std::uint32_t f = 0; f < 8; ++f) {
                ASSERT_EQ(s.node_names[f], "N" + std::to_string(f)) << threads << " threads, run " << run;
                ASSERT_EQ(s.instances[f].node_name, "N" + std::to_string(f)) << threads << " threads, run " << run;
                ASSERT_EQ(s.tracepoints[f].file, f) << threads << " threads, run " << run;
            }
        }
}

TEST(Load, MalformedLineNamesFileAndLine) {
    CsvLog a;
    a.row("A", "1", "Send", 100.000, "", "m1");
    a.raw("A,1,Send,id,id,not-a-time,,,0");
    a.row("A", "1", "Send", 100.002, "", "m2");
    try {
        load({{"a.csv", a.text()}});
        FAIL();
    } catch (const logio::LogError& e) {
        EXPECT_EQ(e.file(), "a.csv");
        EXPECT_EQ(e.line(), 3u);
    }
    const auto s = load({{"a.csv", a.text()}}, /*lenient=*/true);
    EXPECT_EQ(s.size(), 2u);
    EXPECT_EQ(s.files[0].report.bad_records, 1u);
}

TEST(Load, UnknownRequiredColumnIsAnError) {
    const std::string text =
        "node_name,instance,tracepoint_name,input_hash_type,output_hash_type,sample_tme,input_hash,output_hash\n"
        "A,1,Send,id,id,100.0,," + testing::label_hash("m1") + "\n";
    try {
        load({{"bad.csv", text}});
        FAIL();
    } catch (const logio::LogError& e) {
        EXPECT_EQ(e.file(), "bad.csv");
        EXPECT_EQ(e.line(), 1u);
        EXPECT_NE(e.reason().find("sample_time"), std::string::npos) << e.what();
    }
}

TEST(Load, FirstBadFileInInputOrderIsReported) {
    CsvLog good;
    good.row("A", "1", "Send", 100.0, "", "m1");
    try {
        load({{"good.csv", good.text()}, {"bad1.csv", "garbage\n"}, {"bad2.csv", ""}});
        FAIL();
    } catch (const logio::LogError& e) {
        EXPECT_EQ(e.file(), "bad1.csv");
    }
    // Workers take the largest files first; the report still follows input order.
    for (unsigned threads : {1u, 2u, 3u}) {
        LoadOptions options;
        options.threads = threads;
        try {
            load_samples_from_memory({{"good.csv", good.text()}, {"bad1.csv", "x\n"}, {"bad2.csv", std::string(100000, 'y') + "\n"}}, options);
            FAIL();
        } catch (const logio::LogError& e) {
            EXPECT_EQ(e.file(), "bad1.csv") << threads << " threads";
        }
    }
}

// A binary log cut short (a crash mid-write) loses only its torn tail.
TEST(Load, TruncatedBinaryLogKeepsCompleteRecords) {
    TempDir dir;
    const auto path = dir.path / "a.htlog";
    {
        auto writer = logio::open_writer(path, LogFormat::binary, {{"node", "A"}, {"instance", "1"}});
        const auto tp = writer->add_tracepoint({"A", "1", "Send", "id", "id", HashFunction::md5});
        for (int i = 0; i < 1000; ++i) {
            logio::SampleRecord r;
            r.time_ns = 100'000'000'000 + i;
            r.tracepoint = tp;
            r.output_hash.bytes[0] = static_cast<std::uint8_t>(i);
            r.output_hash.bytes[1] = static_cast<std::uint8_t>(i >> 8);
            r.flags = logio::SampleRecord::kHasOutput;
            writer->write(r);
        }
        writer->close();
    }
    const auto full = load_samples({path});
    EXPECT_EQ(full.size(), 1000u);
    fs::resize_file(path, fs::file_size(path) - 7);
    const auto cut = load_samples({path});
    EXPECT_LT(cut.size(), 1000u);
    EXPECT_TRUE(cut.files[0].report.torn);
    // Cutting into the file header leaves nothing to read: a clear error.
    fs::resize_file(path, 5);
    EXPECT_THROW(load_samples({path}), logio::LogError);
}

TEST(Load, MixedFormatsFromDisk) {
    TempDir dir;
    CsvLog a;
    a.row("A", "1", "Send", 100.000, "", "m1");
    std::ofstream(dir.path / "a.csv") << a.text();
    {
        auto writer = logio::open_writer(dir.path / "b.htlog", LogFormat::binary, {{"node", "B"}, {"instance", "2"}});
        const auto tp = writer->add_tracepoint({"B", "2", "Recv", "id", "id", HashFunction::md5});
        logio::SampleRecord r;
        r.time_ns = 100'001'000'000;
        r.tracepoint = tp;
        from_hex(testing::label_hash("m1"), r.input_hash);
        r.flags = logio::SampleRecord::kHasInput;
        writer->write(r);
    }
    const auto s = load_samples(logio::find_logs({dir.path}));
    ASSERT_EQ(s.size(), 2u);
    EXPECT_EQ(s.output[0], s.input[1]);
}

// analyze frees the hash ids once linked (32 MB of a 4M-sample run): their
// buffers must really go, not only their elements, and nothing else with them.
TEST(Load, DroppedHashIdsGiveBackTheirBuffers) {
    SampleSet s;
    constexpr std::size_t n = 1 << 20;  // 4 MiB a column: pooled pages
    s.time_ns.assign(n, 7);
    s.input.assign(n, 1);
    s.output.assign(n, 2);
    s.tracepoint.assign(n, 0);
    s.thread.assign(n, kNoThread);
    s.drop_hash_ids();
    EXPECT_EQ(s.input.capacity(), 0u);
    EXPECT_EQ(s.output.capacity(), 0u);
    ASSERT_EQ(s.size(), n);
    EXPECT_EQ(s.time_ns[n - 1], 7);
    EXPECT_EQ(s.thread[n - 1], kNoThread);
}

}  // namespace
}  // namespace hashtrace::graph
