// hashtrace-qr-display: the display node of the paper's case study 3.
//
// Reads message ids (decimal, one per line) on stdin, as the node's network
// thread would receive them, and shows the QR code of the latest one at the
// display's refresh, with a photodiode patch that flips for every new message
// (collectors/include/hashtrace/collectors/display_picture.hpp). Tracepoints
// (node HASHTRACE_NODE, default "Display"):
//   MessageProcessed  inout messageid (uint32)         when a message arrives
//   FrameShown        inout messageid                  after a new code was handed to the screen
//   PatchFlashed      in messageid, out flash (uint64) the same moment: links to the photodiode
//
//   hashtrace-qr-display [--fps 60] [--offscreen DIR] [--frames N]
// --offscreen writes each frame as DIR/frame-NNNNNN.png instead of opening a
// window (tests, headless machines); --frames stops after N frames (else at
// the end of stdin, or Esc/q in the window).
#include "hashtrace/collectors/display_picture.hpp"
#include "hashtrace/hashtrace.hpp"

#include <opencv2/highgui.hpp>
#include <opencv2/imgcodecs.hpp>

#include <atomic>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <thread>

namespace {

struct Options {
    double fps = 60;
    std::string offscreen;
    long long frames = -1;
};

int usage(const char* why) {
    std::fprintf(stderr, "hashtrace-qr-display: %s\nusage: hashtrace-qr-display [--fps F] [--offscreen DIR] [--frames N]\n", why);
    return 2;
}

constexpr std::uint64_t kNoMessage = UINT64_MAX;

// The options, or none after printing the usage (exit status 2).
std::optional<Options> parse_options(int argc, char** argv) {
    const auto fail = [](const char* why) -> std::optional<Options> {
        usage(why);
        return std::nullopt;
    };
    Options options;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (i + 1 >= argc) return fail(("missing value for " + arg).c_str());
        const std::string value = argv[++i];
        try {
            if (arg == "--fps") options.fps = std::stod(value);
            else if (arg == "--offscreen") options.offscreen = value;
            else if (arg == "--frames") options.frames = std::stoll(value);
            else return fail(("unknown option " + arg).c_str());
        } catch (const std::exception&) {
            return fail(("bad value for " + arg + ": " + value).c_str());
        }
    }
    if (!(options.fps > 0)) return fail("--fps must be positive");
    return options;
}

// What the network side hands the render loop, lock-free: the latest id, and
// whether the input has ended.
struct Inbox {
    std::atomic<std::uint64_t> latest{kNoMessage};
    std::atomic<bool> input_done{false};
};

// The network side (thread "input"): each message id on stdin into the inbox,
// a bad line reported and skipped.
void read_message_ids(Inbox& inbox) {
    hashtrace::set_thread_name("input");
    std::string line;
    std::size_t line_number = 0;
    while (std::getline(std::cin, line)) {
        ++line_number;
        std::uint32_t id = 0;
        auto [end, ec] = std::from_chars(line.data(), line.data() + line.size(), id);
        if (ec != std::errc{} || end != line.data() + line.size()) {
            std::fprintf(stderr, "hashtrace-qr-display: stdin:%zu: '%s' is not a message id (uint32)\n", line_number, line.c_str());
            continue;
        }
        TRACEPOINT("MessageProcessed", hashtrace::inout("messageid", id));
        inbox.latest.store(id, std::memory_order_release);
    }
    inbox.input_done.store(true, std::memory_order_release);
}

// The render loop (thread "render"): at each refresh, the latest id's code
// and patch to the window or to a file, and the tracepoints of a new code.
void show_frames(const Options& options, const Inbox& inbox) {
    hashtrace::set_thread_name("render");
    const bool window = options.offscreen.empty();
    if (!window) std::filesystem::create_directories(options.offscreen);
    hashtrace::collectors::DisplayState state;
    const auto period = std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(1.0 / options.fps));
    auto next_refresh = std::chrono::steady_clock::now();
    for (long long frame = 0; options.frames < 0 || frame < options.frames; ++frame) {
        // Input's end is read before the id: the reader stores the last id
        // before it sets input_done, so a frame that sees the end also sees
        // the last id, and the display never stops with it unshown.
        const bool input_ended = inbox.input_done.load(std::memory_order_acquire);
        const std::uint64_t id = inbox.latest.load(std::memory_order_acquire);
        const bool changed = id != kNoMessage && (!state.message_id || *state.message_id != id);
        if (changed) {
            state.message_id = static_cast<std::uint32_t>(id);
            ++state.flash;
        }
        const cv::Mat picture = hashtrace::collectors::render_display(state);
        if (window) {
            cv::imshow("hashtrace display", picture);
            const int key = cv::waitKey(1);  // presents the frame
            if (key == 27 || key == 'q') break;
        } else {
            char name[32];
            std::snprintf(name, sizeof name, "frame-%06lld.png", frame);
            cv::imwrite((std::filesystem::path(options.offscreen) / name).string(), picture);
        }
        if (changed) {
            const std::uint32_t shown = *state.message_id;
            TRACEPOINT("FrameShown", hashtrace::inout("messageid", shown));
            TRACEPOINT("PatchFlashed", hashtrace::in("messageid", shown), hashtrace::out("flash", state.flash));
        }
        if (options.frames < 0 && input_ended && !changed) break;
        next_refresh += period;
        std::this_thread::sleep_until(next_refresh);
    }
}

}  // namespace

int main(int argc, char** argv) {
    const std::optional<Options> options = parse_options(argc, argv);
    if (!options) return 2;

    hashtrace::Config defaults;
    defaults.node_name = "Display";
    hashtrace::Session tracing(hashtrace::Config::from_env(defaults));

    Inbox inbox;
    std::thread reader([&] { read_message_ids(inbox); });
    show_frames(*options, inbox);
    if (reader.joinable()) {
        if (!inbox.input_done.load()) reader.detach();  // still blocked on stdin: the process is ending anyway
        else reader.join();
    }
    return 0;
}
