// End to end: simulated footage with known truth -> `collect video` pipeline
// -> Camera samples, checked against the truth with the issue's accuracies.
#include "hashtrace/collectors/camera_sim.hpp"
#include "hashtrace/collectors/video_collector.hpp"

#include "hashtrace/canonical.hpp"
#include "hashtrace/logio/reader.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <unistd.h>

using namespace hashtrace;
using namespace hashtrace::collectors;

namespace {

struct TempDir {
    std::filesystem::path path;
    ~TempDir() {
        std::error_code ignored;
        std::filesystem::remove_all(path, ignored);
    }
};

struct Simulated {
    TempDir dir;
    SimulationConfig config;
    SimulationPlan plan;
    SimulationOutputs files;
    VideoScan scan;
};

// One simulation shared by the tests: writing and reading the footage is the slow part.
const Simulated& simulated() {
    static const Simulated s = [] {
        Simulated r;
        r.plan = plan_simulation(r.config);
        r.dir.path = std::filesystem::temp_directory_path() / ("hashtrace-video-e2e-" + std::to_string(::getpid()));
        r.files = write_simulation(r.config, r.plan, r.dir.path);
        r.scan = scan_video([&] { return FrameSource::open_file(r.files.video); }, {});  // regions found
        return r;
    }();
    return s;
}

SoftwareTimes software_times(const Simulated& s) {
    SoftwareTimes software(HashFunction::md5);
    for (const auto& file : logio::find_logs({s.files.logs})) software.add(logio::load_log(file));
    return software;
}

TimingOptions timing(const Simulated& s) {
    TimingOptions t;
    t.max_clock_deviation_ns = std::llround(s.config.max_clock_deviation_ms * 1e6);
    t.led_rise_ms = s.config.led_rise_ms;
    return t;
}

CameraLogOptions log_options() {
    CameraLogOptions o;
    o.mapping = parse_payload_mapping("int:32");
    return o;
}

}  // namespace

static void finds_the_regions(const Simulated& s) {
    ASSERT_EQ(s.scan.frames.size(), s.plan.frame_start_ns.size());
    const Region qr = *s.scan.regions.qr, led = *s.scan.regions.led;
    EXPECT_LE(qr.x, s.config.qr.x + 20);
    EXPECT_GE(qr.x + qr.width, s.config.qr.x + s.config.qr.width - 20);
    const int cx = s.config.led.x + s.config.led.width / 2, cy = s.config.led.y + s.config.led.height / 2;
    EXPECT_TRUE(led.x <= cx && cx < led.x + led.width && led.y <= cy && cy < led.y + led.height);
    EXPECT_GT(s.scan.reused, s.scan.decodes);  // persistence makes reuse the common case
}

static void frame_times_within_half_a_frame_and_latencies_within_one_frame(const Simulated& s) {
    const auto software = software_times(s);
    CollectReport report;
    const auto log = collect_from_scan(s.scan, timing(s), log_options(), &software, report);
    ASSERT_TRUE(report.sync.clock) << report.timing;  // (ASSERT returns from this check only)
    EXPECT_EQ(report.edges.edges.size(), 2u);  // 2.5 s from 0.437 s past a second
    EXPECT_EQ(report.sync.edges_agreeing, report.sync.edges_with_match);

    const double period = s.plan.frame_period_exact_ns;
    double worst_frame_error = 0;
    for (const auto& sample : log.samples) {
        if (sample.tracepoint == kPpsRisingEdge) {
            // The LED rises on the PPS second exactly.
            EXPECT_NEAR(static_cast<double>(sample.time_ns % 1'000'000'000), 0.0, period / 10) << sample.time_ns;
            continue;
        }
        if (sample.tracepoint != kQrPersisting) continue;  // QrDisplayed is dated between frames (gap_middle)
        const double truth = static_cast<double>(s.plan.frame_start_ns[sample.seq]) + period / 2;
        worst_frame_error = std::max(worst_frame_error, std::abs(static_cast<double>(sample.time_ns) - truth));
    }
    EXPECT_LE(worst_frame_error, period / 2);

    // Every message whose code appeared inside the video (away from its ends)
    // has a QrDisplayed sample; its latency from creation (as the software log
    // stamped it) is within one frame of the true latency.
    std::map<std::string, const logio::SampleRecord*> displayed;  // hash hex -> sample
    for (const auto& sample : log.samples)
        if (sample.tracepoint == kQrDisplayed) {
            const auto hex = to_hex(sample.input_hash);
            EXPECT_TRUE(displayed.emplace(std::string(hex.data(), 32), &sample).second) << "code shown twice";
        }
    std::map<std::string, std::int64_t> created_logged;
    for (const auto& file : logio::find_logs({s.files.logs})) {
        const auto l = logio::load_log(file);
        for (const auto& sample : l.samples)
            if (l.tracepoints[sample.tracepoint].tracepoint_name == "MessageCreated") {
                const auto hex = to_hex(sample.output_hash);
                created_logged[std::string(hex.data(), 32)] = sample.time_ns;
            }
    }
    const std::int64_t video_begin = s.plan.frame_start_ns.front() + std::llround(5 * period);
    const std::int64_t video_end = s.plan.frame_start_ns.back() - std::llround(5 * period);
    std::size_t checked = 0, double_frames = 0;
    double worst_latency_error = 0;
    for (const auto& m : s.plan.messages) {
        if (!m.displayed_ns || *m.displayed_ns < video_begin || *m.displayed_ns > video_end) continue;
        const auto hex = to_hex(hash_of(HashFunction::md5, m.id));
        const std::string key(hex.data(), 32);
        const auto it = displayed.find(key);
        ASSERT_NE(it, displayed.end()) << "message " << m.id << " shown at " << *m.displayed_ns << " was not recovered";
        const double measured = static_cast<double>(it->second->time_ns - created_logged.at(key));
        const double truth = static_cast<double>(*m.displayed_ns - m.created_ns);
        worst_latency_error = std::max(worst_latency_error, std::abs(measured - truth));
        ++checked;
        double_frames += m.double_frame;
    }
    EXPECT_LE(worst_latency_error, period);
    EXPECT_GT(checked, 100u);
    EXPECT_GT(double_frames, 5u);  // the footage does exercise codes held for two refreshes
    std::printf("checked %zu displayed messages: worst frame time error %.0f ns, worst latency error %.0f ns\n", checked,
                worst_frame_error, worst_latency_error);
}

static void without_logs_the_start_time_dates_frames(const Simulated& s) {
    TimingOptions t = timing(s);
    EXPECT_THROW(
        {
            CollectReport report;
            collect_from_scan(s.scan, t, log_options(), nullptr, report);
        },
        CollectError);
    t.start_time_ns = s.config.frame0_start_ns;
    CollectReport report;
    const auto log = collect_from_scan(s.scan, t, log_options(), nullptr, report);
    ASSERT_FALSE(log.samples.empty());
    EXPECT_EQ(log.samples.front().time_ns, s.config.frame0_start_ns + 500'000);  // nominal 1000 fps
}

static void logs_without_matching_codes_are_a_clear_error(const Simulated& s) {
    SoftwareTimes unrelated(HashFunction::md5);
    CollectReport report;
    try {
        collect_from_scan(s.scan, timing(s), log_options(), &unrelated, report);
        ADD_FAILURE() << "dated frames without a match";
    } catch (const CollectError& e) {
        EXPECT_NE(std::string(e.what()).find("no code shown before a PPS edge matches"), std::string::npos) << e.what();
    }
}

// One test: writing and reading the footage dominates, and ctest runs each
// test case in its own process.
TEST(VideoEndToEnd, SimulatedFootage) {
    const auto& s = simulated();
    {
        SCOPED_TRACE("regions are found");
        finds_the_regions(s);
    }
    {
        SCOPED_TRACE("frame times and latencies");
        frame_times_within_half_a_frame_and_latencies_within_one_frame(s);
    }
    {
        SCOPED_TRACE("start time without logs");
        without_logs_the_start_time_dates_frames(s);
    }
    {
        SCOPED_TRACE("unrelated logs");
        logs_without_matching_codes_are_a_clear_error(s);
    }
}
