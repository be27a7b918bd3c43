// `analyze --clock-correct edges` where the clocks are known only to within
// more than a link's transit: A and B are placed through R, each from
// messages slow one way and fast the other (so each estimate is some 100 us
// off, in opposite directions), and A sends to B in 5-40 us. The corrected
// times put many of those receives before their sends, inside what the
// bounds allow. The corrected run must link every message the true-clock run
// links, and say how many links it admitted that way.
#include "clock_model.hpp"
#include "hashtrace/clocksync/subprocess.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace hc = hashtrace::clocksync;
namespace fs = std::filesystem;
using namespace clock_model;

namespace {

constexpr const char* kSpec = R"([[pair]]
from = "*/Send"
to = "*/Receive"

[[interval]]
name = "A to B"
from = "A/Send"
to = "B/Receive"

[[interval]]
name = "R to B"
from = "R/Send"
to = "B/Receive"
)";

class CorrectedLinks : public ::testing::Test {
protected:
    void SetUp() override {
        root_ = fs::temp_directory_path() / ("hashtrace_corrected_" + std::to_string(::getpid()));
        fs::remove_all(root_);
        std::ofstream(root_.string() + ".toml") << kSpec;
    }
    void TearDown() override {
        fs::remove_all(root_);
        fs::remove(root_.string() + ".toml");
    }

    // The logs of R (true time), A and B (clocks `a`, `b`) in `dir`: messages
    // every 2 ms each way between R and each of A and B, and from A to B.
    void write_logs(const fs::path& dir, const Clock& a, const Clock& b) {
        fs::create_directories(dir);
        std::ofstream r_log(dir / "R-1.csv"), a_log(dir / "A-1.csv"), b_log(dir / "B-1.csv");
        for (auto* log : {&r_log, &a_log, &b_log}) *log << kCsvHeader;
        const Clock r{};
        int id = 0;
        struct Way {
            const Clock& from_clock;
            std::ofstream& from_log;
            const char* from;
            const Clock& to_clock;
            std::ofstream& to_log;
            const char* to;
            std::int64_t min_transit, max_transit;
        };
        const Way ways[] = {{r, r_log, "R", a, a_log, "A", 5'000, 40'000},   {a, a_log, "A", r, r_log, "R", 200'000, 400'000},
                            {r, r_log, "R", b, b_log, "B", 200'000, 400'000}, {b, b_log, "B", r, r_log, "R", 5'000, 40'000},
                            {a, a_log, "A", b, b_log, "B", 5'000, 40'000}};
        std::uint64_t seed = 11;
        for (const Way& w : ways) {
            ++seed;  // and a start of its own, so that no two ways send at once
            for (const auto& m : messages(w.from_clock, w.to_clock, 2 * kMs, 10 * kSecond, w.min_transit, w.max_transit, seed, seed * 100'000)) {
                w.from_log << w.from << ",1,Send,none,msg," << csv_seconds(m.send_ns) << ",," << csv_hash(id) << "\n";
                w.to_log << w.to << ",1,Receive,msg,none," << csv_seconds(m.receive_ns) << "," << csv_hash(id++) << ",\n";
            }
        }
    }
    nlohmann::json analyze(const fs::path& dir, std::vector<std::string> extra) {
        const auto json = dir / "a.json";
        std::vector<std::string> argv{HASHTRACE_EXE, "analyze", dir.string(), "--spec", root_.string() + ".toml", "--json", json.string(), "--quiet"};
        argv.insert(argv.end(), extra.begin(), extra.end());
        const auto r = hc::run_command(argv, std::chrono::seconds(60));
        EXPECT_EQ(r.exit_code, 0) << r.output;
        std::ifstream in(json);
        return nlohmann::json::parse(in);
    }

    fs::path root_;
};

}  // namespace

TEST_F(CorrectedLinks, EveryLinkOfTheTrueClockRunIsKeptAndTheAdmittedOnesCounted) {
    write_logs(root_ / "true", Clock{}, Clock{});
    write_logs(root_ / "warped", Clock{30.0 * kMs, 150}, Clock{-20.0 * kMs, -80});
    const auto truth = analyze(root_ / "true", {});
    ASSERT_EQ(truth["unlinked_inputs"].get<int>(), 0);
    const auto corrected = analyze(root_ / "warped", {"--clock-correct", "edges", "--reference", "R"});
    EXPECT_EQ(corrected["message_edges"], truth["message_edges"]);
    EXPECT_EQ(corrected["unlinked_inputs"].get<int>(), 0);
    for (const char* name : {"A to B", "R to B"}) {
        const auto count = [&](const nlohmann::json& j) {
            for (const auto& i : j["intervals"])
                if (i["name"] == name) return i["count"].get<std::int64_t>();
            return std::int64_t{-1};
        };
        EXPECT_EQ(count(corrected), count(truth)) << name;
        EXPECT_GT(count(truth), 4000) << name;
    }
    const auto& edges = corrected["clock_edges"];
    const std::int64_t tolerance = edges["link_tolerance_ns"];
    EXPECT_GT(tolerance, 0);
    EXPECT_LT(tolerance, 1'000'000);  // A's and B's bounds: each about the sum of its two ways' shortest transits
    // Some links were admitted inside the bounds, none beyond them.
    EXPECT_GT(edges["links_admitted_within_bounds"].get<int>(), 0) << edges.dump();
    EXPECT_LE(-edges["most_negative_gap_ns"].get<std::int64_t>(), tolerance);
    std::printf("%d of %d message links admitted inside the bounds (tolerance %lld ns, largest gap %lld ns)\n",
                edges["links_admitted_within_bounds"].get<int>(), corrected["message_edges"].get<int>(), static_cast<long long>(tolerance),
                static_cast<long long>(edges["most_negative_gap_ns"].get<std::int64_t>()));
}
