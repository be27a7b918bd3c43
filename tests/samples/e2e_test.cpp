// End-to-end: runs the sample system for a few seconds in each
// interconnection (samples/run-system.sh), then checks from the logs
// themselves and from `hashtrace analyze`'s JSON what must hold for the
// traces to be right: every message sent is linked to its receipt, the router
// fans out to each receiver, interval counts match the message counts,
// latencies are positive and plausible, and with the bug switch the planted
// link is the one the analysis singles out.
#include <hashtrace/logio/reader.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <csignal>
#include <set>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <unordered_map>
#include <vector>

namespace fs = std::filesystem;
namespace logio = hashtrace::logio;

namespace {

constexpr const char* kDuration = "3";

struct Sample {
    std::string node;
    std::string tracepoint;
    std::string instance;
    std::uint32_t thread = 0;
    std::int64_t time_ns = 0;
    logio::SampleRecord record;
};

struct HashKey {
    std::size_t operator()(const hashtrace::Hash128& h) const noexcept { return h.prefix64(); }
};

struct SystemRun {
    fs::path dir;
    std::vector<Sample> samples;
    nlohmann::json analysis;

    std::vector<const Sample*> at(const std::string& node, const std::string& tracepoint) const {
        std::vector<const Sample*> out;
        for (const auto& s : samples)
            if (s.node == node && s.tracepoint == tracepoint) out.push_back(&s);
        return out;
    }
    std::size_t count(const std::string& node, const std::string& tracepoint) const {
        return at(node, tracepoint).size();
    }
    const nlohmann::json& interval(const std::string& name_prefix) const {
        for (const auto& i : analysis.at("intervals"))
            if (i.at("name").get<std::string>().rfind(name_prefix, 0) == 0) return i;
        throw std::runtime_error("no interval named " + name_prefix + "...");
    }
};

fs::path work_dir() {
    static const fs::path dir = fs::temp_directory_path() / ("hashtrace-samples-e2e-" + std::to_string(::getpid()));
    return dir;
}

int shell(const std::string& command) {
    const int rc = std::system(command.c_str());
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : 128;
}

SystemRun run_system(const std::string& config, const std::string& name, bool bug) {
    SystemRun run;
    run.dir = work_dir() / name;
    // The namespace and veth pair named after this test process: tests running side by side
    // (ctest -j) check only their own are gone.
    const std::string env = std::string("SAMPLE_BIN_DIR=") + HASHTRACE_SAMPLE_BIN_DIR + " DURATION=" + kDuration +
                            (bug ? " BUG=1" : "") + " NETNS_TAG=" + std::to_string(::getpid());
    const std::string cmd = env + " " + HASHTRACE_SAMPLES_DIR + "/run-system.sh " + config + " " + run.dir.string();
    if (int rc = shell(cmd); rc != 0) throw std::runtime_error(cmd + " exited with " + std::to_string(rc));

    for (const auto& file : logio::find_logs({run.dir})) {
        const logio::SampleLog log = logio::load_log(file);
        EXPECT_FALSE(log.report.torn) << file << ": the log must be complete after SIGINT";
        EXPECT_TRUE(log.report.clean_close) << file << ": the writer's end marker is missing";
        EXPECT_EQ(log.report.dropped_samples, 0u) << file;
        for (const auto& r : log.samples) {
            const auto& tp = log.tracepoints.at(r.tracepoint);
            run.samples.push_back({tp.node_name, tp.tracepoint_name, tp.instance, r.thread, r.time_ns, r});
        }
    }
    const fs::path json = run.dir / "analysis.json";
    const std::string analyze = std::string(HASHTRACE_CLI) + " analyze " + run.dir.string() + " --spec " +
                                HASHTRACE_SAMPLES_DIR + "/spec.toml --json " + json.string() + " > " +
                                (run.dir / "analysis.txt").string();
    if (int rc = shell(analyze); rc != 0) throw std::runtime_error(analyze + " exited with " + std::to_string(rc));
    std::ifstream in(json);
    run.analysis = nlohmann::json::parse(in);
    return run;
}

// Samples of `tracepoint` (any node) indexed by input hash.
std::unordered_multimap<hashtrace::Hash128, const Sample*, HashKey> by_input(const SystemRun& run,
                                                                              const std::string& tracepoint) {
    std::unordered_multimap<hashtrace::Hash128, const Sample*, HashKey> out;
    for (const auto& s : run.samples)
        if (s.tracepoint == tracepoint && s.record.has_input()) out.emplace(s.record.input_hash, &s);
    return out;
}

// Every MessageSent links to exactly one MessageReceived, later and within a
// second; there are no receipts without a send.
void expect_every_send_received(const SystemRun& run) {
    const auto received = by_input(run, "MessageReceived");
    std::size_t sends = 0;
    for (const auto& s : run.samples) {
        if (s.tracepoint != "MessageSent") continue;
        ++sends;
        auto [first, last] = received.equal_range(s.record.output_hash);
        ASSERT_EQ(std::distance(first, last), 1) << s.node << "/MessageSent at " << s.time_ns
                                                 << " must link to exactly one receipt";
        const double latency_ms = static_cast<double>(first->second->time_ns - s.time_ns) / 1e6;
        EXPECT_GT(latency_ms, 0.0);
        EXPECT_LT(latency_ms, 1000.0);
    }
    EXPECT_GT(sends, 1000u);
    EXPECT_EQ(received.size(), sends);
}

// Messages created by `origin` reach every other node's scene graph exactly once.
void expect_counts_and_intervals(const SystemRun& run) {
    const std::size_t forces = run.count("Haptics", "ForceComputed");
    const std::size_t steps = run.count("Physics", "SimulationStepped");
    const std::size_t transforms = run.count("Physics", "MessageCreated");
    ASSERT_GT(forces, 1000u);  // 1 kHz for seconds
    ASSERT_GT(steps, 250u);    // 250 Hz
    EXPECT_EQ(run.count("Haptics", "MessageCreated"), forces);
    EXPECT_EQ(transforms % steps, 0u) << "every step publishes one transform per object";
    EXPECT_EQ(run.count("Physics", "SceneGraphUpdated"), forces);
    EXPECT_EQ(run.count("Render", "SceneGraphUpdated"), forces + transforms);
    EXPECT_EQ(run.count("Haptics", "SceneGraphUpdated"), transforms);

    const auto& a = run.analysis;
    EXPECT_EQ(a.at("samples").get<std::size_t>(), run.samples.size());
    // One latency per `from` sample and reached instance (docs/spec.md section 5).
    EXPECT_EQ(run.interval("M4.3").at("count").get<std::size_t>(), forces);
    EXPECT_EQ(run.interval("M5.1").at("count").get<std::size_t>(), forces);
    EXPECT_EQ(run.interval("M5.2").at("count").get<std::size_t>(), forces);
    EXPECT_EQ(run.interval("M4.2").at("count").get<std::size_t>(), steps);
    EXPECT_EQ(run.interval("M5.3").at("count").get<std::size_t>(), steps);
    EXPECT_EQ(run.interval("M5.4").at("count").get<std::size_t>(), steps);
    EXPECT_EQ(run.interval("M4.1").at("count").get<std::size_t>(), run.count("Physics", "MessageReceived"));
    EXPECT_EQ(run.interval("M4.4").at("count").get<std::size_t>(), run.count("Render", "MessageReceived"));
    EXPECT_EQ(run.interval("L4").at("count").get<std::size_t>(), run.count("Haptics", "MessageQueued"));
    for (const auto& i : a.at("intervals")) {
        const std::string name = i.at("name");
        EXPECT_GE(i.at("min_ms").get<double>(), 0.0) << name;
        EXPECT_GT(i.at("mean_ms").get<double>(), 0.0) << name;
        EXPECT_LT(i.at("max_ms").get<double>(), 1000.0) << name << ": implausible without the bug";
    }
    // End to end covers its parts: haptics -> render includes render's frame wait.
    EXPECT_GT(run.interval("M5.1").at("mean_ms").get<double>(), run.interval("M4.3").at("mean_ms").get<double>());
    EXPECT_GT(a.at("message_edges").get<std::size_t>(), 0u);
}

std::string dominant_link(const SystemRun& run) {
    std::string best;
    double best_mean = -1;
    for (const auto& i : run.analysis.at("intervals")) {
        const std::string name = i.at("name");
        if (name.rfind("L", 0) == 0 && i.at("mean_ms").get<double>() > best_mean) {
            best = name;
            best_mean = i.at("mean_ms").get<double>();
        }
    }
    return best;
}

bool can_make_network_namespaces() {
    const std::string ns = "htprobe-" + std::to_string(::getpid());
    if (shell("ip netns add " + ns + " 2>/dev/null") != 0) return false;
    shell("ip netns del " + ns);
    return true;
}

class SampleSystem : public ::testing::Test {
protected:
    static void TearDownTestSuite() { fs::remove_all(work_dir()); }
};

}  // namespace

TEST_F(SampleSystem, MeshLinksEveryMessageToItsReceiptAndCountsMatch) {
    const SystemRun run = run_system("mesh", "mesh", false);
    expect_every_send_received(run);
    expect_counts_and_intervals(run);
    // A mesh sender duplicates: every message leaves its creator once per receiver.
    EXPECT_EQ(run.count("Haptics", "MessageSent"), 2 * run.count("Haptics", "MessageCreated"));
    EXPECT_EQ(run.count("Router", "MessageReceived"), 0u);
}

TEST_F(SampleSystem, LocalRouterFansOutEveryMessageToEachOtherNode) {
    const SystemRun run = run_system("local-router", "local-router", false);
    expect_every_send_received(run);
    expect_counts_and_intervals(run);

    // Each message the router receives leaves it once per other node, each
    // copy on its own connection thread and received by that node.
    const auto router_sent = by_input(run, "MessageSent");
    const auto received = by_input(run, "MessageReceived");
    std::unordered_map<hashtrace::Hash128, const Sample*, HashKey> sent_by_wire_hash;
    for (const auto& s : run.samples)
        if (s.tracepoint == "MessageSent") sent_by_wire_hash.emplace(s.record.output_hash, &s);
    std::size_t router_received = 0;
    for (const Sample* r : run.at("Router", "MessageReceived")) {
        ++router_received;
        const auto sender = sent_by_wire_hash.find(r->record.input_hash);
        ASSERT_NE(sender, sent_by_wire_hash.end());
        std::set<std::uint32_t> threads;
        std::set<std::string> receivers;
        auto [first, last] = router_sent.equal_range(r->record.output_hash);
        for (auto it = first; it != last; ++it) {
            if (it->second->node != "Router") continue;
            threads.insert(it->second->thread);
            auto got = received.find(it->second->record.output_hash);
            ASSERT_NE(got, received.end());
            receivers.insert(got->second->node);
        }
        ASSERT_EQ(receivers.size(), 2u) << "router must fan out to both other nodes";
        EXPECT_EQ(threads.size(), 2u);
        EXPECT_EQ(receivers.count(sender->second->node), 0u) << "no echo to the sender";
    }
    EXPECT_EQ(router_received,
              run.count("Haptics", "MessageCreated") + run.count("Physics", "MessageCreated"));
}

TEST_F(SampleSystem, RemoteRouterInItsOwnNetworkNamespaceWorksAndLeavesNothingBehind) {
    if (!can_make_network_namespaces()) GTEST_SKIP() << "needs root for ip netns";
    const SystemRun run = run_system("remote-router", "remote-router", false);
    expect_every_send_received(run);
    expect_counts_and_intervals(run);
    EXPECT_GT(run.count("Router", "MessageReceived"), 0u);
    // run-system.sh removed its namespace and veth pair (named after this process: NETNS_TAG).
    const std::string tag = std::to_string(::getpid());
    EXPECT_EQ(shell("ip netns list | grep -qw htsample-" + tag), 1);
    EXPECT_EQ(shell("ip link show | grep -q ' htv" + tag + "a'"), 1);
}

TEST_F(SampleSystem, WithTheBugTheAnalysisSinglesOutTheHapticsInboxLink) {
    const SystemRun run = run_system("local-router", "bug", true);
    expect_every_send_received(run);
    // The backlog makes physics -> haptics far slower than haptics -> physics
    // (the paper's asymmetric latency)...
    const double to_haptics = run.interval("M5.3").at("mean_ms").get<double>();
    const double to_physics = run.interval("M5.2").at("mean_ms").get<double>();
    EXPECT_GT(to_haptics, 10 * to_physics) << to_haptics << " ms vs " << to_physics << " ms";
    // ...and the link holding the delay is the planted one: the thread boundary
    // where haptics reads its inbox, one message per iteration.
    EXPECT_EQ(dominant_link(run), "L4 Haptics queued to processed");
    const double l4 = run.interval("L4").at("mean_ms").get<double>();
    for (const char* other : {"L1", "L2", "L3", "L5"}) {
        EXPECT_GT(l4, 20 * run.interval(other).at("mean_ms").get<double>()) << other;
    }
    // Nothing was lost: the backlog drained at shutdown.
    EXPECT_EQ(run.count("Haptics", "SceneGraphUpdated"), run.count("Physics", "MessageCreated"));
}

TEST_F(SampleSystem, CtrlCStopsEveryProcessWithCompleteLogsAndRemovesTheNamespace) {
    const bool netns = can_make_network_namespaces();
    const std::string config = netns ? "remote-router" : "local-router";
    const fs::path dir = work_dir() / "interrupted";
    const std::string script = std::string(HASHTRACE_SAMPLES_DIR) + "/run-system.sh";
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        // Like a terminal's foreground job: its own process group, SIGINT at its default.
        ::setsid();
        std::signal(SIGINT, SIG_DFL);
        ::setenv("SAMPLE_BIN_DIR", HASHTRACE_SAMPLE_BIN_DIR, 1);
        ::setenv("DURATION", "60", 1);
        ::execl(script.c_str(), script.c_str(), config.c_str(), dir.c_str(), static_cast<char*>(nullptr));
        ::_exit(127);
    }
    std::this_thread::sleep_for(std::chrono::seconds(3));
    ASSERT_EQ(::kill(-pid, SIGINT), 0);  // Ctrl-C: the whole process group
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 130);
    EXPECT_EQ(shell("pgrep -s " + std::to_string(pid) + " >/dev/null"), 1) << "processes left running";
    EXPECT_EQ(shell("ip netns list 2>/dev/null | grep -q htsample-" + std::to_string(pid)), 1);
    const auto logs = logio::find_logs({dir});
    EXPECT_EQ(logs.size(), 4u);
    for (const auto& file : logs) {
        const logio::SampleLog log = logio::load_log(file);
        EXPECT_FALSE(log.report.torn) << file;
        EXPECT_TRUE(log.report.clean_close) << file;
        EXPECT_GT(log.samples.size(), 0u) << file;
    }
}

TEST_F(SampleSystem, DemoRunsEveryConfigurationComparesThemAndNamesTheBuggyLink) {
    const fs::path build_dir = fs::path(HASHTRACE_CLI).parent_path().parent_path();
    const fs::path out = work_dir() / "demo";
    const fs::path log = work_dir() / "demo.txt";
    fs::create_directories(work_dir());
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    // Nodes several times slower may not keep up with their loops: not at a priority above the test's own.
    const std::string realtime = " --no-realtime";
#else
    const std::string realtime;
#endif
    const std::string cmd = std::string(HASHTRACE_SAMPLES_DIR) + "/demo.sh --no-build --duration 2 --build-dir " +
                            build_dir.string() + " --out " + out.string() + realtime + " > " + log.string() + " 2>&1";
    ASSERT_EQ(shell(cmd), 0) << "see " << log;
    std::ifstream in(log);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find("The delay is in link \"L4 Haptics queued to processed\""), std::string::npos) << text;
    EXPECT_NE(text.find("M5 M5.3 Physics simulation to Haptic"), std::string::npos) << text;
    // The critical path of the bug run puts the haptics queue first, and the
    // bound without its waits lands near the run without the bug, far below
    // the bug run's figure.
    const auto path = text.find("M5.3 Physics simulation to Haptics scene graph: ");
    ASSERT_NE(path, std::string::npos) << text;
    const auto table_header_end = text.find('\n', text.find('\n', path) + 1);  // the interval's line, the columns' line
    ASSERT_NE(table_header_end, std::string::npos) << text;
    EXPECT_EQ(text.compare(table_header_end + 1, 52, "  Haptics/MessageQueued -> Haptics/MessageProcessed "), 0) << text;
    const auto with_bug = text.find(" ms with the bug. ");
    const auto gives = text.find("the model gives ");
    const auto measured = text.find("the run without the bug measured ");
    ASSERT_TRUE(with_bug != std::string::npos && gives != std::string::npos && measured != std::string::npos) << text;
    EXPECT_NE(text.find("a lower bound, not a prediction of the fix"), std::string::npos) << text;
    const double bug_ms = std::stod(text.substr(text.rfind(": ", with_bug) + 2));
    const double bound_ms = std::stod(text.substr(gives + 16));
    const double without_bug_ms = std::stod(text.substr(measured + 33));
    EXPECT_LT(bound_ms, 3 * without_bug_ms + 1) << text;
    EXPECT_GT(bug_ms, 10 * bound_ms) << text;
    // The what-if beside its real run: predicted from the baseline alone,
    // measured on the run with the change made, the error printed from the two.
    const auto row = text.find("  mean_ms ", text.find("a what-if beside its real run"));
    ASSERT_NE(row, std::string::npos) << text;
    std::istringstream figures(text.substr(row + 10));
    double baseline_ms = 0, predicted_ms = 0, real_ms = 0, error_percent = 0;
    figures >> baseline_ms >> predicted_ms >> real_ms >> error_percent;
    ASSERT_GT(real_ms, 0) << text;
    EXPECT_GT(predicted_ms, baseline_ms) << text;  // a slower stage: the model says later, as the run does
    EXPECT_GT(real_ms, baseline_ms) << text;
    EXPECT_NEAR(error_percent, (predicted_ms - real_ms) / real_ms * 100, 0.1) << text;
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
    // Two short real runs: their own spread is part of it. Under a sanitizer
    // the nodes run several times slower, and a change that saturates a loop
    // at full speed tells nothing about the model.
    EXPECT_LT(std::abs(error_percent), 30) << text;
#endif
    EXPECT_TRUE(fs::exists(out / "local-router-render-slower" / "analysis.json"));
    std::ifstream table(out / "table5.md");
    const std::string markdown((std::istreambuf_iterator<char>(table)), std::istreambuf_iterator<char>());
    EXPECT_NE(markdown.find("mesh"), std::string::npos) << markdown;
    EXPECT_NE(markdown.find("local-router"), std::string::npos) << markdown;
    for (const char* run : {"mesh", "local-router", "local-router-bug"}) {
        EXPECT_TRUE(fs::exists(out / run / "analysis.json")) << run;
    }
}
