#include "options.hpp"

#include "hashtrace/cli/args.hpp"

#include <string>

namespace hashtrace::samples {

const char* const kNodeUsage =
    "usage: hashtrace-sample ROLE [options]\n"
    "  ROLE                 haptics | physics | render | router\n"
    "  --listen HOST:PORT   accept connections here\n"
    "  --accept N           connections to accept on --listen before starting\n"
    "  --connect HOST:PORT  connect to a peer (mesh) or the router; repeatable\n"
    "  --wait-start         start the loop on the router's start frame (router topology)\n"
    "  --rate HZ            loop rate (haptics 1000, physics 250, render 60)\n"
    "  --phase-ms MS        put the loop's deadlines MS ms past the multiples of its period on the\n"
    "                       monotonic clock, as loops locked to a shared time are, so processes on one\n"
    "                       machine keep a fixed phase from run to run (default: from the start)\n"
    "  --objects N          physics: simulated objects, one transform message each per step (5)\n"
    "  --duration S         stop after S seconds (default: at SIGINT/SIGTERM)\n"
    "  --bug                haptics: read only one message per loop iteration (case study 1's bug)\n"
    "  --extra-work apply=MS  busy CPU for MS ms per message applied (between MessageProcessed and\n"
    "                       SceneGraphUpdated), to check what-if predictions\n"
    "  --stats FILE         write loop rate and message latency figures as JSON at exit\n"
    "  --connect-timeout S  give up connecting after S seconds (20)\n"
    "  --drain-timeout S    at shutdown, wait at most S seconds for peers to finish (10)\n";

double default_rate_hz(msg::NodeId role) noexcept {
    switch (role) {
        case msg::NodeId::haptics: return 1000;
        case msg::NodeId::physics: return 250;
        case msg::NodeId::render: return 60;
        case msg::NodeId::router: return 0;
    }
    return 0;
}

namespace {

// "apply=MS" -> MS; the only stage so far is the loop's per-message apply.
double parse_extra_work(const std::string& text) {
    using cli::UsageError;
    const auto eq = text.find('=');
    if (eq == std::string::npos) throw UsageError("--extra-work '" + text + "': expected STAGE=MS (e.g. apply=0.5)");
    const std::string stage = text.substr(0, eq), amount = text.substr(eq + 1);
    if (stage != "apply") throw UsageError("--extra-work '" + text + "': unknown stage '" + stage + "' (apply)");
    const auto ms = cli::parse_number(amount);
    if (!ms || !(*ms >= 0 && *ms <= 1000)) throw UsageError("--extra-work '" + text + "': MS must be a number of milliseconds in [0, 1000]");
    return *ms;
}

// "MS" -> MS, a phase within the loop's period.
double parse_phase(const std::string& text, double rate_hz) {
    const auto ms = cli::parse_number(text);
    if (!ms || !(*ms >= 0 && *ms * rate_hz < 1000))
        throw cli::UsageError("--phase-ms '" + text + "': must be a number of milliseconds in [0, the loop's period)");
    return *ms;
}

}  // namespace

NodeOptions parse_node_options(const std::vector<std::string>& argv) {
    using cli::UsageError;
    if (argv.empty()) throw UsageError("missing ROLE (haptics, physics, render or router)");
    NodeOptions o;
    if (!msg::parse_node_id(argv[0], o.role)) {
        throw UsageError("unknown ROLE '" + argv[0] + "' (haptics, physics, render or router)");
    }
    cli::Args args(argv[0], std::vector<std::string>(argv.begin() + 1, argv.end()));
    try {
        if (auto l = args.option("--listen")) o.listen = msg::parse_endpoint(*l);
        for (const auto& c : args.option_all("--connect")) o.connect.push_back(msg::parse_endpoint(c));
    } catch (const msg::NetError& e) {
        throw UsageError(e.what());
    }
    o.accept = static_cast<int>(args.integer("--accept", 0));
    o.wait_start = args.flag("--wait-start");
    o.rate_hz = args.number("--rate", default_rate_hz(o.role));
    if (auto phase = args.option("--phase-ms")) o.phase_ms = parse_phase(*phase, o.rate_hz);
    o.objects = static_cast<int>(args.integer("--objects", o.objects));
    o.duration_s = args.number("--duration", 0);
    o.bug = args.flag("--bug");
    for (const auto& work : args.option_all("--extra-work")) o.extra_apply_ms = parse_extra_work(work);
    o.stats_file = args.option_or("--stats", "");
    o.connect_timeout_s = args.number("--connect-timeout", o.connect_timeout_s);
    o.drain_timeout_s = args.number("--drain-timeout", o.drain_timeout_s);
    args.finish();

    if (o.accept < 0) throw UsageError("--accept must be >= 0");
    if (o.accept > 0 && !o.listen) throw UsageError("--accept needs --listen");
    if (o.listen && o.accept == 0) throw UsageError("--listen needs --accept N (how many peers will connect)");
    if (o.accept == 0 && o.connect.empty()) throw UsageError("no peers: give --listen/--accept or --connect");
    if (o.role != msg::NodeId::router && !(o.rate_hz > 0 && o.rate_hz <= 100000)) {
        throw UsageError("--rate must be in (0, 100000] Hz");
    }
    if (o.objects < 1 || o.objects > 1000) throw UsageError("--objects must be 1-1000");
    if (o.duration_s < 0) throw UsageError("--duration must be >= 0");
    if (o.bug && o.role != msg::NodeId::haptics) throw UsageError("--bug is planted in the haptics node only");
    if (o.role == msg::NodeId::router && (o.wait_start || !o.connect.empty())) {
        throw UsageError("the router only listens: use --listen and --accept");
    }
    return o;
}

}  // namespace hashtrace::samples
