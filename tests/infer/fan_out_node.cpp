// A node of the fan-out system that tests/infer/real_system_test.cpp runs as
// real processes over UDP on loopback: a camera sends frames to a detector,
// whose network thread queues each for whichever of two worker threads is
// free; a sender thread sends each worker's result on to a tracker (the
// fan-in). The detector is detector_node.hpp's, its frames and results of
// hash types of their own.
//
//   fan_out_node tracker LOG_DIR PORT_FILE
//   fan_out_node detector LOG_DIR PORT_FILE TRACKER_PORT WORK_US
//   fan_out_node camera LOG_DIR DETECTOR_PORT PERIOD_US FRAMES
//
// Each binds a free port on loopback (the tracker and the detector write
// theirs to PORT_FILE) and ends once the one before it says it is done.
#include "detector_node.hpp"
#include "udp_node.hpp"

#include <hashtrace/hashtrace.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace hashtrace::test;

int run_tracker(const std::string& log_dir, const std::string& port_file) {
    hashtrace::Session tracing(tracing_config("Tracker", log_dir));
    hashtrace::set_thread_name("tracker");
    const int fd = bound_socket_with_port_file(port_file);
    for (Datagram d; (d = receive_from(fd)).kind != kDone;) {
        if (d.kind != kMessage) continue;
        TRACEPOINT("ResultReceived", hashtrace::inout("result", d.id));
        TRACEPOINT("Tracked", hashtrace::in("result", d.id), hashtrace::none);
    }
    ::close(fd);
    return 0;
}

int run_detector(const std::string& log_dir, const std::string& port_file, std::uint16_t tracker_port, std::int64_t work_us) {
    hashtrace::Session tracing(tracing_config("Detector", log_dir));
    const int fd = bound_socket_with_port_file(port_file);
    detector_loop(fd, loopback(tracker_port), 0, work_us, DetectorHashes{"frame", "result"});
    ::close(fd);
    return 0;
}

int run_camera(const std::string& log_dir, std::uint16_t detector_port, std::int64_t period_us, std::uint64_t frames) {
    hashtrace::Session tracing(tracing_config("Camera", log_dir));
    hashtrace::set_thread_name("camera");
    const int fd = bound_socket(0);
    const sockaddr_in detector = loopback(detector_port);
    auto tick = std::chrono::steady_clock::now();
    for (std::uint64_t f = 1; f <= frames; ++f) {
        TRACEPOINT("FrameSent", hashtrace::none, hashtrace::out("frame", f));
        send_to(fd, detector, Datagram{kMessage, 0, f});
        tick += std::chrono::microseconds(period_us);
        std::this_thread::sleep_until(tick);
    }
    send_to(fd, detector, Datagram{kDone, 0, 0});
    ::close(fd);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        const std::vector<std::string> a(argv + 1, argv + argc);
        if (a.size() == 3 && a[0] == "tracker") return run_tracker(a[1], a[2]);
        if (a.size() == 5 && a[0] == "detector")
            return run_detector(a[1], a[2], static_cast<std::uint16_t>(std::stoul(a[3])), std::stoll(a[4]));
        if (a.size() == 5 && a[0] == "camera")
            return run_camera(a[1], static_cast<std::uint16_t>(std::stoul(a[2])), std::stoll(a[3]), std::stoull(a[4]));
        std::fprintf(stderr, "usage: fan_out_node tracker LOG_DIR PORT_FILE\n"
                             "       fan_out_node detector LOG_DIR PORT_FILE TRACKER_PORT WORK_US\n"
                             "       fan_out_node camera LOG_DIR DETECTOR_PORT PERIOD_US FRAMES\n");
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "fan_out_node: %s\n", e.what());
        return 1;
    }
}
