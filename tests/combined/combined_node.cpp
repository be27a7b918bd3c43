// A node of the combined system that combined_system_test.cpp runs as real
// processes over UDP on loopback: a camera sends frames through a
// pass-through router (a message bus: it forwards each message with its hash
// unchanged) to a detector, whose network thread queues each frame for
// whichever of two worker threads is free; a sender thread sends each
// worker's result on to a tracker (the fan-in), which acknowledges it to the
// camera through the router again. So the clocks close a cycle
// (camera -> router -> detector -> tracker -> router -> camera).
//
//   combined_node router   LOG_DIR PORT_FILE
//   combined_node tracker  LOG_DIR PORT_FILE ROUTER_PORT
//   combined_node detector LOG_DIR ROUTER_PORT TRACKER_PORT WORK_US
//   combined_node camera   LOG_DIR ROUTER_PORT PERIOD_US FRAMES
//
// The router waits for a hello from the camera and the detector, then starts
// the camera. The end is passed along the chain: camera -> router ->
// detector -> tracker -> router -> camera, each stopping once it passed it on.
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
constexpr std::uint64_t kAck = std::uint64_t{1} << 61;  // an acknowledgement's id: its result's, marked
enum Role : std::uint32_t { kCamera = 0, kDetector = 1, kTracker = 2 };

int run_router(const std::string& log_dir, const std::string& port_file) {
    hashtrace::Session tracing(tracing_config("Router", log_dir));
    hashtrace::set_thread_name("router");
    const int fd = bound_socket_with_port_file(port_file);
    sockaddr_in camera{}, detector{};
    for (bool have_camera = false, have_detector = false; !(have_camera && have_detector);) {
        sockaddr_in from{};
        const Datagram d = receive_from(fd, &from);
        if (d.kind != kHello) continue;
        if (d.origin == kCamera) camera = from, have_camera = true;
        if (d.origin == kDetector) detector = from, have_detector = true;
    }
    send_to(fd, camera, Datagram{kStart, 0, 0});
    for (Datagram d; (d = receive_from(fd)).kind != kDone || d.origin != kTracker;) {
        if (d.kind == kDone) {  // the camera's: pass it on
            send_to(fd, detector, d);
            continue;
        }
        if (d.kind != kMessage) continue;
        TRACEPOINT("Receive", hashtrace::inout("msg", d.id));
        TRACEPOINT("Forward", hashtrace::inout("msg", d.id));
        send_to(fd, d.origin == kCamera ? detector : camera, d);
    }
    send_to(fd, camera, Datagram{kDone, kTracker, 0});
    ::close(fd);
    return 0;
}

int run_tracker(const std::string& log_dir, const std::string& port_file, std::uint16_t router_port) {
    hashtrace::Session tracing(tracing_config("Tracker", log_dir));
    hashtrace::set_thread_name("tracker");
    const int fd = bound_socket_with_port_file(port_file);
    const sockaddr_in router = loopback(router_port);
    for (Datagram d; (d = receive_from(fd)).kind != kDone;) {
        if (d.kind != kMessage) continue;
        TRACEPOINT("ResultReceived", hashtrace::inout("msg", d.id));
        const std::uint64_t ack = d.id | kAck;
        TRACEPOINT("Tracked", hashtrace::in("msg", d.id), hashtrace::out("msg", ack));
        TRACEPOINT("AckSent", hashtrace::inout("msg", ack));
        send_to(fd, router, Datagram{kMessage, kTracker, ack});
    }
    send_to(fd, router, Datagram{kDone, kTracker, 0});
    ::close(fd);
    return 0;
}

// The fan-out's detector (detector_node.hpp), with one hash type throughout
// as the router forwards them.
int run_detector(const std::string& log_dir, std::uint16_t router_port, std::uint16_t tracker_port, std::int64_t work_us) {
    hashtrace::Session tracing(tracing_config("Detector", log_dir));
    const int fd = bound_socket(0);
    send_to(fd, loopback(router_port), Datagram{kHello, kDetector, 0});
    detector_loop(fd, loopback(tracker_port), kDetector, work_us, DetectorHashes{"msg", "msg"});
    ::close(fd);
    return 0;
}

int run_camera(const std::string& log_dir, std::uint16_t router_port, std::int64_t period_us, std::uint64_t frames) {
    hashtrace::Session tracing(tracing_config("Camera", log_dir));
    const int fd = bound_socket(0);
    const sockaddr_in router = loopback(router_port);
    send_to(fd, router, Datagram{kHello, kCamera, 0});
    while (receive_from(fd).kind != kStart) {
    }
    std::thread acks([fd] {
        hashtrace::set_thread_name("acks");
        for (Datagram d; (d = receive_from(fd)).kind != kDone;)
            if (d.kind == kMessage) TRACEPOINT("AckReceived", hashtrace::in("msg", d.id), hashtrace::none);
    });
    hashtrace::set_thread_name("camera");
    auto tick = std::chrono::steady_clock::now();
    for (std::uint64_t f = 1; f <= frames; ++f) {
        TRACEPOINT("FrameSent", hashtrace::none, hashtrace::out("msg", f));
        send_to(fd, router, Datagram{kMessage, kCamera, f});
        tick += std::chrono::microseconds(period_us);
        std::this_thread::sleep_until(tick);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // the last frames' results come back
    send_to(fd, router, Datagram{kDone, kCamera, 0});
    acks.join();
    ::close(fd);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        const std::vector<std::string> a(argv + 1, argv + argc);
        const auto port = [](const std::string& s) { return static_cast<std::uint16_t>(std::stoul(s)); };
        if (a.size() == 3 && a[0] == "router") return run_router(a[1], a[2]);
        if (a.size() == 4 && a[0] == "tracker") return run_tracker(a[1], a[2], port(a[3]));
        if (a.size() == 5 && a[0] == "detector") return run_detector(a[1], port(a[2]), port(a[3]), std::stoll(a[4]));
        if (a.size() == 5 && a[0] == "camera") return run_camera(a[1], port(a[2]), std::stoll(a[3]), std::stoull(a[4]));
        std::fprintf(stderr, "usage: combined_node router LOG_DIR PORT_FILE\n"
                             "       combined_node tracker LOG_DIR PORT_FILE ROUTER_PORT\n"
                             "       combined_node detector LOG_DIR ROUTER_PORT TRACKER_PORT WORK_US\n"
                             "       combined_node camera LOG_DIR ROUTER_PORT PERIOD_US FRAMES\n");
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "combined_node: %s\n", e.what());
        return 1;
    }
}
