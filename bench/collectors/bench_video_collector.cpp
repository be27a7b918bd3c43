// Frames per second of `hashtrace collect video`'s stages on 640x480 footage
// of the camera simulator (a 60 Hz display filmed at 1000 fps), each against
// its baseline in the same run:
//   observe (QR + LED per frame)   known region with reuse | known region | whole frame (baseline)
//   decode (video -> grey frames)  raw MJPEG to grey       | VideoCapture BGR + cvtColor (baseline)
//   scan (decode + observe)        2 decoder threads | 1 decoder thread | all on one thread (baseline)
// Rates are per CPU second of the whole process (both threads), which a
// machine shared with other jobs does not distort, and per wall-clock second
// (UseRealTime), which shows what the second core buys on an idle machine.
#include "hashtrace/collectors/camera_sim.hpp"
#include "hashtrace/collectors/frame_observer.hpp"
#include "hashtrace/collectors/frame_source.hpp"
#include "hashtrace/collectors/sim_camera.hpp"
#include "hashtrace/collectors/video_collector.hpp"

#include <benchmark/benchmark.h>

#include <opencv2/imgproc.hpp>

#include <filesystem>
#include <sys/resource.h>
#include <unistd.h>

using namespace hashtrace::collectors;

namespace {

constexpr std::size_t kFrames = 500;  // half a second: ~30 code changes, a PPS edge

struct Footage {
    SimulationConfig config;
    SimulationPlan plan;
    std::vector<cv::Mat> frames;
    std::filesystem::path dir;
    SimulationOutputs files;

    Footage() {
        config.duration_s = static_cast<double>(kFrames) / config.camera_fps;
        config.frame0_start_ns = 1'700'000'000'750'000'000;  // an LED edge a quarter of the way in
        plan = plan_simulation(config);
        SimulatedCamera camera(config, plan);
        frames.resize(plan.frame_start_ns.size());
        for (std::size_t k = 0; k < frames.size(); ++k) camera.render(k, frames[k]);
        dir = std::filesystem::temp_directory_path() / ("hashtrace-bench-video-" + std::to_string(::getpid()));
        files = write_simulation(config, plan, dir);
    }
    ~Footage() {
        std::error_code ignored;
        std::filesystem::remove_all(dir, ignored);
    }
    Region qr_region() const { return {config.qr.x - 20, config.qr.y - 20, config.qr.width + 40, config.qr.height + 40}; }
};

Footage& footage() {
    static Footage f;
    return f;
}

void observe(benchmark::State& state, std::optional<Region> qr, bool reuse) {
    auto& f = footage();
    std::size_t read = 0, frames = 0;
    for (auto _ : state) {
        FrameObserver observer(qr, f.config.led, {.reuse_unchanged = reuse});
        for (const auto& frame : f.frames) read += observer.observe(frame).payload.has_value();
        frames += f.frames.size();
    }
    state.counters["frames_per_s"] = benchmark::Counter(static_cast<double>(frames), benchmark::Counter::kIsRate);
    state.counters["readable_share"] = static_cast<double>(read) / static_cast<double>(frames);
}

void BM_Observe_KnownRegionReuse(benchmark::State& state) { observe(state, footage().qr_region(), true); }
void BM_Observe_KnownRegion(benchmark::State& state) { observe(state, footage().qr_region(), false); }
void BM_Observe_WholeFrame_Baseline(benchmark::State& state) { observe(state, std::nullopt, false); }

void BM_Decode_RawMjpegToGrey(benchmark::State& state) {
    auto& f = footage();
    std::size_t frames = 0;
    cv::Mat grey;
    for (auto _ : state) {
        FrameSource source = FrameSource::open_file(f.files.video);
        while (source.next(grey)) ++frames;
    }
    state.counters["frames_per_s"] = benchmark::Counter(static_cast<double>(frames), benchmark::Counter::kIsRate);
}

void BM_Decode_VideoCaptureBgr_Baseline(benchmark::State& state) {
    auto& f = footage();
    std::size_t frames = 0;
    cv::Mat colour, grey;
    for (auto _ : state) {
        cv::VideoCapture capture(f.files.video.string(), cv::CAP_FFMPEG);
        while (capture.read(colour)) {
            cv::cvtColor(colour, grey, cv::COLOR_BGR2GRAY);
            ++frames;
        }
    }
    state.counters["frames_per_s"] = benchmark::Counter(static_cast<double>(frames), benchmark::Counter::kIsRate);
}

double process_cpu_seconds() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
           static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
}

void scan(benchmark::State& state, unsigned decoder_threads) {
    auto& f = footage();
    VideoScanOptions options;
    options.regions = {f.qr_region(), f.config.led};
    options.decoder_threads = decoder_threads;
    std::size_t frames = 0;
    const double cpu_before = process_cpu_seconds();
    for (auto _ : state) frames += scan_video([&] { return FrameSource::open_file(f.files.video); }, options).frames.size();
    const double cpu = process_cpu_seconds() - cpu_before;
    state.counters["frames_per_wall_s"] = benchmark::Counter(static_cast<double>(frames), benchmark::Counter::kIsRate);
    state.counters["frames_per_process_cpu_s"] = static_cast<double>(frames) / cpu;
}

void BM_Scan_TwoDecoderThreads(benchmark::State& state) { scan(state, 2); }
void BM_Scan_OneDecoderThread(benchmark::State& state) { scan(state, 1); }
void BM_Scan_OneThread_Baseline(benchmark::State& state) { scan(state, 0); }

}  // namespace

BENCHMARK(BM_Observe_KnownRegionReuse)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_Observe_KnownRegion)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_Observe_WholeFrame_Baseline)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_Decode_RawMjpegToGrey)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_Decode_VideoCaptureBgr_Baseline)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_Scan_TwoDecoderThreads)->Unit(benchmark::kMillisecond)->MinTime(2.0)->UseRealTime();
BENCHMARK(BM_Scan_OneDecoderThread)->Unit(benchmark::kMillisecond)->MinTime(2.0)->UseRealTime();
BENCHMARK(BM_Scan_OneThread_Baseline)->Unit(benchmark::kMillisecond)->MinTime(2.0)->UseRealTime();

BENCHMARK_MAIN();
