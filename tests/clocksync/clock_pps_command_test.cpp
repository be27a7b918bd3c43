// `hashtrace clock pps` end to end: the command line, the record file, and
// the replay round trip (record edges, then measure them again).
#include "hashtrace/clocksync/clock_record.hpp"
#include "hashtrace/clocksync/subprocess.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

namespace hc = hashtrace::clocksync;
namespace fs = std::filesystem;

namespace {
class ClockPpsCommand : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() / ("hashtrace_pps_cmd_" + std::to_string(::getpid()));
        fs::remove_all(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }
    hc::CommandResult hashtrace(std::vector<std::string> args) {
        args.insert(args.begin(), HASHTRACE_EXE);
        return hc::run_command(args, std::chrono::seconds(60));
    }
    fs::path dir_;
};
}  // namespace

TEST_F(ClockPpsCommand, SimulatedDisciplineLocksAndRecordsEveryEdge) {
    const auto run = hashtrace({"clock", "pps", "--simulate", "--discipline", "--edges", "200", "--log-dir", dir_.string(),
                                "--host", "sim", "--record-edges", (dir_ / "edges.txt").string()});
    ASSERT_EQ(run.exit_code, 0) << run.output;
    const auto records = hc::load_clock_records(dir_ / "clock-sim.htclock");
    ASSERT_EQ(records.size(), 200u);
    EXPECT_EQ(records.front().state, "ACQUIRING");
    EXPECT_EQ(records.back().state, "LOCKED");
    EXPECT_NE(run.output.find("200 edges, 0 glitches, 0 steps, 0 timeouts"), std::string::npos) << run.output;

    // The recorded edges measure again, offline, to the same fitted phases
    // while the servo was still only acquiring (it had not acted yet).
    const auto replay = hashtrace({"clock", "pps", "--replay", (dir_ / "edges.txt").string(), "--log-dir",
                                   (dir_ / "replayed").string(), "--host", "sim"});
    ASSERT_EQ(replay.exit_code, 0) << replay.output;
    const auto replayed = hc::load_clock_records(dir_ / "replayed" / "clock-sim.htclock");
    ASSERT_EQ(replayed.size(), 200u);
    for (std::size_t k = 2; k < 16; ++k) EXPECT_EQ(replayed[k].offset_ns, records[k].offset_ns) << k;
}

TEST_F(ClockPpsCommand, RejectsAmbiguousOrUnusableOptions) {
    auto run = hashtrace({"clock", "pps", "--simulate", "--replay", "x.txt"});
    EXPECT_EQ(run.exit_code, 2);
    EXPECT_NE(run.output.find("exactly one of"), std::string::npos) << run.output;
    run = hashtrace({"clock", "pps", "--replay", "x.txt", "--discipline", "--log-dir", dir_.string()});
    EXPECT_EQ(run.exit_code, 2);
    EXPECT_NE(run.output.find("--discipline cannot act on replayed edges"), std::string::npos) << run.output;
    run = hashtrace({"clock", "pps", "--gpio", "gpiochip0", "--log-dir", dir_.string()});
    EXPECT_EQ(run.exit_code, 2);
    EXPECT_NE(run.output.find("not CHIP:LINE"), std::string::npos) << run.output;
    run = hashtrace({"clock", "pps", "--replay", (dir_ / "missing.txt").string(), "--log-dir", dir_.string()});
    EXPECT_EQ(run.exit_code, 1);
    EXPECT_NE(run.output.find("missing.txt"), std::string::npos) << run.output;
}
