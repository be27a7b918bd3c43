// A long synthetic run with a known answer (long_run.hpp): the system as data
// (nodes, tracepoints, the links between them), one message's journey
// through it, and the slices that write its samples in time order.
#include "hashtrace/datagen/long_run.hpp"

#include "hashtrace/logio/writer.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <bit>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstring>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string_view>

namespace hashtrace::datagen {
namespace {

namespace fs = std::filesystem;

constexpr std::int64_t kUs = 1'000, kMs = 1'000'000, kSecond = 1'000'000'000;
constexpr std::int64_t kStartNs = 1'700'000'000 * kSecond;  // the run's first tick, in true time
constexpr unsigned kFixedNodes = 5;                          // Source, Router, Workers, Mirror, Sink
constexpr unsigned kMaxNodes = 1000;

// Numbers as text, shortest round trip (for messages); ms: nanoseconds as milliseconds.
std::string number(double v) {
    char buf[32];
    const auto end = std::to_chars(buf, buf + sizeof buf, v).ptr;
    return std::string(buf, end);
}
std::string ms(std::int64_t ns) { return number(static_cast<double>(ns) / 1e6); }

// ---------------------------------------------------------------- randomness

// splitmix64's finaliser: the random numbers and the hash values both come
// from it, so the logs' bytes depend on the seed alone, not on the standard
// library's distributions.
std::uint64_t mix64(std::uint64_t z) {
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

class Random {
public:
    // The clocks, the bursts and the messages each draw from a stream of
    // their own, so that the draws of one do not move the others'.
    enum Stream : std::uint64_t { kMessages = 1, kBursts = 2, kClocks = 3 };
    Random(std::uint64_t seed, Stream stream) : state_(mix64(seed ^ mix64(stream))) {}

    std::uint64_t next() { return mix64(state_ += 0x9E3779B97F4A7C15ull); }
    double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
    double exponential(double mean) { return -mean * std::log1p(-unit()); }
    // Pareto with shape 1.5: heavy enough that the cap is met now and then.
    double pareto(double minimum) { return minimum / std::pow(1.0 - unit(), 1.0 / 1.5); }
    bool chance(double p) { return unit() < p; }

private:
    std::uint64_t state_;
};

// Hash values only need to be equal where the hashed state is equal (docs/
// spec.md section 2 is about real state); a mix of (kind, value) is as
// uniform as MD5 and far cheaper, so the generator is not hash-bound.
// Values stay below 2^48 (the periods do) and kinds below 2^16.
Hash128 state_hash(std::uint32_t kind, std::uint64_t value) {
    const std::uint64_t a = mix64((std::uint64_t{kind} << 48) ^ value), b = mix64(a ^ kind);
    Hash128 h;
    std::memcpy(h.bytes.data(), &a, 8);
    std::memcpy(h.bytes.data() + 8, &b, 8);
    return h;
}

// ---------------------------------------------------------------- delays

// A wait: a floor, an exponential body and, for a share of the draws, a
// Pareto tail, capped so that the longest wait of a run is known before it
// is made (the hash periods and the beyond-margin check depend on it).
struct DelayProfile {
    std::int64_t floor_ns;
    double mean_ns;
    double tail_share;
    double tail_min_ns;
    std::int64_t cap_ns;
};

constexpr DelayProfile kLocalStep{2 * kUs, 8 * kUs, 0.01, 20 * kUs, 200 * kUs};           // within a thread
constexpr DelayProfile kNetworkHop{50 * kUs, 250 * kUs, 0.01, 1 * kMs, 20 * kMs};         // between nodes
constexpr DelayProfile kQueueWait{1 * kUs, 100 * kUs, 0.02, 500 * kUs, 5 * kMs};          // between threads

std::int64_t draw(Random& random, const DelayProfile& p) {
    double wait = static_cast<double>(p.floor_ns) + random.exponential(p.mean_ns);
    if (random.chance(p.tail_share)) wait += random.pareto(p.tail_min_ns);
    return std::min<std::int64_t>(p.cap_ns, std::llround(wait));
}

// ---------------------------------------------------------------- the system

enum Thread : std::uint32_t { kMainThread = 0, kWorker1 = 1, kWorker2 = 2 };

struct TracepointDef {
    std::string name, in_type, out_type;
    std::uint32_t thread = kMainThread;
    std::uint32_t out_kind = 0;  // the hash stream its output belongs to; 0: no output
};

struct NodeDef {
    std::string name, instance;
    std::vector<TracepointDef> tracepoints;
    std::vector<logio::ThreadInfo> threads;
    std::int64_t clock_offset_ns = 0;
};

struct TpRef {
    std::uint32_t node = 0, tp = 0;
};

using LinkId = std::uint32_t;

struct LinkDef {
    TpRef from, to;
    bool message = false;  // crosses a node or thread (docs/spec.md section 5)
    DelayProfile delay;
    bool may_wait_long = false;  // near- and beyond-margin waits are put here
};

struct IntervalDef {
    std::string name, kind;
    TpRef from, to;
};

struct Topology {
    std::vector<NodeDef> nodes;
    std::vector<LinkDef> links;  // in the order a message passes them: each starts where an earlier one ends
    std::vector<IntervalDef> intervals;
    std::uint32_t kinds = 0;     // hash streams handed out

    // The roles one message's journey passes, by name.
    TpRef tick, send, router_receive, forward, note, dispatch, work, mirror, join;
    LinkId tick_tick = 0, tick_send = 0, receive_forward = 0, receive_note = 0, forward_dispatch = 0, forward_mirror = 0,
           dispatch_work = 0, work_join = 0, note_join = 0;
    std::vector<LinkId> pipeline;  // Source/Send -> Stage1/Receive -> Stage1/Send -> ... -> Router/Receive

    const TracepointDef& at(TpRef r) const { return nodes[r.node].tracepoints[r.tp]; }
    std::string label(TpRef r) const { return nodes[r.node].name + "/" + at(r).name; }
    std::size_t tracepoint_count() const {
        std::size_t n = 0;
        for (const auto& node : nodes) n += node.tracepoints.size();
        return n;
    }
};

std::uint32_t add_node(Topology& t, std::string name, std::vector<std::string> thread_names = {"main"}) {
    const auto index = static_cast<std::uint32_t>(t.nodes.size());
    NodeDef node{std::move(name), std::to_string(1000 + index), {}, {}, 0};
    for (std::uint32_t i = 0; i < thread_names.size(); ++i) node.threads.push_back({i, 40'000 + 10 * index + i, thread_names[i]});
    t.nodes.push_back(std::move(node));
    return index;
}

TpRef add_tracepoint(Topology& t, std::uint32_t node, std::string name, std::string in_type, std::string out_type,
                     std::uint32_t thread = kMainThread) {
    auto& tps = t.nodes[node].tracepoints;
    const std::uint32_t kind = out_type.empty() ? 0 : ++t.kinds;
    tps.push_back({std::move(name), std::move(in_type), std::move(out_type), thread, kind});
    return {node, static_cast<std::uint32_t>(tps.size() - 1)};
}

LinkId add_link(Topology& t, TpRef from, TpRef to, const DelayProfile& delay, bool may_wait_long = false) {
    const bool message = from.node != to.node || t.at(from).thread != t.at(to).thread;
    t.links.push_back({from, to, message, delay, may_wait_long});
    return static_cast<LinkId>(t.links.size() - 1);
}

// Source/Send through the stages to Router/Receive: a message hop into each
// node, a local step from its Receive to its Send.
void add_pipeline(Topology& t, unsigned stages) {
    TpRef last = t.send;
    for (unsigned i = 1; i <= stages; ++i) {
        const auto node = add_node(t, "Stage" + std::to_string(i));
        const TpRef receive = add_tracepoint(t, node, "Receive", "messageid", "work");
        const TpRef send = add_tracepoint(t, node, "Send", "work", "messageid");
        t.pipeline.push_back(add_link(t, last, receive, kNetworkHop, true));
        t.pipeline.push_back(add_link(t, receive, send, kLocalStep));
        last = send;
    }
    t.pipeline.push_back(add_link(t, last, t.router_receive, kNetworkHop, true));
}

void add_intervals(Topology& t) {
    t.intervals = {{"tick to send", "process", t.tick, t.send},
                   {"router receive to forward", "process", t.router_receive, t.forward},
                   {"dispatch to work", "process", t.dispatch, t.work},
                   {"send to join", "end_to_end", t.send, t.join},
                   {"send to mirror", "end_to_end", t.send, t.mirror}};
}

void set_clock_offsets(Topology& t, const LongRunOptions& o) {
    Random random(o.seed, Random::kClocks);
    const double max_ns = o.max_clock_offset_ms * 1e6;
    for (auto& node : t.nodes) node.clock_offset_ns = std::llround((2 * random.unit() - 1) * max_ns);
}

// The system of long_run.hpp. Nodes are made in the order the logs are
// listed in the truth; links in the order a message passes them.
Topology make_topology(const LongRunOptions& o) {
    Topology t;
    const auto source = add_node(t, "Source");
    t.tick = add_tracepoint(t, source, "Tick", "loop", "loop");
    t.send = add_tracepoint(t, source, "Send", "loop", "messageid");
    const auto router = add_node(t, "Router");
    t.router_receive = add_tracepoint(t, router, "Receive", "messageid", "route");
    t.forward = add_tracepoint(t, router, "Forward", "route", "messageid");
    t.note = add_tracepoint(t, router, "Note", "route", "result");
    const auto workers = add_node(t, "Workers", {"dispatch", "worker-1", "worker-2"});
    t.dispatch = add_tracepoint(t, workers, "Dispatch", "messageid", "job");
    t.work = add_tracepoint(t, workers, "Work", "job", "result", kWorker1);
    // Fan-in: the worker's result is the hash the router's note announced.
    t.nodes[workers].tracepoints[t.work.tp].out_kind = t.at(t.note).out_kind;
    t.mirror = add_tracepoint(t, add_node(t, "Mirror"), "Receive", "messageid", "");
    t.join = add_tracepoint(t, add_node(t, "Sink"), "Join", "result", "");

    t.tick_tick = add_link(t, t.tick, t.tick, kLocalStep);
    t.tick_send = add_link(t, t.tick, t.send, kLocalStep);
    add_pipeline(t, o.nodes - kFixedNodes);
    t.receive_forward = add_link(t, t.router_receive, t.forward, kLocalStep);
    t.receive_note = add_link(t, t.router_receive, t.note, kLocalStep);
    t.forward_dispatch = add_link(t, t.forward, t.dispatch, kNetworkHop);
    t.forward_mirror = add_link(t, t.forward, t.mirror, kNetworkHop, true);
    t.dispatch_work = add_link(t, t.dispatch, t.work, kQueueWait);
    t.work_join = add_link(t, t.work, t.join, kNetworkHop);
    t.note_join = add_link(t, t.note, t.join, kNetworkHop);
    add_intervals(t);
    set_clock_offsets(t, o);
    return t;
}

std::string render_spec(const Topology& t, const LongRunOptions& o) {
    std::string s = "# A synthetic long run (hashtrace::datagen, " + std::to_string(o.nodes) +
                    " nodes): a pair per link of the system, and its intervals.\n";
    for (const auto& l : t.links) {
        s += "[[pair]]\nfrom = \"" + t.label(l.from) + "\"\nto = \"" + t.label(l.to) + "\"\n";
        if (l.from.node == l.to.node) s += "scope = \"instance\"\n";
    }
    for (const auto& i : t.intervals)
        s += "\n[[interval]]\nname = \"" + i.name + "\"\nfrom = \"" + t.label(i.from) + "\"\nto = \"" + t.label(i.to) + "\"\nkind = \"" +
             i.kind + "\"\n";
    return s;
}

// ---------------------------------------------------------------- time plan

// What the options make of time: the tick period, the hash periods, the
// slices, and the bounds they are chosen from.
struct TimePlan {
    std::uint64_t samples_per_message = 0;
    double period_ns = 0;             // between ticks outside bursts, on average
    std::int64_t shortest_period_ns = 0;
    std::int64_t longest_period_ns = 0;
    std::uint64_t messages = 0;       // 0: until `duration_ns` has passed
    std::int64_t duration_ns = 0;
    std::int64_t slice_ns = 0;
    std::int64_t near_ns = 0, beyond_ns = 0;
    std::int64_t longest_special_ns = 0;   // the longest near- or beyond-margin wait
    std::uint64_t message_id_period = 0, loop_counter_period = 0;
};

constexpr double kBurstFactor = 4;

// How far apart two nodes' clocks can be.
std::int64_t clocks_disagreement_ns(const LongRunOptions& o) { return std::llround(2 * o.max_clock_offset_ms * 1e6); }

// The most a link's wait can be, in true time and as the logs' times say
// (a message hop between nodes also carries the clocks' disagreement).
std::int64_t link_bound(const LinkDef& l, const LongRunOptions& o) {
    return l.delay.cap_ns + (l.from.node != l.to.node ? clocks_disagreement_ns(o) : 0);
}

// The latest a sample can come after `start`, per tracepoint of the
// journey: the links run downstream in their order, so one pass finds
// every longest way. `special` is added to every link that may wait long
// (a message waits long on one at most: a bound from above).
std::int64_t longest_journey(const Topology& t, const LongRunOptions& o, TpRef start, std::int64_t special) {
    std::vector<std::vector<std::int64_t>> latest(t.nodes.size());
    for (std::size_t n = 0; n < t.nodes.size(); ++n) latest[n].assign(t.nodes[n].tracepoints.size(), -1);
    latest[start.node][start.tp] = 0;
    std::int64_t longest = 0;
    for (const auto& l : t.links) {
        const std::int64_t from = latest[l.from.node][l.from.tp];
        if (from < 0 || (l.from.node == l.to.node && l.from.tp == l.to.tp)) continue;
        const std::int64_t to = from + link_bound(l, o) + (l.may_wait_long ? special : 0);
        latest[l.to.node][l.to.tp] = std::max(latest[l.to.node][l.to.tp], to);
        longest = std::max(longest, to);
    }
    return longest;
}

std::uint64_t period_covering(std::int64_t span_ns, std::int64_t shortest_period_ns, std::uint64_t at_least) {
    const auto ticks = static_cast<std::uint64_t>(span_ns / shortest_period_ns) + 2;
    return std::bit_ceil(std::max(ticks, at_least));
}

void check_options(const LongRunOptions& o) {
    auto fail = [](const std::string& why) { throw std::invalid_argument("long run: " + why); };
    if (o.nodes < kFixedNodes || o.nodes > kMaxNodes) fail("nodes must be between 5 and 1000");
    if (!(o.rate_per_s >= 1 && o.rate_per_s <= 1e9)) fail("the rate must be between 1 and 1e9 samples a second");
    if (!(o.seconds >= 0 && o.seconds <= 1e6)) fail("seconds must be between 0 and 1e6");
    if (o.seconds == 0 && o.samples == 0) fail("give a number of samples or of seconds");
    if (!(o.max_clock_offset_ms >= 0 && o.max_clock_offset_ms <= 100)) fail("the clock offset must be between 0 and 100 ms");
    if (!(o.near_margin_ms >= 0 && o.near_margin_ms <= 1e6)) fail("the near margin must be between 0 and 1e6 ms");
    if (!(o.near_margin_fraction >= 0 && o.near_margin_fraction <= 1)) fail("the near-margin fraction must be between 0 and 1");
    if (!(o.beyond_margin_ms >= 0 && o.beyond_margin_ms <= 1e6)) fail("the beyond margin must be between 0 and 1e6 ms");
    if (o.beyond_margin_count > 0 && o.beyond_margin_ms <= 0) fail("beyond-margin messages need a margin (ms)");
}

// A special wait is given as the logs' times say; its true wait must stay
// positive however the two clocks disagree.
void check_special_fits_clocks(std::int64_t wait_ns, const LongRunOptions& o, const char* what) {
    const std::int64_t needed = clocks_disagreement_ns(o) + kNetworkHop.floor_ns;
    if (wait_ns * 98 / 100 <= needed)
        throw std::invalid_argument(std::string("long run: the ") + what + " must exceed " + ms(needed) +
                                    " ms (twice the clock offset and the shortest hop)");
}

// The longest edge that is not injected: a tick period, a link's longest
// wait, or an edge into the join, which waits for the slower of its two
// ways from the router (and the logs' times for it may differ by the
// clocks' disagreement).
std::int64_t ordinary_edge_bound(const Topology& t, const LongRunOptions& o, const TimePlan& p) {
    std::int64_t bound = std::max(p.longest_period_ns, longest_journey(t, o, t.router_receive, 0) + clocks_disagreement_ns(o));
    for (const auto& l : t.links) bound = std::max(bound, link_bound(l, o));
    return bound;
}

TimePlan plan_time(const Topology& t, const LongRunOptions& o) {
    check_options(o);
    TimePlan p;
    p.samples_per_message = t.tracepoint_count();
    p.period_ns = static_cast<double>(p.samples_per_message) * 1e9 / o.rate_per_s;
    p.shortest_period_ns = std::max<std::int64_t>(1, std::llround(p.period_ns * 0.5 / (o.bursts ? kBurstFactor : 1)));
    p.longest_period_ns = std::llround(p.period_ns * 1.5) + 1;
    if (o.seconds > 0) p.duration_ns = std::llround(o.seconds * 1e9);
    else p.messages = (o.samples + p.samples_per_message - 1) / p.samples_per_message;
    // A slice holds about 16k samples, so its buffers stay a few MB at any rate.
    p.slice_ns = std::clamp<std::int64_t>(std::llround(16384 / o.rate_per_s * 1e9), 10 * kUs, 100 * kMs);

    if (o.near_margin_ms > 0) check_special_fits_clocks(p.near_ns = std::llround(o.near_margin_ms * 1e6), o, "near margin");
    if (o.beyond_margin_count > 0) check_special_fits_clocks(p.beyond_ns = std::llround(o.beyond_margin_ms * 1e6), o, "beyond margin");
    p.longest_special_ns = std::max(p.near_ns, p.beyond_ns * 3 / 2 + 1);

    const std::int64_t clocks = clocks_disagreement_ns(o);
    const std::int64_t ordinary = ordinary_edge_bound(t, o, p);
    if (o.beyond_margin_count > 0 && (p.beyond_ns <= ordinary || p.beyond_ns <= p.near_ns))
        throw std::invalid_argument("long run: the beyond margin must exceed every other edge of the run (" +
                                    ms(std::max(ordinary, p.near_ns)) + " ms here)");
    const std::uint64_t fewest_messages = p.messages ? p.messages : static_cast<std::uint64_t>(p.duration_ns / p.longest_period_ns);
    if (o.beyond_margin_count * 2 > fewest_messages)
        throw std::invalid_argument("long run: at most one beyond-margin message in two (" + std::to_string(fewest_messages / 2) + " here)");

    // A hash value comes back only once every consumer of its last use has
    // taken it, whatever the clocks say, so rule 5's latest producer is
    // always the true one.
    p.message_id_period = period_covering(longest_journey(t, o, t.tick, p.longest_special_ns) + clocks, p.shortest_period_ns, 256);
    p.loop_counter_period = period_covering(kLocalStep.cap_ns, p.shortest_period_ns, 256);
    return p;
}

// Once a second of simulated time, 50-200 ms at kBurstFactor times the rate,
// beginning anywhere in the first 0.8 s.
class Bursts {
public:
    explicit Bursts(const LongRunOptions& o) : enabled_(o.bursts), random_(o.seed, Random::kBursts) {}
    // `t` never decreases from call to call.
    bool at(std::int64_t t) {
        if (!enabled_) return false;
        while (t >= cycle_end_) next_cycle();
        return t >= begin_ && t < end_;
    }

private:
    void next_cycle() {
        const std::int64_t cycle = cycle_end_;
        cycle_end_ += kSecond;
        begin_ = cycle + std::llround(random_.unit() * 0.8 * kSecond);
        end_ = begin_ + std::llround((0.05 + 0.15 * random_.unit()) * kSecond);
    }

    bool enabled_;
    Random random_;
    std::int64_t cycle_end_ = kStartNs, begin_ = 0, end_ = 0;
};

// ---------------------------------------------------------------- writing

struct HashRef {
    std::uint32_t kind = 0;  // 0: no hash
    std::uint64_t value = 0;
};

// A sample not yet written: true time; the clock offset is added on writing.
struct Event {
    std::int64_t time;
    std::uint64_t in_value, out_value;
    std::uint32_t in_kind, out_kind;
    std::uint32_t tracepoint, thread;
};

// One node's log: the samples made but not yet written, and the writer.
class NodeLog {
public:
    NodeLog(const fs::path& file, const NodeDef& def) : offset_(def.clock_offset_ns), per_tracepoint_(def.tracepoints.size(), 0) {
        writer_ = logio::open_writer(file, LogFormat::binary, {{"node", def.name}, {"instance", def.instance}, {"clock_source", "synthetic"}});
        for (const auto& tp : def.tracepoints)
            writer_->add_tracepoint({def.name, def.instance, tp.name, tp.in_type, tp.out_type, HashFunction::md5, false});
        for (const auto& th : def.threads) writer_->add_thread(th);
        seq_.assign(def.threads.size(), 0);
    }

    void add(std::int64_t time, std::uint32_t tracepoint, std::uint32_t thread, HashRef in, HashRef out) {
        pending_.push_back({time, in.value, out.value, in.kind, out.kind, tracepoint, thread});
        ++per_tracepoint_[tracepoint];
    }

    // Writes, in time order, the samples before `end` (true time): no sample
    // made later can come before it.
    void write_before(std::int64_t end) {
        const auto ready = std::partition(pending_.begin(), pending_.end(), [end](const Event& e) { return e.time < end; });
        std::sort(pending_.begin(), ready, [](const Event& a, const Event& b) {
            return a.time != b.time ? a.time < b.time : a.tracepoint != b.tracepoint ? a.tracepoint < b.tracepoint : a.thread < b.thread;
        });
        for (auto e = pending_.begin(); e != ready; ++e) write(*e);
        pending_.erase(pending_.begin(), ready);
    }

    void close() { writer_->close(); }
    std::uint64_t samples() const { return written_; }
    std::uint64_t samples_of(std::uint32_t tracepoint) const { return per_tracepoint_[tracepoint]; }
    std::int64_t first_time() const { return first_; }
    std::int64_t last_time() const { return last_; }

private:
    void write(const Event& e) {
        logio::SampleRecord r;
        r.time_ns = e.time + offset_;
        r.tracepoint = e.tracepoint;
        r.thread = e.thread;
        r.seq = seq_[e.thread]++;
        r.flags = logio::SampleRecord::kHasThread | logio::SampleRecord::kHasSeq;
        if (e.in_kind) r.input_hash = state_hash(e.in_kind, e.in_value), r.flags |= logio::SampleRecord::kHasInput;
        if (e.out_kind) r.output_hash = state_hash(e.out_kind, e.out_value), r.flags |= logio::SampleRecord::kHasOutput;
        writer_->write(r);
        if (written_++ == 0) first_ = r.time_ns;
        last_ = r.time_ns;
    }

    std::int64_t offset_;
    std::unique_ptr<logio::LogWriter> writer_;
    std::vector<Event> pending_;
    std::vector<std::uint64_t> seq_;
    std::vector<std::uint64_t> per_tracepoint_;
    std::uint64_t written_ = 0;
    std::int64_t first_ = 0, last_ = 0;
};

std::string log_file_name(const NodeDef& n) { return n.name + "-" + n.instance + file_suffix(LogFormat::binary); }

// Another log in the directory would be analysed with the run and spoil its answer.
void check_directory(const fs::path& dir, const Topology& t) {
    fs::create_directories(dir);
    std::vector<std::string> ours;
    for (const auto& n : t.nodes) ours.push_back(log_file_name(n));
    for (const auto& entry : fs::recursive_directory_iterator(dir)) {
        const auto ext = entry.path().extension();
        if (!entry.is_regular_file() || (ext != ".htlog" && ext != ".csv")) continue;
        if (entry.path().parent_path() == dir && std::find(ours.begin(), ours.end(), entry.path().filename().string()) != ours.end()) continue;
        throw std::invalid_argument("long run: " + dir.string() + " holds another log (" + entry.path().string() +
                                    "), which an analysis of the run would read too; use an empty directory");
    }
}

// A wait on one link of one message, put there on purpose.
struct Special {
    static constexpr LinkId kNone = UINT32_MAX;
    LinkId link = kNone;
    std::int64_t wait_ns = 0;  // as the logs' times say
    bool beyond = false;
};

// Makes the run's messages one after the other, their samples into the
// nodes' logs, and counts what it made.
class RunWriter {
public:
    RunWriter(const fs::path& dir, const LongRunOptions& o, Topology t)
        : dir_(dir), options_(o), top_(std::move(t)), plan_(plan_time(top_, o)), random_(o.seed, Random::kMessages), bursts_(o) {
        check_directory(dir_, top_);
        for (LinkId l = 0; l < top_.links.size(); ++l) {
            const auto& def = top_.links[l];
            truth_.links.push_back({top_.label(def.from), top_.label(def.to), def.message, 0, 0, 0, 0});
            if (def.may_wait_long) may_wait_long_.push_back(l);
        }
        logs_.reserve(top_.nodes.size());
        for (const auto& n : top_.nodes) logs_.emplace_back(dir_ / log_file_name(n), n);
    }

    // A slice ends at the first tick past its length: every sample before
    // that tick is made, since a message's samples come no earlier than its tick.
    LongRunTruth run() {
        std::int64_t t = kStartNs, slice_end = kStartNs + plan_.slice_ns;
        for (std::uint64_t k = 0; !done(k, t); ++k, t += next_period(t)) {
            if (t >= slice_end) {
                for (auto& log : logs_) log.write_before(t);
                slice_end = t + plan_.slice_ns;
            }
            message(k, t);
        }
        for (auto& log : logs_) log.write_before(INT64_MAX), log.close();
        return finish();
    }

private:
    bool done(std::uint64_t k, std::int64_t t) const { return plan_.messages ? k == plan_.messages : t - kStartNs >= plan_.duration_ns; }

    std::int64_t next_period(std::int64_t t) {
        const double base = plan_.period_ns / (bursts_.at(t) ? kBurstFactor : 1);
        return std::max<std::int64_t>(1, std::llround(base * (0.5 + random_.unit())));
    }

    // One message's journey: its tick, the pipeline, the router's fan-out, the
    // workers' queue, and the sink's join of the two ways.
    void message(std::uint64_t k, std::int64_t t) {
        const std::uint64_t id = k % plan_.message_id_period;
        const std::uint64_t loop_in = k % plan_.loop_counter_period, loop_out = (k + 1) % plan_.loop_counter_period;
        const Special special = choose_special(k, t);
        emit(top_.tick, top_.at(top_.tick).thread, t, {top_.at(top_.tick).out_kind, loop_in}, {top_.at(top_.tick).out_kind, loop_out});
        if (k > 0) edge(top_.tick_tick, previous_tick_, t, special);
        else ++truth_.unlinked_inputs;  // the first tick's counter has no producer
        previous_tick_ = t;
        std::int64_t at = step(top_.tick_send, t, loop_out, id, special);
        for (const LinkId l : top_.pipeline) at = step(l, at, id, id, special);
        const std::int64_t forward = step(top_.receive_forward, at, id, id, special);
        const std::int64_t note = step(top_.receive_note, at, id, id, special);
        step(top_.forward_mirror, forward, id, id, special);
        const std::int64_t dispatch = step(top_.forward_dispatch, forward, id, id, special);
        const std::int64_t work = step(top_.dispatch_work, dispatch, id, id, special, random_.chance(0.5) ? kWorker1 : kWorker2);
        join(work, note, id, special);
        ++truth_.messages;
    }

    // The sink joins a result when both its ways have brought it: one
    // sample, two edges (fan-in).
    void join(std::int64_t work, std::int64_t note, std::uint64_t id, const Special& special) {
        const std::int64_t at = std::max(arrival(top_.work_join, work, special), arrival(top_.note_join, note, special));
        edge(top_.work_join, work, at, special);
        edge(top_.note_join, note, at, special);
        emit(top_.join, top_.at(top_.join).thread, at, {top_.at(top_.note).out_kind, id}, {});
    }

    static constexpr std::uint32_t kItsThread = UINT32_MAX;  // the thread its tracepoint is declared on

    // Follows link l from its producer at `from`: the consumer's sample, its
    // edge, and its time.
    std::int64_t step(LinkId l, std::int64_t from, std::uint64_t in_value, std::uint64_t out_value, const Special& special,
                      std::uint32_t thread = kItsThread) {
        const LinkDef& def = top_.links[l];
        const std::int64_t at = arrival(l, from, special);
        edge(l, from, at, special);
        emit(def.to, thread == kItsThread ? top_.at(def.to).thread : thread, at, {top_.at(def.from).out_kind, in_value},
             {top_.at(def.to).out_kind, out_value});
        return at;
    }

    // When the consumer of link l takes a message its producer made at
    // `from` (true times). Across nodes the true wait is the drawn one plus
    // what the consumer's clock is behind, so the logs' times never put a
    // consumer before its producer (linking tolerance 0 links them all).
    std::int64_t arrival(LinkId l, std::int64_t from, const Special& special) {
        const LinkDef& def = top_.links[l];
        const std::int64_t ahead = offset(def.to) - offset(def.from);  // the consumer's clock against the producer's
        if (special.link == l) return from + special.wait_ns - ahead;
        return from + draw(random_, def.delay) + std::max<std::int64_t>(0, -ahead);
    }

    std::int64_t offset(TpRef r) const { return top_.nodes[r.node].clock_offset_ns; }

    void emit(TpRef tp, std::uint32_t thread, std::int64_t t, HashRef in, HashRef out) { logs_[tp.node].add(t, tp.tp, thread, in, out); }

    void edge(LinkId l, std::int64_t from, std::int64_t to, const Special& special) {
        const LinkDef& def = top_.links[l];
        const std::int64_t sent = from + offset(def.from), length = to + offset(def.to) - sent;
        LinkTruth& link = truth_.links[l];
        ++link.edges;
        link.longest_ns = std::max(link.longest_ns, length);
        const bool injected = special.link == l;
        if (injected && special.beyond) {
            ++link.beyond_margin;
            truth_.beyond_margin.push_back({link.from, link.to, sent, length});
            return;
        }
        if (injected) ++link.near_margin;
        truth_.longest_ordinary_edge_ns = std::max(truth_.longest_ordinary_edge_ns, length);
    }

    // Beyond-margin messages fall evenly over the run (by message count, or
    // by time for a run given in seconds); near-margin ones at random.
    Special choose_special(std::uint64_t k, std::int64_t t) {
        Special s;
        if (beyond_due(k, t)) {
            s.link = may_wait_long_[beyond_injected_++ % may_wait_long_.size()];
            s.wait_ns = plan_.beyond_ns + 1 + std::llround(plan_.beyond_ns * (0.05 + 0.45 * random_.unit()));
            s.beyond = true;
        } else if (plan_.near_ns > 0 && random_.chance(options_.near_margin_fraction)) {
            s.link = may_wait_long_[static_cast<std::size_t>(random_.unit() * may_wait_long_.size())];
            s.wait_ns = plan_.near_ns - 1 - std::llround(plan_.near_ns * 0.02 * random_.unit());
        }
        return s;
    }

    bool beyond_due(std::uint64_t k, std::int64_t t) const {
        const std::uint64_t count = options_.beyond_margin_count;
        if (beyond_injected_ >= count) return false;
        // Due when the run's progress passes (injected + 1/2) / count.
        const unsigned __int128 due = 2 * beyond_injected_ + 1;
        if (plan_.messages) return due * plan_.messages <= static_cast<unsigned __int128>(2 * k) * count;
        return due * static_cast<std::uint64_t>(plan_.duration_ns) <= static_cast<unsigned __int128>(2 * (t - kStartNs)) * count;
    }

    LongRunTruth finish() {
        if (beyond_injected_ != options_.beyond_margin_count) throw std::logic_error("long run: beyond-margin messages left over");
        truth_.options = options_;
        truth_.message_id_period = plan_.message_id_period;
        truth_.loop_counter_period = plan_.loop_counter_period;
        truth_.first_time_ns = INT64_MAX;
        truth_.last_time_ns = INT64_MIN;
        for (std::size_t n = 0; n < top_.nodes.size(); ++n) {
            const auto& def = top_.nodes[n];
            const NodeLog& log = logs_[n];
            const std::string file = log_file_name(def);
            truth_.nodes.push_back({def.name, def.instance, file, def.clock_offset_ns, log.samples()});
            truth_.samples += log.samples();
            truth_.bytes += fs::file_size(dir_ / file);
            truth_.first_time_ns = std::min(truth_.first_time_ns, log.first_time());
            truth_.last_time_ns = std::max(truth_.last_time_ns, log.last_time());
        }
        for (const auto& l : truth_.links) (l.message ? truth_.message_edges : truth_.local_edges) += l.edges;
        truth_.edges = truth_.message_edges + truth_.local_edges;
        // Every output is consumed: a journey ends at samples without output
        // (Mirror/Receive, Sink/Join), and the last tick's counter feeds its own Send.
        truth_.unconsumed_outputs = 0;
        // Each `from` sample of the intervals reaches its `to` (one instance):
        // one latency per `from` sample.
        for (const auto& i : top_.intervals)
            truth_.intervals.push_back({i.name, i.kind, top_.label(i.from), top_.label(i.to), logs_[i.from.node].samples_of(i.from.tp)});
        return std::move(truth_);
    }

    fs::path dir_;
    LongRunOptions options_;
    Topology top_;
    TimePlan plan_;
    Random random_;
    Bursts bursts_;
    std::vector<NodeLog> logs_;
    std::vector<LinkId> may_wait_long_;
    std::uint64_t beyond_injected_ = 0;
    std::int64_t previous_tick_ = 0;
    LongRunTruth truth_;
};

void write_text(const fs::path& file, const std::string& text) {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) throw std::runtime_error("long run: cannot write " + file.string());
}

// ---------------------------------------------------------------- JSON

using json = nlohmann::ordered_json;

double ms_value(std::int64_t ns) { return static_cast<double>(ns) / 1e6; }

json interval_json(const IntervalTruth& i) {
    return json{{"name", i.name}, {"kind", i.kind}, {"from", i.from}, {"to", i.to}, {"count", i.count}};
}

json link_json(const LinkTruth& l) {
    return json{{"from", l.from}, {"to", l.to}, {"kind", l.message ? "message" : "local"}, {"edges", l.edges},
                {"near_margin", l.near_margin}, {"beyond_margin", l.beyond_margin}, {"longest_ms", ms_value(l.longest_ns)}};
}

json node_json(const NodeTruth& n) {
    return json{{"node", n.name}, {"instance", n.instance}, {"file", n.file}, {"clock_offset_ns", n.clock_offset_ns}, {"samples", n.samples}};
}

json injection_json(const Injection& i) {
    return json{{"from", i.from}, {"to", i.to}, {"sent_ns", i.sent_ns}, {"latency_ms", ms_value(i.latency_ns)}};
}

json options_json(const LongRunOptions& o) {
    return json{{"samples", o.samples}, {"seconds", o.seconds}, {"nodes", o.nodes}, {"rate_per_s", o.rate_per_s}, {"seed", o.seed},
                {"max_clock_offset_ms", o.max_clock_offset_ms}, {"bursts", o.bursts}, {"near_margin_ms", o.near_margin_ms},
                {"near_margin_fraction", o.near_margin_fraction}, {"beyond_margin_count", o.beyond_margin_count},
                {"beyond_margin_ms", o.beyond_margin_ms}};
}

template <typename T, typename F>
json array_of(const std::vector<T>& items, F&& item) {
    json a = json::array();
    for (const T& x : items) a.push_back(item(x));
    return a;
}

}  // namespace

std::string LongRunTruth::json() const {
    std::uint64_t near = 0;
    for (const auto& l : links) near += l.near_margin;
    const datagen::json j{
        {"samples", samples},
        {"edges", edges},
        {"message_edges", message_edges},
        {"local_edges", local_edges},
        {"unlinked_inputs", unlinked_inputs},
        {"unconsumed_outputs", unconsumed_outputs},
        {"window_s", static_cast<double>(last_time_ns - first_time_ns) / 1e9},
        {"first_time_ns", first_time_ns},
        {"last_time_ns", last_time_ns},
        {"intervals", array_of(intervals, interval_json)},
        {"links", array_of(links, link_json)},
        {"nodes", array_of(nodes, node_json)},
        {"messages", messages},
        {"bytes", bytes},
        {"message_id_period", message_id_period},
        {"loop_counter_period", loop_counter_period},
        {"longest_ordinary_edge_ms", ms_value(longest_ordinary_edge_ns)},
        {"near_margin", {{"ms", options.near_margin_ms}, {"edges", near}}},
        {"beyond_margin", {{"ms", options.beyond_margin_ms}, {"edges", std::uint64_t{beyond_margin.size()}},
                           {"injected", array_of(beyond_margin, injection_json)}}},
        {"options", options_json(options)},
    };
    return j.dump(2, ' ', false, datagen::json::error_handler_t::replace) + "\n";
}

std::string long_run_spec(const LongRunOptions& options) {
    check_options(options);
    return render_spec(make_topology(options), options);
}

LongRunTruth write_long_run(const std::filesystem::path& dir, const LongRunOptions& options) {
    check_options(options);
    Topology topology = make_topology(options);
    const std::string spec = render_spec(topology, options);
    RunWriter writer(dir, options, std::move(topology));
    write_text(dir / "spec.toml", spec);
    LongRunTruth truth = writer.run();
    write_text(dir / "truth.json", truth.json());
    return truth;
}

}  // namespace hashtrace::datagen
