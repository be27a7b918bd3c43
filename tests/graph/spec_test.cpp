#include "hashtrace/graph/spec.hpp"
#include "test_logs.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <unistd.h>

namespace hashtrace::graph {
namespace {

// Expects parse_spec to fail at `line` with a reason containing `reason`.
void expect_spec_error(const std::string& toml, std::uint32_t line, const std::string& reason) {
    try {
        parse_spec(toml, "run.toml");
        FAIL() << "accepted: " << toml;
    } catch (const SpecError& e) {
        EXPECT_EQ(e.file(), "run.toml");
        EXPECT_EQ(e.line(), line) << e.what();
        EXPECT_NE(e.reason().find(reason), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("run.toml:" + std::to_string(line) + ":"), std::string::npos) << e.what();
    }
}

TEST(Spec, ParsesPairsAndIntervalsWithLines) {
    const auto spec = parse_spec(R"(# Case study 2
[[pair]]
from = "Chai/ForceComputed"
to   = "Chai/MessageSent"
scope = "instance"

[[pair]]
from = "Chai/*"
to = "Router/*"

[[interval]]
name = "M4.3 Chai force to send"
from = "Chai/ForceComputed"
to   = "Chai/MessageSent"

[[interval]]
name = "M5.1"
from = "Chai/ForceComputed"
to = "Unity/SceneGraphUpdate"
kind = "end_to_end"
)",
                                 "run.toml");
    ASSERT_EQ(spec.pairs.size(), 2u);
    EXPECT_EQ(spec.pairs[0].from.node, "Chai");
    EXPECT_EQ(spec.pairs[0].from.tracepoint, "ForceComputed");
    EXPECT_EQ(spec.pairs[0].scope, PairScope::instance);
    EXPECT_EQ(spec.pairs[0].line, 2u);
    EXPECT_EQ(spec.pairs[1].scope, PairScope::any);
    ASSERT_EQ(spec.intervals.size(), 2u);
    EXPECT_EQ(spec.intervals[0].kind, IntervalKind::process);
    EXPECT_EQ(spec.intervals[1].kind, IntervalKind::end_to_end);
    EXPECT_EQ(spec.intervals[1].line, 16u);
}

TEST(Spec, EmptySpecAllowsEverything) {
    const auto spec = parse_spec("", "empty.toml");
    EXPECT_TRUE(spec.pairs.empty());
    EXPECT_TRUE(spec.intervals.empty());
}

TEST(Spec, RejectsMistakesWithFileAndLine) {
    expect_spec_error("[[pair]]\nfrom = \"A/x\"\nto = \"B/y\"\nscpoe = \"thread\"\n", 4, "unknown key 'scpoe'");
    expect_spec_error("[[pair]]\nfrom = \"A/x\"\nto = \"B/y\"\nscope = \"process\"\n", 4, "scope 'process'");
    expect_spec_error("[[pair]]\nfrom = \"A/x\"\n", 1, "needs a string 'to'");
    expect_spec_error("\n[[pair]]\nfrom = \"Ax\"\nto = \"B/y\"\n", 3, "must be 'node/tracepoint'");
    expect_spec_error("[[pair]]\nfrom = 3\nto = \"B/y\"\n", 2, "must be a string");
    expect_spec_error("[[interval]]\nname = \"x\"\nfrom = \"A/x\"\nto = \"B/y\"\nkind = \"total\"\n", 5, "kind 'total'");
    expect_spec_error("[[interval]]\nname = \"x\"\nfrom = \"A/x\"\nto = \"B/y\"\n[[interval]]\nname = \"x\"\nfrom = \"A/x\"\nto = \"B/y\"\n", 5,
                      "used twice");
    expect_spec_error("[pair]\nfrom = \"A/x\"\n", 1, "array of tables");
    expect_spec_error("[[pairs]]\nfrom = \"A/x\"\n", 1, "unknown top-level key 'pairs'");
    expect_spec_error("[[pair]]\nfrom = \"A/x\nto = \"B/y\"\n", 2, "");  // TOML syntax: unterminated string
}

TEST(Spec, LoadSpecNamesMissingFile) {
    try {
        load_spec("/nonexistent/run.toml");
        FAIL();
    } catch (const SpecError& e) {
        EXPECT_EQ(e.file(), "/nonexistent/run.toml");
        EXPECT_NE(e.reason().find("cannot open"), std::string::npos);
    }
}

// A directory opened and read as an empty spec: every path but a regular file is refused by name.
TEST(Spec, LoadSpecRefusesWhatIsNotARegularFile) {
    const auto dir = std::filesystem::temp_directory_path() / ("hashtrace-spec-dir-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    for (const auto& [path, reason] : {std::pair<std::string, std::string>{dir.string(), "is a directory, not a spec file"},
                                       {"/dev/null", "is not a regular file, not a spec file"}}) {
        try {
            load_spec(path);
            ADD_FAILURE() << path << " was read as a spec";
        } catch (const SpecError& e) {
            EXPECT_EQ(e.file(), path);
            EXPECT_EQ(e.reason(), reason);
            EXPECT_EQ(std::string(e.what()), path + ": " + reason);
        }
    }
    std::filesystem::remove_all(dir);
}

TEST(Spec, AnEmptySpecSaysWhatItMeans) {
    EXPECT_EQ(empty_spec_warning(parse_spec("# nothing yet\n", "run.toml")),
              "run.toml: the spec has no [[pair]] and no [[interval]]: nothing will be linked by rule (every pair of "
              "tracepoints may link) and no M4/M5 interval is measured, as without --spec");
    EXPECT_EQ(empty_spec_warning(parse_spec("[[pair]]\nfrom = \"A/x\"\nto = \"B/y\"\n", "run.toml")), "");
    EXPECT_EQ(empty_spec_warning(parse_spec("[[interval]]\nname = \"i\"\nfrom = \"A/x\"\nto = \"B/y\"\n", "run.toml")), "");
}

TEST(Spec, Globs) {
    EXPECT_TRUE(glob_match("*", ""));
    EXPECT_TRUE(glob_match("Chai", "Chai"));
    EXPECT_FALSE(glob_match("Chai", "Chai2"));
    EXPECT_TRUE(glob_match("Message*", "MessageSent"));
    EXPECT_TRUE(glob_match("*Sent", "MessageSent"));
    EXPECT_TRUE(glob_match("M*s*t", "MessageSent"));
    EXPECT_FALSE(glob_match("M*x*t", "MessageSent"));
    EXPECT_TRUE(glob_match("a*a*a", "aaaa"));
    EXPECT_FALSE(glob_match("a*a*a", "aa"));
    EXPECT_TRUE(Selector::parse("*/Receive").matches("Unity", "Receive"));
    EXPECT_FALSE(Selector::parse("*/Receive").matches("Unity", "Received"));
    EXPECT_THROW(Selector::parse("a/b/c"), std::invalid_argument);
    EXPECT_THROW(Selector::parse("/b"), std::invalid_argument);
}

TEST(Spec, SelectorsMatchingNoTracepointAreReportedWithLine) {
    testing::CsvLog log;
    log.row("Chai", "1", "ForceComputed", 100.0, "", "m1");
    const auto samples = testing::load({{"chai.csv", log.text()}});
    const auto spec = parse_spec(R"([[pair]]
from = "Chai/ForceComputed"
to = "Chai/MesageSent"

[[interval]]
name = "typo"
from = "Chia/*"
to = "Chai/*"
)",
                                 "run.toml");
    const auto problems = unmatched_selectors(spec, samples);
    ASSERT_EQ(problems.size(), 2u);
    EXPECT_EQ(problems[0].line(), 1u);
    EXPECT_NE(problems[0].reason().find("'Chai/MesageSent' matches no tracepoint"), std::string::npos);
    EXPECT_EQ(problems[1].line(), 5u);
    EXPECT_NE(problems[1].reason().find("'Chia/*'"), std::string::npos);
}

}  // namespace
}  // namespace hashtrace::graph
