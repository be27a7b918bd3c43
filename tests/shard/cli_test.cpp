// End to end: `hashtrace analyze` on binary logs, whole and in time shards
// (forced by --shard-samples, or by a memory budget the run does not fit),
// gives the same JSON; a budget too small for one shard, and a run beyond the
// budget of a command that holds it whole, are clear errors before any work;
// --since/--until read a part of the run.
#include "run_command.hpp"
#include "system.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <map>

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

hashtrace::test::CommandResult run(const std::string& arguments) {
    return hashtrace::test::run_command(std::string(HASHTRACE_BIN) + " " + arguments + " 2>&1");
}

class ShardCli : public ::testing::Test {
protected:
    void SetUp() override { write_system({}); }
    void write_system(const hashtrace::shard::testing::SystemOptions& options) {
        for (const auto& [name, text] : hashtrace::shard::testing::system_logs(options)) {
            std::ofstream(dir / name) << text;
            const std::string binary = (dir / "logs" / fs::path(name).replace_extension(".htlog")).string();
            fs::create_directories(dir / "logs");
            const auto converted = run("convert " + (dir / name).string() + " " + binary);
            ASSERT_EQ(converted.status, 0) << converted.out;
        }
        std::ofstream(dir / "spec.toml") << hashtrace::shard::testing::kSystemSpec;
        logs = (dir / "logs").string() + " --spec " + (dir / "spec.toml").string() + " --quiet";
    }
    json analyze(const std::string& options, const std::string& name) {
        const auto out = dir / (name + ".json");
        const auto result = run("analyze " + logs + " " + options + " --json " + out.string());
        EXPECT_EQ(result.status, 0) << result.out;
        last_output = result.out;
        return json::parse(hashtrace::test::read_file(out));
    }

    hashtrace::test::TempDir dir;
    std::string logs, last_output;
};

void expect_same_statistics(const json& sharded, const json& whole, const std::string& what) {
    EXPECT_EQ(sharded["count"], whole["count"]) << what;
    EXPECT_EQ(sharded["min_ms"], whole["min_ms"]) << what;
    EXPECT_EQ(sharded["max_ms"], whole["max_ms"]) << what;
    EXPECT_NEAR(sharded["mean_ms"].get<double>(), whole["mean_ms"].get<double>(), 1e-9 * std::abs(whole["mean_ms"].get<double>())) << what;
    for (const char* p : {"p50_ms", "p95_ms", "p99_ms"})
        EXPECT_LE(std::abs(sharded[p].get<double>() - whole[p].get<double>()), 0.001 * std::abs(whole[p].get<double>())) << what << " " << p;
}

void expect_same_analysis(const json& sharded, const json& whole) {
    for (const char* key : {"samples", "edges", "message_edges", "local_edges", "unlinked_inputs", "unconsumed_outputs", "window_s",
                            "first_time_ns", "last_time_ns", "files", "nodes", "instances"})
        EXPECT_EQ(sharded[key], whole[key]) << key;
    EXPECT_EQ(sharded["metrics"]["M3"], whole["metrics"]["M3"]);
    EXPECT_EQ(sharded["metrics"]["M8"], whole["metrics"]["M8"]);
    EXPECT_EQ(sharded["metrics"]["M12"], whole["metrics"]["M12"]);
    expect_same_statistics(sharded["metrics"]["M11"], whole["metrics"]["M11"], "M11");
    ASSERT_EQ(sharded["intervals"].size(), whole["intervals"].size());
    for (std::size_t i = 0; i < whole["intervals"].size(); ++i)
        expect_same_statistics(sharded["intervals"][i], whole["intervals"][i], whole["intervals"][i]["name"]);
    ASSERT_EQ(sharded["node_latency_matrix"].size(), whole["node_latency_matrix"].size());
    for (std::size_t i = 0; i < whole["node_latency_matrix"].size(); ++i) {
        EXPECT_EQ(sharded["node_latency_matrix"][i]["count"], whole["node_latency_matrix"][i]["count"]);
        EXPECT_EQ(sharded["node_latency_matrix"][i]["max_ms"], whole["node_latency_matrix"][i]["max_ms"]);
    }
}

TEST_F(ShardCli, ForcedShardsGiveTheWholeRunsTables) {
    const json whole = analyze("", "whole");
    EXPECT_FALSE(whole.contains("sharding"));
    const json sharded = analyze("--shard-samples 7000 --margin-ms 100", "sharded");
    ASSERT_TRUE(sharded.contains("sharding")) << sharded.dump();
    EXPECT_GE(sharded["sharding"]["shards"].get<int>(), 6);
    EXPECT_EQ(sharded["sharding"]["margin_ms"], 100.0);
    EXPECT_EQ(sharded["sharding"]["inputs_beyond_margin"], 0);
    EXPECT_LE(sharded["sharding"]["percentile_relative_error"].get<double>(), 0.001);
    EXPECT_NE(last_output.find("analysed in"), std::string::npos) << last_output;
    expect_same_analysis(sharded, whole);
}

// Two threads and a budget that holds two shards' windows: the shards after
// the first are summarised two at once, one thread each. The result is the
// one of shards in turn to the last digit (the jitter's differences across
// shard boundaries too: the shards are appended in time order), and so is
// that of a budget that holds one window but not two.
TEST_F(ShardCli, ShardsAtOnceGiveWhatShardsInTurnGive) {
    const std::string sharding = "--shard-samples 7000 --margin-ms 100";
    const json in_turn = analyze(sharding + " --threads 1", "in-turn");
    const json at_once = analyze(sharding + " --threads 2", "at-once");
    EXPECT_GE(at_once["sharding"]["shards"].get<int>(), 6);
    EXPECT_EQ(at_once.dump(), in_turn.dump());
    const json one_at_a_time = analyze(sharding + " --threads 2 --memory-budget 1M", "one-at-a-time");
    EXPECT_EQ(one_at_a_time.dump(), in_turn.dump());
    expect_same_analysis(at_once, analyze("", "whole"));
}

// A link of 2.04 s, past the probe's margin (twice the default), within
// its window (the first shard's first eighth, ~1.2 s, and that margin; no
// message id reused within it): the probe is summarised again with the
// wider margin, beside the shards after it when two go at once.
TEST_F(ShardCli, AProbeSummarisedAgainBesideTheOtherShardsGivesWhatInTurnGives) {
    write_system({.ticks = 48000, .long_links = 3, .long_link_s = 2.04, .message_ids = 12000});
    const json in_turn = analyze("--shard-samples 96000 --threads 1", "in-turn");
    const json at_once = analyze("--shard-samples 96000 --threads 2", "at-once");
    EXPECT_NE(last_output.find("the margin was widened to 40"), std::string::npos) << last_output;  // twice the ~2.04 s seen
    EXPECT_EQ(at_once.dump(), in_turn.dump());
    EXPECT_EQ(at_once["sharding"]["inputs_beyond_margin"], 0);
    expect_same_analysis(at_once, analyze("", "whole"));
}

// Links of 0.7 s: the first shard sees them under the default margin (1 s),
// which widens to 1.4 s for the shards after it; the first, exact under the
// margin it had, is not summarised again, and the whole stays exact.
TEST_F(ShardCli, TheDefaultMarginWidensFromWhatTheFirstShardSaw) {
    write_system({.long_links = 3, .long_link_s = 0.7});
    const json whole = analyze("", "whole");
    const json sharded = analyze("--shard-samples 7000", "sharded");
    EXPECT_NE(last_output.find("the margin was widened to 14"), std::string::npos) << last_output;  // twice the ~0.70 s seen
    EXPECT_EQ(sharded["sharding"]["margin_held"], true);
    // The default margin is checked on a probe, an eighth of the first shard: one shard more than a margin given.
    const json given = analyze("--shard-samples 7000 --margin-ms 1400", "given");
    EXPECT_EQ(sharded["sharding"]["shards"].get<int>(), given["sharding"]["shards"].get<int>() + 1);
    expect_same_analysis(given, whole);
    EXPECT_EQ(sharded["sharding"]["inputs_beyond_margin"], 0);
    expect_same_analysis(sharded, whole);
}

// The probe reads twice the default margin; the shards after it, the
// default when the probe saw nothing longer than half of it. Links of 1.5 s
// in the third shard are longer than that margin, and the margin is
// reported as not held: the margin the report holds them to is the
// shards', not the probe's.
TEST_F(ShardCli, LinksLongerThanTheShardsMarginAreReportedWhateverTheProbeRead) {
    write_system({.ticks = 48000, .long_links = 3, .first_long_link = 36, .long_link_s = 1.5, .message_ids = 12000});
    const json sharded = analyze("--shard-samples 96000", "sharded");
    EXPECT_EQ(sharded["sharding"]["margin_ms"], 1000.0) << last_output;
    EXPECT_EQ(sharded["sharding"]["margin_held"], false) << last_output;
}

TEST_F(ShardCli, ARunBeyondTheBudgetIsShardedAndSaysWhy) {
    const json whole = analyze("", "whole");
    const json sharded = analyze("--memory-budget 2M --margin-ms 100", "budget");
    ASSERT_TRUE(sharded.contains("sharding"));
    EXPECT_GE(sharded["sharding"]["shards"].get<int>(), 2);
    EXPECT_NE(last_output.find("memory budget of 2 MiB"), std::string::npos) << last_output;
    expect_same_analysis(sharded, whole);
}

json report_data(const fs::path& page) {
    const std::string text = hashtrace::test::read_file(page), open = "id=\"report-data\">";
    const auto begin = text.find(open) + open.size();
    return json::parse(text.substr(begin, text.find("</script>", begin) - begin));
}

std::uint64_t total(const json& counts) {
    std::uint64_t n = 0;
    for (const auto& c : counts) n += c.get<std::uint64_t>();
    return n;
}

// The report of a sharded run: tables, health, histograms and latency over
// time of the whole run (from the merged summaries), the samples of one
// window (the first shard, or the one asked for), and a page that says so.
TEST_F(ShardCli, TheHtmlReportOfAShardedRunCoversTheWholeRun) {
    ASSERT_EQ(run("analyze " + logs + " --html " + (dir / "whole.html").string()).status, 0);
    const auto sharded = run("analyze " + logs + " --shard-samples 7000 --margin-ms 100 --html " + (dir / "sharded.html").string());
    ASSERT_EQ(sharded.status, 0) << sharded.out;
    const json whole = report_data(dir / "whole.html"), d = report_data(dir / "sharded.html");
    EXPECT_TRUE(whole["samples_window"].is_null());
    ASSERT_TRUE(d["samples_window"].is_array());
    EXPECT_EQ(d["samples_window"][0], 0.0);  // the first shard
    EXPECT_LT(d["samples_window"][1].get<double>(), 0.5 * d["window_s"].get<double>());
    EXPECT_NEAR(d["window_s"].get<double>(), whole["window_s"].get<double>(), 1e-9);
    EXPECT_EQ(d["health"]["samples"], whole["health"]["samples"]);
    EXPECT_EQ(d["health"]["unlinked_inputs"], whole["health"]["unlinked_inputs"]);
    ASSERT_EQ(d["health"]["nodes"].size(), whole["health"]["nodes"].size());
    for (std::size_t n = 0; n < whole["health"]["nodes"].size(); ++n)
        for (const char* key : {"node", "instance", "samples", "unlinked_inputs", "dropped"})
            EXPECT_EQ(d["health"]["nodes"][n][key], whole["health"]["nodes"][n][key]) << key;
    const json &rows = d["runs"][0]["metrics"], &whole_rows = whole["runs"][0]["metrics"];
    ASSERT_EQ(rows.size(), whole_rows.size());
    for (std::size_t r = 0; r < rows.size(); ++r) {  // exact, but for a percentile: within the stated error
        const auto name = whole_rows[r]["name"].get<std::string>();
        if (name.find("p99") == std::string::npos) EXPECT_EQ(rows[r], whole_rows[r]) << name;
        else EXPECT_NEAR(rows[r]["value"].get<double>(), whole_rows[r]["value"].get<double>(), 0.001 * whole_rows[r]["value"].get<double>());
    }
    ASSERT_EQ(d["intervals"].size(), whole["intervals"].size());
    for (std::size_t i = 0; i < whole["intervals"].size(); ++i) {
        const json &a = d["intervals"][i], &b = whole["intervals"][i];
        const auto count = b["summary"]["count"].get<std::uint64_t>();
        EXPECT_EQ(a["summary"]["count"], count);
        EXPECT_EQ(total(a["histogram"]["counts"]) + a["histogram"]["overflow"].get<std::uint64_t>(), count);
        EXPECT_EQ(a["histogram"]["counts"].size(), b["histogram"]["counts"].size());
        EXPECT_EQ(a["histogram"]["lo_ms"], b["histogram"]["lo_ms"]);
        std::uint64_t binned = 0;
        for (const auto& bin : a["over_time"]["bins"]) binned += bin["count"].get<std::uint64_t>();
        EXPECT_EQ(binned, count);
        EXPECT_EQ(a["over_time"]["bins"].size(), b["over_time"]["bins"].size());
        // The dots are the window's: none after it.
        for (const auto& point : a["over_time"]["points"]) EXPECT_LE(point[0].get<double>(), d["samples_window"][1].get<double>());
    }
    EXPECT_NE(hashtrace::test::read_file(dir / "sharded.html").find("Analysed in time shards"), std::string::npos);

    // A window asked for is the one drawn; one the budget cannot hold is refused.
    const auto asked = run("analyze " + logs + " --shard-samples 7000 --margin-ms 100 --html " + (dir / "asked.html").string() +
                           " --html-window 1:1.5");
    ASSERT_EQ(asked.status, 0) << asked.out;
    EXPECT_EQ(report_data(dir / "asked.html")["samples_window"], json::parse("[1.0, 1.5]"));
    const auto too_long = run("analyze " + logs + " --memory-budget 2M --margin-ms 100 --html " + (dir / "x.html").string() +
                              " --html-window 0:1000");
    EXPECT_NE(too_long.status, 0);
    EXPECT_NE(too_long.out.find("ask for a shorter window"), std::string::npos) << too_long.out;
}

json critical_paths(const fs::path& file) { return json::parse(hashtrace::test::read_file(file))["critical_path"]; }

// critical-path in time shards against the whole run: every count, mean,
// on-path fraction and share; the percentiles within the histograms' error,
// the slack medians within 1 % (small shards here: a shard takes each
// segment class's floor from its window); a segment's contribution in the
// p50/p95/p99 instance is that of an instance of the same latency bucket,
// so the contributions add up to the percentile within the error.
TEST_F(ShardCli, CriticalPathsInShardsAreTheWholeRunsTables) {
    const auto whole_run = run("critical-path " + logs + " --json " + (dir / "whole.json").string());
    ASSERT_EQ(whole_run.status, 0) << whole_run.out;
    const auto sharded = run("critical-path " + logs + " --shard-samples 7000 --margin-ms 100 --json " + (dir / "sharded.json").string());
    ASSERT_EQ(sharded.status, 0) << sharded.out;
    EXPECT_NE(sharded.out.find("time shards"), std::string::npos) << sharded.out;
    const json whole = critical_paths(dir / "whole.json"), parts = critical_paths(dir / "sharded.json");
    ASSERT_EQ(parts.size(), whole.size());
    const auto close = [](const json& a, const json& b, double relative, double absolute = 1e-9) {
        return std::abs(a.get<double>() - b.get<double>()) <= relative * std::abs(b.get<double>()) + absolute;
    };
    for (std::size_t i = 0; i < whole.size(); ++i) {
        const json &a = parts[i], &b = whole[i];
        SCOPED_TRACE(b["interval"].get<std::string>());
        for (const char* key : {"interval", "count", "unreached_starts", "not_followed"}) EXPECT_EQ(a[key], b[key]) << key;
        EXPECT_GT(b["count"].get<int>(), 1000);
        EXPECT_TRUE(close(a["mean_ms"], b["mean_ms"], 1e-9));
        for (const char* p : {"p50_ms", "p95_ms", "p99_ms"}) EXPECT_TRUE(close(a[p], b[p], 0.001)) << p;
        ASSERT_EQ(a["segments"].size(), b["segments"].size());
        std::map<std::string, const json*> by_name;
        for (const auto& seg : a["segments"]) by_name[seg["from"].get<std::string>() + seg["to"].get<std::string>() + seg["kind"].get<std::string>()] = &seg;
        double at_rank[3] = {0, 0, 0};
        for (const auto& want : b["segments"]) {
            const json& got = *by_name.at(want["from"].get<std::string>() + want["to"].get<std::string>() + want["kind"].get<std::string>());
            for (const char* key : {"on_path_fraction", "mean_ms", "share"}) EXPECT_TRUE(close(got[key], want[key], 1e-9)) << key;
            // A shard knows each segment class's floor (its shortest duration) from its window, not the run's.
            EXPECT_TRUE(close(got["slack_ms"], want["slack_ms"], 0.01, 1e-6)) << got["slack_ms"] << " " << want["slack_ms"];
            for (int r = 0; r < 3; ++r) at_rank[r] += got[r == 0 ? "p50_ms" : r == 1 ? "p95_ms" : "p99_ms"].get<double>();
        }
        if (b["not_followed"] == 0) {
            for (int r = 0; r < 3; ++r) EXPECT_TRUE(close(json(at_rank[r]), b[r == 0 ? "p50_ms" : r == 1 ? "p95_ms" : "p99_ms"], 0.001, 1e-6)) << r;
        }
    }
}

// Damage in a log: sharded, the same error as whole (the file and the
// block's offset, before any shard); --lenient skips the block in both, and
// both count the same records lost with it.
TEST_F(ShardCli, ADamagedBlockIsTheWholeRunsErrorAndLenientCountsAlike) {
    const fs::path log = dir / "logs" / "source.htlog";
    std::string bytes = hashtrace::test::read_file(log);
    const auto block = bytes.find("HTBK");
    ASSERT_NE(block, std::string::npos);
    bytes[block + 100] = static_cast<char>(bytes[block + 100] ^ 0x5a);  // inside the block: its checksum fails
    std::ofstream(log, std::ios::binary | std::ios::trunc) << bytes;
    const std::string sharding = " --shard-samples 7000 --margin-ms 100";
    const auto whole = run("analyze " + logs), sharded = run("analyze " + logs + sharding);
    EXPECT_NE(whole.status, 0);
    EXPECT_NE(sharded.status, 0);
    const auto error_line = [](const std::string& out) { return out.substr(0, out.find('\n')); };
    EXPECT_NE(error_line(sharded.out).find("source.htlog"), std::string::npos) << sharded.out;
    EXPECT_NE(error_line(sharded.out).find(std::to_string(block)), std::string::npos) << sharded.out;
    EXPECT_EQ(error_line(sharded.out), error_line(whole.out));
    const json lenient_whole = analyze("--lenient", "lenient-whole"), lenient_sharded = analyze("--lenient" + sharding, "lenient-sharded");
    EXPECT_GT(lenient_whole["bad_records"].get<std::uint64_t>(), 0u);
    EXPECT_EQ(lenient_sharded["bad_records"], lenient_whole["bad_records"]);
    EXPECT_EQ(lenient_sharded["samples"], lenient_whole["samples"]);
    EXPECT_EQ(lenient_sharded["edges"], lenient_whole["edges"]);
}

// A log cut in the middle of a block (a crash): whole and sharded read the
// same samples and both say the log is torn. (The sink's: cutting a
// producer's log leaves its consumers to link, in the whole run, to
// producers of reused ids seconds old, links longer than any shard sees:
// docs/sharding.md.)
TEST_F(ShardCli, ATornLogIsReadAndReportedAlikeWholeAndSharded) {
    const fs::path log = dir / "logs" / "sink.htlog";
    const std::string bytes = hashtrace::test::read_file(log);
    std::ofstream(log, std::ios::binary | std::ios::trunc) << bytes.substr(0, bytes.size() * 2 / 3);
    const json whole = analyze("", "torn-whole"), sharded = analyze("--shard-samples 7000 --margin-ms 100", "torn-sharded");
    EXPECT_EQ(whole["torn_files"], 1);
    EXPECT_EQ(sharded["torn_files"], whole["torn_files"]);
    expect_same_analysis(sharded, whole);
}

TEST_F(ShardCli, ABudgetTooSmallForOneShardAndItsMarginIsRefusedWithTheBudgetThatWould) {
    const auto result = run("analyze " + logs + " --memory-budget 1M");
    EXPECT_NE(result.status, 0);
    EXPECT_NE(result.out.find("cannot hold one shard and its margins"), std::string::npos) << result.out;
    EXPECT_NE(result.out.find("give at least"), std::string::npos) << result.out;
}

TEST_F(ShardCli, OptionsThatNeedTheWholeRunAreRefusedWhenSharding) {
    const auto result = run("analyze " + logs + " --shard-samples 7000 --margin-ms 100 --keep-all");
    EXPECT_NE(result.status, 0);
    EXPECT_NE(result.out.find("--keep-all needs the whole run"), std::string::npos) << result.out;
}

TEST_F(ShardCli, ACommandThatHoldsTheRunWholeRefusesARunBeyondItsBudgetAndTakesARange) {
    const std::string trace = " --chrome " + (dir / "trace.json").string();
    const auto refused = run("export " + logs + trace + " --memory-budget 2M");
    EXPECT_NE(refused.status, 0);
    EXPECT_NE(refused.out.find("--since/--until"), std::string::npos) << refused.out;
    const auto ranged = run("export " + logs + trace + " --memory-budget 2M --since 1 --until 2");
    EXPECT_EQ(ranged.status, 0) << ranged.out;
    const json part = analyze("--since 1 --until 2", "part");
    const json whole = analyze("", "whole");
    EXPECT_GT(part["samples"].get<int>(), 1000);
    EXPECT_LT(part["samples"].get<int>(), whole["samples"].get<int>() / 2);
    EXPECT_GE(part["first_time_ns"].get<std::int64_t>(), whole["first_time_ns"].get<std::int64_t>() + 1'000'000'000);
    EXPECT_LT(part["last_time_ns"].get<std::int64_t>(), whole["first_time_ns"].get<std::int64_t>() + 2'000'000'000);
    const auto backwards = run("analyze " + logs + " --since 2 --until 1");
    EXPECT_NE(backwards.status, 0);
    EXPECT_NE(backwards.out.find("--since must come before --until"), std::string::npos) << backwards.out;
}

TEST_F(ShardCli, BadSizesAndMarginsAreUsageErrors) {
    for (const char* bad : {"--memory-budget 12Q", "--memory-budget -5", "--memory-budget G", "--margin-ms -1", "--shard-samples -3"}) {
        const auto result = run("analyze " + logs + " " + bad);
        EXPECT_NE(result.status, 0) << bad;
        const std::string option = std::string(bad).substr(0, std::string(bad).find(' '));
        EXPECT_NE(result.out.find(option), std::string::npos) << bad << ": " << result.out;
        EXPECT_NE(result.out.find("see hashtrace analyze --help"), std::string::npos) << bad << ": " << result.out;
    }
}

TEST_F(ShardCli, ThePlanSummariesAndMergeGiveWhatAnalyzeGives) {
    const json whole = analyze("", "whole");
    const std::string plan = (dir / "plan.json").string();
    auto result = run("shard plan " + (dir / "logs").string() + " --shard-samples 10000 --margin-ms 100 -o " + plan);
    ASSERT_EQ(result.status, 0) << result.out;
    const json p = json::parse(hashtrace::test::read_file(plan));
    ASSERT_GE(p["shards"].size(), 4u);
    std::string summaries;
    // Each shard from slices of the logs, cut to its window, as a worker holding them would.
    for (std::size_t k = 0; k < p["shards"].size(); ++k) {
        const json& s = p["shards"][k];
        std::string slices;
        for (std::size_t log : s["logs"].get<std::vector<std::size_t>>()) {
            const std::string slice = (dir / ("slice-" + std::to_string(k) + "-" + std::to_string(log) + ".htlog")).string();
            result = run("shard slice " + p["logs"][log]["path"].get<std::string>() + " --from-ns " + std::to_string(s["read_from_ns"].get<std::int64_t>()) +
                         " --to-ns " + std::to_string(s["read_to_ns"].get<std::int64_t>()) + " -o " + slice);
            ASSERT_EQ(result.status, 0) << result.out;
            slices += " " + slice;
        }
        const std::string summary = (dir / (std::to_string(k) + ".json")).string();
        result = run("shard summarize" + slices + " --plan " + plan + " --shard " + std::to_string(k) + " --spec " + (dir / "spec.toml").string() +
                     " -o " + summary);
        ASSERT_EQ(result.status, 0) << result.out;
        summaries = " " + summary + summaries;  // in reverse: the merge puts them in order
    }
    const std::string merged = (dir / "merged.json").string();
    result = run("shard merge" + summaries + " --plan " + plan + " --json " + merged);
    ASSERT_EQ(result.status, 0) << result.out;
    expect_same_analysis(json::parse(hashtrace::test::read_file(merged)), whole);
    // Merged in a tree (two halves, then the halves), the same.
    const auto k = p["shards"].size();
    std::string low, high;
    for (std::size_t i = 0; i < k; ++i) (i < k / 2 ? low : high) += " " + (dir / (std::to_string(i) + ".json")).string();
    ASSERT_EQ(run("shard merge" + low + " -o " + (dir / "low.json").string()).status, 0);
    ASSERT_EQ(run("shard merge" + high + " -o " + (dir / "high.json").string()).status, 0);
    const std::string tree = (dir / "tree.json").string();
    result = run("shard merge " + (dir / "high.json").string() + " " + (dir / "low.json").string() + " --plan " + plan + " --json " + tree);
    ASSERT_EQ(result.status, 0) << result.out;
    EXPECT_EQ(hashtrace::test::read_file(tree), hashtrace::test::read_file(merged));
    // A shard given twice, one missing inside, one missing at an end: refused.
    const std::string s0 = (dir / "0.json").string(), s1 = (dir / "1.json").string(), s2 = (dir / "2.json").string();
    result = run("shard merge " + s0 + " " + s0 + " --plan " + plan);
    EXPECT_NE(result.status, 0);
    EXPECT_NE(result.out.find("overlap"), std::string::npos) << result.out;
    result = run("shard merge " + s0 + " " + s2 + " --plan " + plan);
    EXPECT_NE(result.status, 0);
    EXPECT_NE(result.out.find("a shard missing"), std::string::npos) << result.out;
    result = run("shard merge " + s0 + " " + s1 + " --plan " + plan);
    EXPECT_NE(result.status, 0);
    EXPECT_NE(result.out.find("not the plan's"), std::string::npos) << result.out;
}

}  // namespace
