// hashtrace-sample: one process of the sample distributed system. Which one is
// the first argument (haptics, physics, render, router); see options.cpp and
// docs/samples.md. Built twice: hashtrace-sample (traced) and
// hashtrace-sample-notrace (-DHASHTRACE_DISABLE), the overhead baseline.
#include "hashtrace/cli/args.hpp"
#include "loop_body.hpp"
#include "schedule.hpp"

#include <hashtrace/hashtrace.hpp>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <optional>
#include <sys/resource.h>
#include <thread>

namespace hashtrace::samples {

namespace {

using SteadyClock = std::chrono::steady_clock;

std::atomic<bool> g_stop{false};

extern "C" void request_stop(int) { g_stop.store(true, std::memory_order_relaxed); }

// Installed before the tracing session, whose own handlers then chain to this
// one: the SDK flushes the log and, seeing the application handles the
// signal, leaves ending the process to us - after the drain below.
void install_stop_handlers() {
    struct sigaction act {};
    act.sa_handler = request_stop;
    sigemptyset(&act.sa_mask);
    sigaction(SIGINT, &act, nullptr);
    sigaction(SIGTERM, &act, nullptr);
}

SteadyClock::duration seconds(double s) {
    return std::chrono::duration_cast<SteadyClock::duration>(std::chrono::duration<double>(s));
}

bool stop_requested(const NodeOptions& o, SteadyClock::time_point started) {
    if (g_stop.load(std::memory_order_relaxed)) return true;
    return o.duration_s > 0 && SteadyClock::now() - started >= seconds(o.duration_s);
}

double process_cpu_seconds() {
    rusage usage{};
    ::getrusage(RUSAGE_SELF, &usage);
    auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; };
    return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

void report_errors(const char* node, const Network& network) {
    for (const auto& e : network.errors()) std::fprintf(stderr, "%s: %s\n", node, e.c_str());
}

int run_node(const NodeOptions& o) {
    const std::string name(msg::to_string(o.role));
    Inbox inbox;
    NodeLinks links(o.role, inbox);
    Network network(o.role, links);
    network.establish(o);
    network.start_all();
    hashtrace::set_thread_name("loop " + name);

    const auto wait_limit = SteadyClock::now() + seconds(o.connect_timeout_s);
    while (o.wait_start && !links.started() && !g_stop.load() && SteadyClock::now() < wait_limit) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    if (o.wait_start && !links.started() && !g_stop.load()) {
        std::fprintf(stderr, "%s: no start frame from the router within %.0f s\n", name.c_str(), o.connect_timeout_s);
        return 1;
    }

    RunStats stats(name);
    stats.reserve(static_cast<std::size_t>(o.rate_hz * (o.duration_s > 0 ? o.duration_s : 60)));
    NodeContext context{o, network, inbox, stats};
    std::unique_ptr<LoopBody> body = o.role == msg::NodeId::haptics   ? make_haptics(context)
                                     : o.role == msg::NodeId::physics ? make_physics(context)
                                                                      : make_render(context);
    // Absolute deadlines, so the rate does not drift by the work's duration.
    // After an overrun the schedule restarts from now instead of bursting.
    const auto period = seconds(1.0 / o.rate_hz);
    const auto started = SteadyClock::now();
    auto next = started;
    if (o.phase_ms) next = SteadyClock::time_point(std::chrono::nanoseconds(first_deadline_at_phase(
                        std::chrono::duration_cast<std::chrono::nanoseconds>(started.time_since_epoch()).count(), o.rate_hz, *o.phase_ms)));
    auto previous = started;
    std::uint64_t step = 0;
    while (!stop_requested(o, started)) {
        const auto now = SteadyClock::now();
        if (step > 0) stats.loop_period(std::chrono::duration<double, std::milli>(now - previous).count());
        previous = now;
        body->iterate(step++, true);
        next += period;
        if (SteadyClock::now() > next) next = SteadyClock::now();
        std::this_thread::sleep_until(next);
    }
    stats.loop_iterations(step, std::chrono::duration<double>(SteadyClock::now() - started).count());

    // Shutdown without losing messages: stop producing, say goodbye after the
    // outboxes drain, and keep consuming until every peer said goodbye and the
    // inbox is empty.
    network.finish_all();
    const auto drain_limit = SteadyClock::now() + seconds(o.drain_timeout_s);
    while (!(network.all_done() && inbox.size_approx() == 0) && SteadyClock::now() < drain_limit) {
        body->iterate(step++, false);
        std::this_thread::sleep_for(period);
    }
    const bool drained = network.all_done() && inbox.size_approx() == 0;
    network.stop_all();
    report_errors(name.c_str(), network);
    if (!drained) {
        std::fprintf(stderr, "%s: peers did not finish within the %.0f s drain timeout; %zu messages left unread\n",
                     name.c_str(), o.drain_timeout_s, inbox.size_approx());
    }
    stats.process_cpu(process_cpu_seconds());
    if (!o.stats_file.empty()) stats.write(o.stats_file, o.rate_hz);
    return drained && network.errors().empty() ? 0 : 1;
}

int run_router(const NodeOptions& o) {
    RouterLinks links;
    Network network(msg::NodeId::router, links);
    links.route_between(network.connections());
    network.establish(o);
    network.start_all();
    msg::SceneMessage start;
    start.kind = msg::Kind::start;
    start.origin = msg::NodeId::router;
    network.broadcast(start);

    // The router runs until every node said goodbye (they stop first); on a
    // signal it waits at most the drain timeout for them.
    const auto started = SteadyClock::now();
    std::optional<SteadyClock::time_point> give_up;
    while (!network.all_peers_finished()) {
        if (!give_up && stop_requested(o, started)) give_up = SteadyClock::now() + seconds(o.drain_timeout_s);
        if (give_up && SteadyClock::now() > *give_up) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    network.finish_all();
    const auto limit = SteadyClock::now() + seconds(o.drain_timeout_s);
    while (!network.all_done() && SteadyClock::now() < limit) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    const bool drained = network.all_done();
    network.stop_all();
    report_errors("Router", network);
    if (!drained) std::fprintf(stderr, "Router: nodes did not finish within the drain timeout\n");
    std::fprintf(stderr, "Router: forwarded %llu messages\n", static_cast<unsigned long long>(links.forwarded()));
    return drained && network.errors().empty() ? 0 : 1;
}

}  // namespace

}  // namespace hashtrace::samples

int main(int argc, char** argv) {
    using namespace hashtrace::samples;
    const std::vector<std::string> args(argv + 1, argv + argc);
    NodeOptions options;
    try {
        if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
            std::fputs(kNodeUsage, stdout);
            return 0;
        }
        options = parse_node_options(args);
    } catch (const hashtrace::cli::UsageError& e) {
        std::fprintf(stderr, "hashtrace-sample: %s\n%s", e.what(), kNodeUsage);
        return 2;
    }
    install_stop_handlers();
    try {
#ifndef HASHTRACE_DISABLE
        hashtrace::Config config;
        config.node_name = std::string(hashtrace::samples::msg::to_string(options.role));
        hashtrace::Session tracing(hashtrace::Config::from_env(config));
#endif
        return options.role == hashtrace::samples::msg::NodeId::router ? run_router(options) : run_node(options);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "hashtrace-sample %s: %s\n", args[0].c_str(), e.what());
        return 1;
    }
}
