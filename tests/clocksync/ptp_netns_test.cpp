// Integration test against the real ptp4l: a grandmaster and a follower in two
// network namespaces joined by a veth pair, software timestamping, the
// follower free-running so the host clock is never touched. Both run
// `hashtrace clock ptp`, exactly as a lab would.
//
// Both namespaces share the host's CLOCK_REALTIME, so the true offset between
// "the two machines" is exactly zero and every reported offset is measurement
// error of PTP over veth with software timestamps. Measured on the reference
// VM (2 cores, idle apart from builds): rms 0.5 us, max 2.3 us over 28
// records. The bounds below (median |offset| < 20 us, every |offset| < 200 us)
// leave a factor of 40 and ~90 for softirq latency on a shared, busy 2-core
// machine; a real fault (wrong sign, a unit error, a stale offset from a lost
// master) is milliseconds or more. The median, not the rms, is bounded: in CI
// one Sync held up by the scheduler (94 us among 16 offsets) lifted the rms to
// 25 us; the other 15 offsets had an rms of 9 us.
//
// linuxptp 3.1 never reports SLAVE for a free-running follower: its
// clock_no_adjust() returns SERVO_UNLOCKED for every sample, so the port stays
// UNCALIBRATED while measuring (ptp4l promotes a port to SLAVE only on a servo
// lock). So there are two tests: the free-running follower (as a lab would
// measure without touching a clock: UNCALIBRATED, offsets measured), and a
// follower whose servo runs but whose clock writes are discarded by an
// LD_PRELOAD shim (clock_write_guard.c), which locks and reaches SLAVE. Both
// check afterwards that the host clock's frequency was not changed.
#include "hashtrace/clocksync/clock_record.hpp"
#include "hashtrace/clocksync/subprocess.hpp"

#include "hashtrace/clocksync/adjustable_clock.hpp"

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

namespace hc = hashtrace::clocksync;
namespace fs = std::filesystem;

namespace {

bool ip(const std::vector<std::string>& args) {
    std::vector<std::string> argv{"ip"};
    argv.insert(argv.end(), args.begin(), args.end());
    return hc::run_command(argv, std::chrono::seconds(10)).exit_code == 0;
}

// Two namespaces and a veth pair; removed (with anything still running in
// them) on destruction, also when the test fails half-way.
class NamespacePair {
public:
    NamespacePair() {
        const std::string id = std::to_string(::getpid() % 100000);
        a_ = "htptp-a-" + id;
        b_ = "htptp-b-" + id;
        veth_a_ = "htpa" + id;
        veth_b_ = "htpb" + id;
        ok_ = ip({"netns", "add", a_}) && ip({"netns", "add", b_}) &&
              ip({"link", "add", veth_a_, "type", "veth", "peer", "name", veth_b_}) &&
              ip({"link", "set", veth_a_, "netns", a_}) && ip({"link", "set", veth_b_, "netns", b_}) &&
              ip({"-n", a_, "addr", "add", "10.231.77.1/24", "dev", veth_a_}) &&
              ip({"-n", b_, "addr", "add", "10.231.77.2/24", "dev", veth_b_}) &&
              ip({"-n", a_, "link", "set", veth_a_, "up"}) && ip({"-n", b_, "link", "set", veth_b_, "up"});
    }
    ~NamespacePair() {
        for (const auto& ns : {a_, b_}) {
            // Only processes inside namespaces this test made: ours.
            const auto pids = hc::run_command({"ip", "netns", "pids", ns}, std::chrono::seconds(5)).output;
            std::size_t start = 0;
            while (start < pids.size()) {
                const std::size_t end = pids.find('\n', start);
                const std::string pid = pids.substr(start, end - start);
                if (!pid.empty()) ::kill(std::stoi(pid), SIGKILL);
                if (end == std::string::npos) break;
                start = end + 1;
            }
            ip({"netns", "del", ns});  // takes the veth end inside with it
        }
        ip({"link", "del", veth_a_});  // in case it never moved into a namespace
    }
    bool ok() const noexcept { return ok_; }
    const std::string& a() const noexcept { return a_; }
    const std::string& b() const noexcept { return b_; }
    const std::string& veth_a() const noexcept { return veth_a_; }
    const std::string& veth_b() const noexcept { return veth_b_; }

private:
    std::string a_, b_, veth_a_, veth_b_;
    bool ok_ = false;
};

bool wait_for_exit(hc::Daemon& d, std::chrono::seconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (d.running()) {
        if (std::chrono::steady_clock::now() > deadline) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    return true;
}

struct PairRun {
    std::vector<hc::ClockRecord> grandmaster, follower;
    fs::path dir;
};

// Runs `hashtrace clock ptp` as grandmaster in one namespace and as follower
// (with `follower_args`, under `follower_env`) in the other, for `seconds`.
void run_pair(const NamespacePair& ns, const std::vector<std::string>& follower_env,
              const std::vector<std::string>& follower_args, int seconds, PairRun& run,
              const std::function<void()>& while_running = {}) {
    run.dir = fs::temp_directory_path() / ("hashtrace_ptp_" + std::to_string(::getpid()));
    fs::remove_all(run.dir);
    fs::create_directories(run.dir);
    const std::string duration = std::to_string(seconds);
    const std::string exe = HASHTRACE_EXE;
    std::vector<std::string> follower{"ip", "netns", "exec", ns.b(), "env"};
    follower.insert(follower.end(), follower_env.begin(), follower_env.end());
    for (const std::string& a : {exe, std::string("clock"), std::string("ptp"), std::string("--role"), std::string("follower"),
                                 std::string("--interface"), ns.veth_b(), std::string("--uds"), (run.dir / "fo.sock").string(),
                                 std::string("--log-dir"), (run.dir / "fo").string(), std::string("--host"), std::string("fo"),
                                 std::string("--duration"), duration})
        follower.push_back(a);
    follower.insert(follower.end(), follower_args.begin(), follower_args.end());
    {
        hc::Daemon gm({"ip", "netns", "exec", ns.a(), exe, "clock", "ptp", "--role", "grandmaster", "--interface",
                       ns.veth_a(), "--uds", (run.dir / "gm.sock").string(), "--log-dir", (run.dir / "gm").string(), "--host",
                       "gm", "--duration", duration},
                      run.dir / "gm.out");
        hc::Daemon fo(follower, run.dir / "fo.out");
        if (while_running) while_running();
        ASSERT_TRUE(wait_for_exit(fo, std::chrono::seconds(60))) << "follower monitor did not stop";
        ASSERT_TRUE(wait_for_exit(gm, std::chrono::seconds(30))) << "grandmaster monitor did not stop";
        EXPECT_EQ(fo.exit_status(), 0) << "see " << (run.dir / "fo.out");
        EXPECT_EQ(gm.exit_status(), 0) << "see " << (run.dir / "gm.out");
    }
    run.grandmaster = hc::load_clock_records(run.dir / "gm" / "clock-gm.htclock");
    run.follower = hc::load_clock_records(run.dir / "fo" / "clock-fo.htclock");
    // One record a second (the first poll may find ptp4l not yet listening).
    EXPECT_GE(run.follower.size(), static_cast<std::size_t>(seconds - 5));
    EXPECT_GE(run.grandmaster.size(), static_cast<std::size_t>(seconds - 5));
    EXPECT_EQ(run.grandmaster.back().state, "MASTER");
    EXPECT_EQ(hc::sync_status(run.grandmaster.back()), hc::SyncStatus::reference);
}

struct OffsetStats {
    std::size_t measured = 0;
    double median_abs = 0, rms = 0, max_abs = 0;
};

// Checks every measured offset against the bound and returns their statistics.
OffsetStats check_offsets(const std::vector<hc::ClockRecord>& records, hc::SyncStatus expected) {
    OffsetStats stats;
    double sum_sq = 0;
    std::vector<double> abs_offsets;
    for (const auto& r : records) {
        EXPECT_EQ(r.host, "fo");
        if (!r.offset_ns) continue;
        EXPECT_EQ(hc::sync_status(r), expected) << r.state << " at " << r.time_ns;
        EXPECT_TRUE(r.path_delay_ns && *r.path_delay_ns > 0);
        const double offset = static_cast<double>(*r.offset_ns);
        EXPECT_LT(std::abs(offset), 200'000) << "at " << r.time_ns;
        sum_sq += offset * offset;
        stats.max_abs = std::max(stats.max_abs, std::abs(offset));
        abs_offsets.push_back(std::abs(offset));
        ++stats.measured;
    }
    if (stats.measured == 0) return stats;
    stats.rms = std::sqrt(sum_sq / static_cast<double>(stats.measured));
    const auto middle = abs_offsets.begin() + static_cast<std::ptrdiff_t>(abs_offsets.size() / 2);
    std::nth_element(abs_offsets.begin(), middle, abs_offsets.end());
    stats.median_abs = *middle;
    return stats;
}

// The host clock, which both namespaces share, must come out as it went in.
class HostClockGuard {
public:
    HostClockGuard() : frequency_ppb_(hc::SystemClock().frequency_ppb()), offset_ns_(realtime_minus_monotonic()) {}
    void expect_untouched() const {
        EXPECT_EQ(hc::SystemClock().frequency_ppb(), frequency_ppb_) << "the host clock's frequency was changed";
        EXPECT_LT(std::abs(realtime_minus_monotonic() - offset_ns_), 1e6) << "the host clock was stepped";
    }

private:
    static double realtime_minus_monotonic() {
        timespec real{}, mono{};
        clock_gettime(CLOCK_MONOTONIC, &mono);
        clock_gettime(CLOCK_REALTIME, &real);
        return static_cast<double>(real.tv_sec - mono.tv_sec) * 1e9 + static_cast<double>(real.tv_nsec - mono.tv_nsec);
    }
    double frequency_ppb_;
    double offset_ns_;
};

}  // namespace

#define SKIP_UNLESS_NETNS(ns)                                                                                   \
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to create network namespaces (ip netns add)";              \
    if (!(ns).ok()) GTEST_SKIP() << "network namespaces or veth pairs cannot be made here (ip netns add / ip link add failed)"

TEST(PtpNetns, FreeRunningFollowerMeasuresGrandmasterWithinBoundOverVeth) {
    const HostClockGuard host_clock;
    NamespacePair ns;
    SKIP_UNLESS_NETNS(ns);
    PairRun run;
    // Meanwhile, a second monitor attaches to the follower's ptp4l, and a
    // second start on the same management socket is refused.
    hc::CommandResult attach, second_start;
    const auto attach_and_restart = [&] {
        std::this_thread::sleep_for(std::chrono::seconds(12));
        const auto fo_sock = (run.dir / "fo.sock").string();  // run_pair has set run.dir by now
        attach = hc::run_command({"ip", "netns", "exec", ns.b(), HASHTRACE_EXE, "clock", "ptp", "--attach", "--uds", fo_sock,
                                  "--log-dir", (run.dir / "attach").string(), "--host", "fo", "--duration", "3"},
                                 std::chrono::seconds(15));
        second_start = hc::run_command({"ip", "netns", "exec", ns.b(), HASHTRACE_EXE, "clock", "ptp", "--role", "follower",
                                        "--interface", ns.veth_b(), "--uds", fo_sock, "--log-dir", (run.dir / "again").string(),
                                        "--duration", "1"},
                                       std::chrono::seconds(15));
    };
    ASSERT_NO_FATAL_FAILURE(run_pair(ns, {}, {"--free-running"}, 30, run, attach_and_restart));
    EXPECT_EQ(attach.exit_code, 0) << attach.output;
    const auto attached = hc::load_clock_records(run.dir / "attach" / "clock-fo.htclock");
    EXPECT_GE(attached.size(), 3u);
    for (const auto& r : attached) EXPECT_NE(r.state, "NO_DAEMON");
    EXPECT_EQ(second_start.exit_code, 1) << second_start.output;
    EXPECT_NE(second_start.output.find("already answers"), std::string::npos) << second_start.output;
    const OffsetStats stats = check_offsets(run.follower, hc::SyncStatus::measuring);
    // The follower selects the master after the announce timeout (~10 s here) and then measures every second.
    ASSERT_GE(stats.measured, 10u) << "the follower never measured the grandmaster; see " << run.dir;
    EXPECT_LT(stats.median_abs, 20'000);
    EXPECT_EQ(run.follower.back().state, "UNCALIBRATED");  // free-running: measuring, never locking (see above)
    host_clock.expect_untouched();
    std::printf("free-running follower: %zu offsets, median |offset| %.0f ns, rms %.0f ns, max %.0f ns\n", stats.measured,
                stats.median_abs, stats.rms, stats.max_abs);
    RecordProperty("offset_median_abs_ns", static_cast<int>(stats.median_abs));
    RecordProperty("offset_rms_ns", static_cast<int>(stats.rms));
    RecordProperty("offset_max_ns", static_cast<int>(stats.max_abs));
    if (!HasFailure()) fs::remove_all(run.dir);
}

TEST(PtpNetns, FollowerWithGuardedClockReachesSlave) {
    // Prove the shim loads before trusting it with ptp4l: a preload that
    // fails to load is only a warning to ld.so, and ptp4l would then adjust
    // the host clock.
    void* shim = ::dlopen(HASHTRACE_CLOCK_GUARD, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(shim, nullptr) << ::dlerror();
    ASSERT_NE(::dlsym(shim, "clock_adjtime"), nullptr);
    ::dlclose(shim);

    const HostClockGuard host_clock;
    NamespacePair ns;
    SKIP_UNLESS_NETNS(ns);
    PairRun run;
    // The servo locks after the master is selected (~10 s) and about 15 more
    // Sync messages at 1/s (measured: SLAVE after 25 s), so run 45 s.
    // The guard is preloaded into the follower's monitor too (ptp4l inherits it
    // from there); in a sanitizer build that monitor must accept a library
    // loaded ahead of the sanitizer runtime.
    ASSERT_NO_FATAL_FAILURE(run_pair(
        ns, {std::string("LD_PRELOAD=") + HASHTRACE_CLOCK_GUARD, "ASAN_OPTIONS=verify_asan_link_order=0"}, {}, 45, run));
    const bool reached_slave = std::any_of(run.follower.begin(), run.follower.end(),
                                           [](const hc::ClockRecord& r) { return r.state == "SLAVE"; });
    ASSERT_TRUE(reached_slave) << "the follower never reached SLAVE; see " << run.dir;
    EXPECT_EQ(run.follower.back().state, "SLAVE");
    // Once SLAVE, every record stays SLAVE with an offset: the state is not lost.
    const auto first_slave = std::find_if(run.follower.begin(), run.follower.end(),
                                          [](const hc::ClockRecord& r) { return r.state == "SLAVE"; });
    for (auto r = first_slave; r != run.follower.end(); ++r) {
        EXPECT_EQ(r->state, "SLAVE") << "at " << r->time_ns;
        EXPECT_TRUE(r->offset_ns.has_value()) << "at " << r->time_ns;
    }
    const std::vector<hc::ClockRecord> locked(first_slave, run.follower.end());
    const OffsetStats stats = check_offsets(locked, hc::SyncStatus::locked);
    EXPECT_LT(stats.median_abs, 20'000);
    host_clock.expect_untouched();
    std::printf("guarded follower: SLAVE with %zu offsets, median |offset| %.0f ns, rms %.0f ns, max %.0f ns\n",
                stats.measured, stats.median_abs, stats.rms, stats.max_abs);
    if (!HasFailure()) fs::remove_all(run.dir);
}

// Failure paths, no namespaces needed: a daemon that cannot start is an error
// naming the cause; a monitor with nothing to attach to records NO_DAEMON.
TEST(PtpCommand, Ptp4lThatCannotStartIsAnErrorWithItsReason) {
    const fs::path dir = fs::temp_directory_path() / ("hashtrace_ptp_fail_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    const auto run = hc::run_command({HASHTRACE_EXE, "clock", "ptp", "--role", "follower", "--interface", "htnone0", "--uds",
                                      (dir / "x.sock").string(), "--log-dir", dir.string(), "--host", "h", "--duration", "10"},
                                     std::chrono::seconds(30));
    EXPECT_EQ(run.exit_code, 1) << run.output;
    EXPECT_NE(run.output.find("error: ptp4l exited"), std::string::npos) << run.output;
    // The end of ptp4l's own log (its reason) is shown, not only a status.
    std::ifstream log(dir / "ptp4l-h.log");
    std::string line, last;
    while (std::getline(log, line))
        if (!line.empty()) last = line;
    ASSERT_FALSE(last.empty());
    EXPECT_NE(run.output.find(last), std::string::npos) << run.output;
    fs::remove_all(dir);
}

TEST(PtpCommand, AttachingToNothingRecordsNoDaemon) {
    const fs::path dir = fs::temp_directory_path() / ("hashtrace_ptp_none_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    const auto run = hc::run_command({HASHTRACE_EXE, "clock", "ptp", "--attach", "--uds", (dir / "none.sock").string(),
                                      "--log-dir", dir.string(), "--host", "h", "--duration", "2.5"},
                                     std::chrono::seconds(30));
    EXPECT_EQ(run.exit_code, 0) << run.output;
    EXPECT_NE(run.output.find("warning: clock not synchronised: ptp4l state NO_DAEMON"), std::string::npos) << run.output;
    const auto records = hc::load_clock_records(dir / "clock-h.htclock");
    ASSERT_GE(records.size(), 2u);
    for (const auto& r : records) {
        EXPECT_EQ(r.state, "NO_DAEMON");
        EXPECT_EQ(hc::sync_status(r), hc::SyncStatus::unknown);
    }
    fs::remove_all(dir);
}
