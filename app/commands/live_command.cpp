// `hashtrace live --spec S`: receives the streams of running nodes, links
// them as they come and serves a page that shows it (docs/live.md).
#include "command.hpp"
#include "hashtrace/graph/spec.hpp"
#include "hashtrace/live/collector.hpp"
#include "hashtrace/live/listener.hpp"
#include "hashtrace/live/page_server.hpp"

#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <thread>

namespace {

constexpr const char* kUsage =
    "usage: hashtrace live --spec FILE [--listen [HOST]:PORT] [--http [HOST]:PORT] [--save DIR] [--window-s N] [options]\n"
    "  Receives the samples nodes stream (HASHTRACE_STREAM=HOST:PORT, Config::stream_to), links them in a\n"
    "  sliding window as `analyze` does, and serves a page that updates several times a second (docs/live.md).\n"
    "  --listen [HOST]:PORT  where nodes connect (default 127.0.0.1:7400)\n"
    "  --http [HOST]:PORT    where the page is served (default 127.0.0.1:7401)\n"
    "                        HOST defaults to 127.0.0.1 (loopback): give another address, e.g. 0.0.0.0,\n"
    "                        only to let other machines in; nothing is authenticated\n"
    "  --save DIR            write every connection's samples as a log in DIR (`analyze DIR` reads them)\n"
    "  --window-s N          the seconds the percentiles and rates cover (default 10)\n"
    "  --margin-ms X         how long a sample waits for late producers before it is counted (default 200)\n"
    "  --tolerance-ms X      the linking tolerance, as analyze's\n"
    "  --max-streams N       connections taken at once (default 64); more are refused\n"
    "  --shed-after-ms X     past its capacity: the most linking work (at its measured speed) one update\n"
    "                        may face; the oldest samples beyond it are shed and counted (default 1000)\n"
    "  --updates-per-s N     page updates a second (default 5)\n";

std::atomic<bool> stop_requested{false};
extern "C" void on_stop(int) { stop_requested = true; }

struct Endpoint {
    std::string host;
    int port = 0;
};

// "[HOST]:PORT" or "PORT"; the host is loopback unless given.
Endpoint endpoint(const std::string& text, const char* option) {
    const auto colon = text.rfind(':');
    const std::string host = colon == std::string::npos || colon == 0 ? "127.0.0.1" : text.substr(0, colon);
    const auto port = hashtrace::cli::parse_number(colon == std::string::npos ? text : text.substr(colon + 1));
    if (!port || *port < 0 || *port > 65535 || *port != std::floor(*port))
        throw hashtrace::cli::UsageError(std::string(option) + " takes [HOST]:PORT, not \"" + text + "\"");
    return {host, static_cast<int>(*port)};
}

std::int64_t ns_of_ms(hashtrace::cli::Args& args, const char* option, double fallback) {
    const double ms = args.number(option, fallback);
    if (!(ms >= 0) || ms > 1e9) throw hashtrace::cli::UsageError(std::string(option) + " must be a number of ms >= 0");
    return std::llround(ms * 1e6);
}

int run_live(hashtrace::cli::Args& args) {
    using namespace hashtrace;
    const auto spec_file = args.option("--spec");
    if (!spec_file) throw cli::UsageError("live needs --spec FILE (the links and intervals to show)");
    const Endpoint listen = endpoint(args.option_or("--listen", "127.0.0.1:7400"), "--listen");
    const Endpoint http = endpoint(args.option_or("--http", "127.0.0.1:7401"), "--http");
    live::CollectorOptions options;
    const double window_s = args.number("--window-s", 10);
    if (!(window_s > 0) || window_s > 3600) throw cli::UsageError("--window-s must be a number of seconds in (0, 3600]");
    options.window_ns = std::llround(window_s * 1e9);
    options.margin_ns = ns_of_ms(args, "--margin-ms", 200);
    options.tolerance_ns = ns_of_ms(args, "--tolerance-ms", 0);
    options.shed_after_ns = ns_of_ms(args, "--shed-after-ms", 1000);
    const long long streams = args.integer("--max-streams", 64);
    if (streams < 1) throw cli::UsageError("--max-streams must be at least 1");
    options.max_streams = static_cast<std::size_t>(streams);
    live::PageOptions page{http.host, http.port, static_cast<int>(args.integer("--updates-per-s", 5)), "."};
    if (page.updates_per_s < 1 || page.updates_per_s > 100) throw cli::UsageError("--updates-per-s must be in [1, 100]");
    if (const auto save = args.option("--save")) {
        options.save_dir = *save;
        std::filesystem::create_directories(options.save_dir);
        page.save_dir = options.save_dir;
    }
    args.finish();

    live::Collector collector(graph::load_spec(*spec_file), options);
    live::StreamListener listener(collector, listen.host, listen.port);
    live::PageServer server(collector, page);
    std::printf("streams: %s:%d\npage: http://%s:%d/\n", listen.host.c_str(), listener.port(), http.host.c_str(), server.port());
    std::fflush(stdout);
    std::signal(SIGINT, on_stop);
    std::signal(SIGTERM, on_stop);
    const auto period = std::chrono::milliseconds(1000 / page.updates_per_s);
    while (!stop_requested) {
        collector.settle();
        std::this_thread::sleep_for(period);
    }
    // The run's end: the margin settled too, and the totals printed for scripts (the page has gone with the server).
    collector.finish();
    std::printf("%s\n", collector.state().dump().c_str());
    return 0;
}

}  // namespace

HASHTRACE_COMMAND("live", "receive the streams of running nodes, link them and show them in a browser", run_live, kUsage);
