// Intervals and the node latency matrix on random runs, checked against a
// brute-force reference (a depth-first search from every start sample), so
// that the fast reachability code (metrics/src/reach.cpp) can change without
// changing a single result; the edge metrics (M3, M8, M11, M12) likewise,
// against the definitions of docs/spec.md section 5 evaluated edge by edge. The runs have hash reuse, fan-out, fan-in, equal
// times and, with a tolerance, edges that run backwards in time.
#include "../graph/test_logs.hpp"
#include "hashtrace/metrics/analysis.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <map>
#include <mutex>
#include <random>
#include <span>
#include <tuple>

namespace hashtrace::metrics {
namespace {

using graph::SampleIndex;
using graph::testing::CsvLog;

struct RandomRun {
    graph::SampleSet samples;
    graph::AnalysisSpec spec;
    graph::Graph graph;
};

// `equal_times`: many samples share a time (edges between them may run
// backwards in index); otherwise every time is distinct.
RandomRun random_run(std::uint64_t seed, std::int64_t tolerance_ns, bool equal_times) {
    std::mt19937_64 rng(seed);
    auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<std::uint64_t>(n)); };
    const char* nodes[] = {"A", "B", "C", "D"};
    const char* tracepoints[] = {"Loop", "Send", "Recv", "Work"};
    std::vector<CsvLog> logs(8);  // node x instance
    for (int i = 0; i < 700; ++i) {
        const int node = pick(4), instance = pick(2);
        const double t = equal_times ? 100 + pick(300) * 0.001 : 100 + (i * 7919 % 100003) * 1e-6;
        const std::string in = pick(5) ? "h" + std::to_string(pick(40)) : "";
        const std::string out = pick(5) ? "h" + std::to_string(pick(40)) : "";
        logs[node * 2 + instance].row(nodes[node], std::to_string(instance), tracepoints[pick(4)], t, in, out, pick(2));
    }
    std::vector<std::pair<std::string, std::string>> files;
    for (std::size_t f = 0; f < logs.size(); ++f) files.emplace_back("n" + std::to_string(f) + ".csv", logs[f].text());
    RandomRun run;
    run.samples = graph::testing::load(files);
    run.spec = graph::parse_spec(R"(
[[interval]]
name = "loop to work, same node"
from = "A/Loop"
to = "A/Work"
[[interval]]
name = "send to any recv"
from = "*/Send"
to = "*/Recv"
kind = "end_to_end"
[[interval]]
name = "A send to B anything"
from = "A/Send"
to = "B/*"
kind = "end_to_end"
[[interval]]
name = "same target set as the second, other start"
from = "C/Loop"
to = "*/Recv"
[[interval]]
name = "everything to everything"
from = "*/*"
to = "*/*"
[[interval]]
name = "same start as the first, other targets"
from = "A/Loop"
to = "*/Recv"
[[interval]]
name = "same start as the second, overlapping targets"
from = "*/Send"
to = "*/*"
)",
                                 "random.toml");
    graph::LinkOptions link;
    link.tolerance_ns = tolerance_ns;
    run.graph = graph::link(run.samples, run.spec, link);
    return run;
}

// Samples reachable from v by at least one edge, ascending: a depth-first
// search, its marks a stamp per sample so that a search costs what it reaches.
class Reachable {
public:
    Reachable(const graph::Graph& g, std::size_t n) : g_(g), stamp_(n, 0) {}
    const std::vector<SampleIndex>& from(SampleIndex v) {
        ++generation_;
        seen_.clear();
        std::vector<SampleIndex> stack{v};
        while (!stack.empty()) {
            const SampleIndex u = stack.back();
            stack.pop_back();
            for (const graph::Edge& e : g_.out(u))
                if (stamp_[e.to] != generation_) {
                    stamp_[e.to] = generation_;
                    seen_.push_back(e.to);
                    stack.push_back(e.to);
                }
        }
        std::sort(seen_.begin(), seen_.end());
        return seen_;
    }

private:
    const graph::Graph& g_;
    std::vector<std::uint32_t> stamp_;
    std::uint32_t generation_ = 0;
    std::vector<SampleIndex> seen_;
};

double ms(const graph::SampleSet& s, SampleIndex a, SampleIndex b) { return double(s.time_ns[b] - s.time_ns[a]) / 1e6; }

// docs/spec.md section 5: per `from` sample (in time order), per node instance (in id order),
// the earliest reachable `to` sample.
using Observations = std::vector<std::pair<std::int64_t, double>>;  // (the `from` sample's time, ms), sorted

struct ReferenceIntervals {
    std::vector<Summary> summaries;
    std::vector<Observations> observations;
};

ReferenceIntervals reference_intervals(const RandomRun& run) {
    const auto& s = run.samples;
    ReferenceIntervals out;
    Reachable reachable(run.graph, s.size());
    for (const auto& interval : run.spec.intervals) {
        std::vector<double> values;
        Observations observations;
        for (SampleIndex v = 0; v < s.size(); ++v) {
            if (!interval.from.matches(s.tracepoint_of(v).node_name, s.tracepoint_of(v).tracepoint_name)) continue;
            std::map<std::uint32_t, SampleIndex> earliest;  // instance -> sample
            for (SampleIndex c : reachable.from(v))
                if (interval.to.matches(s.tracepoint_of(c).node_name, s.tracepoint_of(c).tracepoint_name))
                    earliest.try_emplace(s.tracepoint_of(c).instance_id, c);
            for (const auto& [instance, c] : earliest) {
                values.push_back(ms(s, v, c));
                observations.emplace_back(s.time_ns[v], values.back());
            }
        }
        std::sort(observations.begin(), observations.end());
        out.summaries.push_back(summarize(std::move(values)));
        out.observations.push_back(std::move(observations));
    }
    return out;
}

// keep_value_times: each value beside its `from` sample's time, in time order.
Observations observations_of(const metrics::IntervalResult& r) {
    EXPECT_EQ(r.from_ns.size(), r.values_ms.size()) << r.name;
    EXPECT_TRUE(std::is_sorted(r.from_ns.begin(), r.from_ns.end())) << r.name;
    Observations out;
    for (std::size_t k = 0; k < r.from_ns.size() && k < r.values_ms.size(); ++k) out.emplace_back(r.from_ns[k], r.values_ms[k]);
    std::sort(out.begin(), out.end());
    return out;
}

using Matrix = std::map<std::pair<std::string, std::string>, std::tuple<std::size_t, double, double>>;  // count, mean, max

Matrix reference_matrix(const RandomRun& run) {
    const auto& s = run.samples;
    std::map<std::pair<std::string, std::string>, std::pair<Moments, double>> cells;
    Reachable reachable(run.graph, s.size());
    for (SampleIndex v = 0; v < s.size(); ++v) {
        if (run.graph.in_degree(v) != 0) continue;
        const auto& seen = reachable.from(v);
        const std::uint32_t x = s.tracepoint_of(v).node_id;
        for (std::uint32_t y = 0; y < s.node_names.size(); ++y) {
            if (y == x) continue;
            for (SampleIndex c : seen)
                if (s.tracepoint_of(c).node_id == y) {
                    auto& [moments, max] = cells[{s.node_names[x], s.node_names[y]}];
                    moments.add(ms(s, v, c));
                    max = moments.n == 1 ? ms(s, v, c) : std::max(max, ms(s, v, c));
                    break;
                }
        }
    }
    Matrix m;
    for (const auto& [key, cell] : cells) m[key] = {cell.first.n, cell.first.mean, cell.second};
    return m;
}

Matrix matrix_of(const AnalysisResult& r) {
    Matrix m;
    for (const auto& cell : r.node_latency) m[{cell.from, cell.to}] = {cell.count, cell.mean_ms, cell.max_ms};
    return m;
}

void expect_same(const Summary& want, const Summary& got, const std::string& name) {
    SCOPED_TRACE(name);
    EXPECT_EQ(want.count, got.count);
    EXPECT_EQ(want.mean, got.mean);
    EXPECT_EQ(want.sd, got.sd);
    EXPECT_EQ(want.jitter, got.jitter);
    EXPECT_EQ(want.min, got.min);
    EXPECT_EQ(want.p50, got.p50);
    EXPECT_EQ(want.p99, got.p99);
    EXPECT_EQ(want.max, got.max);
}

// take_values (what time shards summarise from, without copies): each
// interval's values and times, and M11's values, handed over once each,
// equal to what keep_values kept; nothing kept in the result.
void expect_values_taken(const RandomRun& run, MetricOptions options, const AnalysisResult& kept) {
    std::mutex mutex;
    std::map<std::size_t, std::pair<std::vector<double>, std::vector<std::int64_t>>> taken;
    std::size_t calls = 0;
    options.keep_values = false;
    options.take_values = [&](std::size_t i, std::span<const double> values_ms, std::span<const std::int64_t> from_ns) {
        const std::lock_guard lock(mutex);
        ++calls;
        taken[i] = {{values_ms.begin(), values_ms.end()}, {from_ns.begin(), from_ns.end()}};
    };
    const auto r = analyze(run.samples, run.graph, run.spec, options);
    EXPECT_EQ(calls, kept.intervals.size() + 1);  // each interval and M11 once
    for (std::size_t i = 0; i < kept.intervals.size(); ++i) {
        EXPECT_EQ(taken[i].first, kept.intervals[i].values_ms) << kept.intervals[i].name;
        EXPECT_EQ(taken[i].second, kept.intervals[i].from_ns) << kept.intervals[i].name;
        EXPECT_TRUE(r.intervals[i].values_ms.empty() && r.intervals[i].from_ns.empty());
    }
    EXPECT_EQ(taken[MetricOptions::kM11Values].first, kept.m11_values_ms);
    EXPECT_TRUE(taken[MetricOptions::kM11Values].second.empty());
    EXPECT_TRUE(r.m11_values_ms.empty());
}

// analyze() under each (threads, search budget) gives the brute force's
// intervals and node matrix. Budget 0: forward searches where exact
// (tolerance 0); 1: full passes always.
// With keep_value_times (the time shards' binning), also each value beside its `from` time.
void expect_reference_answers(const RandomRun& run, const ReferenceIntervals& want, const Matrix& want_matrix,
                              std::initializer_list<std::pair<unsigned, unsigned>> configurations) {
    for (auto [threads, budget] : configurations)
        for (bool times : {false, true}) {
            SCOPED_TRACE("threads " + std::to_string(threads) + ", search budget " + std::to_string(budget) + (times ? ", with times" : ""));
            MetricOptions options;
            options.threads = threads;
            options.reach_search_budget = budget;
            options.keep_values = options.keep_value_times = times;
            const auto r = analyze(run.samples, run.graph, run.spec, options);
            ASSERT_EQ(r.intervals.size(), want.summaries.size());
            for (std::size_t i = 0; i < want.summaries.size(); ++i) {
                expect_same(want.summaries[i], r.intervals[i].latency_ms, r.intervals[i].name);
                if (times) EXPECT_EQ(observations_of(r.intervals[i]), want.observations[i]) << r.intervals[i].name;
                else EXPECT_TRUE(r.intervals[i].from_ns.empty());
            }
            EXPECT_EQ(want_matrix, matrix_of(r));
            if (times) expect_values_taken(run, options, r);
        }
}

class RandomRuns : public ::testing::TestWithParam<std::tuple<std::uint64_t, std::int64_t, bool>> {};

TEST_P(RandomRuns, IntervalsAndMatrixMatchBruteForce) {
    const auto [seed, tolerance_ns, equal_times] = GetParam();
    const RandomRun run = random_run(seed, tolerance_ns, equal_times);
    ASSERT_GT(run.graph.edges.size(), 300u);  // a run dense enough to have long paths
    std::size_t backward_in_time = 0, backward_in_index = 0;
    for (const graph::Edge& e : run.graph.edges) {
        backward_in_time += run.samples.time_ns[e.from] > run.samples.time_ns[e.to];
        backward_in_index += e.from > e.to;
    }
    EXPECT_EQ(backward_in_time > 0, tolerance_ns > 0);
    // Distinct times and no tolerance: every edge runs forward, so the forward searches answer (not only the passes).
    if (!equal_times && tolerance_ns == 0) {
        EXPECT_EQ(backward_in_index, 0u);
    }
    const auto want = reference_intervals(run);
    const Matrix want_matrix = reference_matrix(run);
    ASSERT_GT(want_matrix.size(), 0u);
    expect_reference_answers(run, want, want_matrix, {{1u, 0u}, {2u, 0u}, {3u, 0u}, {1u, 1u}, {2u, 1u}});
}

// M3 by its definition: the in-flight count (start <= t < end) evaluated
// afresh, edge by edge, at every time where it can change and on the grid.
TEST_P(RandomRuns, EdgeMetricsMatchBruteForce) {
    const auto [seed, tolerance_ns, equal_times] = GetParam();
    const RandomRun run = random_run(seed, tolerance_ns, equal_times);
    const auto& s = run.samples;
    std::vector<graph::Edge> in_flight;
    std::vector<double> waits;
    double local_sum = 0, message_sum = 0;
    std::size_t local = 0;
    for (const graph::Edge& e : run.graph.edges) {
        const double dt = double(s.time_ns[e.to] - s.time_ns[e.from]);
        if (graph::is_local(s, e)) {
            ++local;
            local_sum += dt;
            continue;
        }
        message_sum += dt;
        waits.push_back(dt / 1e6);
        if (dt > 0) in_flight.push_back(e);
    }
    auto in_flight_at = [&](std::int64_t t) {
        return std::int64_t(std::count_if(in_flight.begin(), in_flight.end(),
                                          [&](const graph::Edge& e) { return s.time_ns[e.from] <= t && t < s.time_ns[e.to]; }));
    };
    const std::int64_t first = s.time_ns.front(), last = s.time_ns.back();
    std::vector<std::int64_t> times{first, last};
    for (const graph::Edge& e : in_flight) times.insert(times.end(), {s.time_ns[e.from], s.time_ns[e.to]});
    std::sort(times.begin(), times.end());
    times.erase(std::unique(times.begin(), times.end()), times.end());
    double integral = 0, integral_sq = 0, max = 0;
    for (std::size_t i = 0; i + 1 < times.size(); ++i) {
        const double count = double(in_flight_at(times[i])), span = double(times[i + 1] - times[i]);
        integral += count * span;
        integral_sq += count * count * span;
        max = std::max(max, count);
    }
    const double window = double(last - first), mean = integral / window;
    const auto period = static_cast<std::int64_t>(std::max(1e6, window / 1e6));  // the default 1 ms grid
    std::vector<double> grid;
    for (std::int64_t t = first; t < last; t = last - t <= period ? last : t + period) grid.push_back(double(in_flight_at(t)));
    ASSERT_GT(in_flight.size(), 100u);
    for (unsigned threads : {1u, 2u, 3u}) {
        SCOPED_TRACE("threads " + std::to_string(threads));
        MetricOptions options;
        options.threads = threads;
        options.keep_values = true;
        const auto r = analyze(s, run.graph, run.spec, options);
        EXPECT_EQ(r.edges, run.graph.edges.size());
        EXPECT_EQ(r.local_edges, local);
        EXPECT_EQ(r.message_edges, waits.size());
        EXPECT_EQ(r.m12, local_sum / message_sum);
        EXPECT_DOUBLE_EQ(r.m8, double(waits.size()) / (window / 1e9));
        expect_same(summarize(waits), r.m11_ms, "M11");
        EXPECT_EQ(r.m11_values_ms, waits);
        EXPECT_NEAR(r.m3.mean, mean, 1e-12 * mean);
        EXPECT_NEAR(r.m3.sd, std::sqrt(integral_sq / window - mean * mean), 1e-9);
        EXPECT_EQ(r.m3.max, max);
        EXPECT_EQ(r.m3.samples, grid);
        // No grid asked for (time shards keep the values, not M3's grid): the same M3 all the same.
        options.m3_sample_period_s = 0;
        const auto no_grid = analyze(s, run.graph, run.spec, options);
        EXPECT_TRUE(no_grid.m3.samples.empty());
        EXPECT_TRUE(no_grid.exact.in_flight_ns == r.exact.in_flight_ns && no_grid.exact.in_flight_sq_ns == r.exact.in_flight_sq_ns);
        EXPECT_EQ(no_grid.m3.max, r.m3.max);
        EXPECT_EQ(no_grid.m11_values_ms, waits);
    }
}

// A run whose chunks (four for one thread) each span several search blocks
// of 16k samples: messages sent behind a wrapping loop counter, received
// and worked on after random delays (overlapping), one in seven lost.
TEST(LongRun, IntervalsAndMatrixMatchBruteForceAcrossBlocks) {
    std::mt19937_64 rng(7);
    CsvLog a, b, c;
    for (int i = 0; i < 24'000; ++i) {
        const double t = 100 + i * 50e-6;
        const std::string loop_out = "l" + std::to_string((i + 1) % 256), id = "m" + std::to_string(i);
        a.row("A", "1", "Loop", t, "l" + std::to_string(i % 256), loop_out);
        a.row("A", "1", "Send", t + 5e-6, loop_out, id);
        if (i % 7 == 0) continue;
        const double received = t + 10e-6 + double(rng() % 500) * 1e-6;
        b.row("B", "1", "Recv", received, id, id);
        c.row("C", "1", "Work", received + double(rng() % 300 + 1) * 1e-6, id, "");
    }
    RandomRun run;
    run.samples = graph::testing::load({{"a.csv", a.text()}, {"b.csv", b.text()}, {"c.csv", c.text()}});
    run.spec = graph::parse_spec(R"(
[[interval]]
name = "send to receipt"
from = "A/Send"
to = "B/Recv"
[[interval]]
name = "send to work"
from = "A/Send"
to = "C/Work"
kind = "end_to_end"
[[interval]]
name = "receipt to work"
from = "B/Recv"
to = "C/Work"
[[interval]]
name = "send to every instance downstream"
from = "A/Send"
to = "*/*"
)",
                                 "long.toml");
    run.graph = graph::link(run.samples, run.spec);
    ASSERT_GT(run.samples.size(), 4u * (1u << 14) * 5 / 4);
    const auto want = reference_intervals(run);
    const Matrix want_matrix = reference_matrix(run);
    EXPECT_EQ(want.summaries[0].count, 24'000u - 24'000u / 7 - 1);
    expect_reference_answers(run, want, want_matrix, {{1u, 0u}, {2u, 0u}, {1u, 1u}});
}

// Edges between samples of equal time can close cycles: each sample has
// one incoming edge, so the searches mark none of them but the start, which
// a cycle reaches again (and then counts as reachable from itself).
TEST(EqualTimeCycles, IntervalsAndMatrixMatchBruteForce) {
    CsvLog a, b;
    for (int i = 0; i < 200; ++i) {
        const double t = 100 + i * 1e-3;
        const std::string id = std::to_string(i);
        a.row("A", "1", "Loop", t, "x" + id, "y" + id);
        b.row("B", "1", "Step", t, "y" + id, i % 3 ? "x" + id : "z" + id);  // two of three close a cycle A -> B -> A
        b.row("B", "1", "Work", t + 1e-4, "z" + id, "");
    }
    RandomRun run;
    run.samples = graph::testing::load({{"a.csv", a.text()}, {"b.csv", b.text()}});
    run.spec = graph::parse_spec(R"(
[[interval]]
name = "loop to loop"
from = "A/Loop"
to = "A/Loop"
[[interval]]
name = "loop to anything"
from = "A/Loop"
to = "*/*"
[[interval]]
name = "step to work"
from = "B/Step"
to = "B/Work"
)",
                                 "cycles.toml");
    run.graph = graph::link(run.samples, run.spec);
    const auto want = reference_intervals(run);
    ASSERT_GT(want.summaries[0].count, 0u);  // the cycles are there
    expect_reference_answers(run, want, reference_matrix(run), {{1u, 0u}, {2u, 0u}, {1u, 1u}});
}

// `rows` samples over `nodes` nodes N0.. (one log each) with tracepoints
// T0.., every time distinct; a sample's input and output hash each present
// with probability 3/4, drawn from `hashes` values.
std::vector<std::pair<std::string, std::string>> random_node_logs(std::uint64_t seed, int nodes, int tracepoints, int rows, int hashes) {
    std::mt19937_64 rng(seed);
    auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<std::uint64_t>(n)); };
    std::vector<CsvLog> logs(static_cast<std::size_t>(nodes));
    for (int i = 0; i < rows; ++i) {
        const int node = pick(nodes);
        const std::string in = pick(4) ? "h" + std::to_string(pick(hashes)) : "", out = pick(4) ? "h" + std::to_string(pick(hashes)) : "";
        logs[static_cast<std::size_t>(node)].row("N" + std::to_string(node), "1", "T" + std::to_string(pick(tracepoints)), 100 + i * 1e-5, in, out);
    }
    std::vector<std::pair<std::string, std::string>> files;
    for (std::size_t f = 0; f < logs.size(); ++f) files.emplace_back("n" + std::to_string(f) + ".csv", logs[f].text());
    return files;
}

// More start sets than one scan of a search block serves (64): every one of
// 81 tracepoints starts an interval of its own, and the matrix starts from
// the roots, so the blocks' starts are found in two groups of questions.
TEST(ManyQuestions, IntervalsAndMatrixMatchBruteForceAcrossGroupsOfStarts) {
    constexpr int kNodes = 9, kTracepoints = 9;
    const auto files = random_node_logs(23, kNodes, kTracepoints, 6000, 300);
    std::string spec;
    for (int node = 0; node < kNodes; ++node)
        for (int t = 0; t < kTracepoints; ++t)
            spec += "[[interval]]\nname = \"N" + std::to_string(node) + "/T" + std::to_string(t) + "\"\nfrom = \"N" + std::to_string(node) + "/T" +
                    std::to_string(t) + "\"\nto = \"*/T" + std::to_string((t + node) % kTracepoints) + "\"\n";
    RandomRun run;
    run.samples = graph::testing::load(files);
    run.spec = graph::parse_spec(spec, "many.toml");
    run.graph = graph::link(run.samples, run.spec);
    ASSERT_EQ(run.samples.tracepoints.size(), std::size_t{kNodes * kTracepoints});
    expect_reference_answers(run, reference_intervals(run), reference_matrix(run), {{1u, 0u}, {2u, 0u}, {1u, 1u}});
}

// Many target classes: the matrix's 70 nodes, and two intervals from the
// same tracepoint to 70 instances each (one question of 140 classes, more
// than a 64-bit word of them, should a search keep its classes as bits).
TEST(ManyClasses, IntervalsAndMatrixMatchBruteForceAcrossWordsOfClasses) {
    constexpr int kNodes = 70, kTracepoints = 3;
    const auto files = random_node_logs(29, kNodes, kTracepoints, 2500, 200);
    RandomRun run;
    run.samples = graph::testing::load(files);
    run.spec = graph::parse_spec(R"(
[[interval]]
name = "T0 to every T1"
from = "*/T0"
to = "*/T1"
[[interval]]
name = "T0 to every T2"
from = "*/T0"
to = "*/T2"
kind = "end_to_end"
)",
                                 "classes.toml");
    run.graph = graph::link(run.samples, run.spec);
    ASSERT_EQ(run.samples.node_names.size(), std::size_t{kNodes});
    // Searches from the roots reach most of this run: a budget large enough
    // that they all finish, besides the automatic one and passes only.
    expect_reference_answers(run, reference_intervals(run), reference_matrix(run), {{1u, 1u << 30}, {2u, 0u}, {1u, 1u}});
}

// A loop chain (Bullet's Simulation steps): each step reaches every later
// step, so a search from a start walks into later starts' searches (the
// case a search that reused later starts' answers would have to get right).
// A step's own work may finish after a later step's (random delays longer
// than a step), so the earliest is sometimes the later step's; some steps
// have no work, some work has no message to C, and two steps share a time.
TEST(LoopChain, IntervalsMatchBruteForceWhereStartsReachLaterStarts) {
    std::mt19937_64 rng(11);
    CsvLog a, c;
    for (int i = 0; i < 1'200; ++i) {
        const double t = 100 + (i - (i == 600)) * 1e-3;  // steps 599 and 600 at the same time
        const std::string loop_out = "l" + std::to_string((i + 1) % 1000);
        a.row("A", "1", "Step", t, "l" + std::to_string(i % 1000), loop_out);
        if (i % 5 == 0) continue;
        const std::string id = "m" + std::to_string(i);
        const double worked = t + double(rng() % 2500 + 1) * 1e-6;
        a.row("A", "1", "Work", worked, loop_out, i % 3 ? id : "");
        if (i % 3) c.row("C", "1", "Recv", worked + double(rng() % 900 + 1) * 1e-6, id, "");
    }
    RandomRun run;
    run.samples = graph::testing::load({{"a.csv", a.text()}, {"c.csv", c.text()}});
    run.spec = graph::parse_spec(R"(
[[interval]]
name = "step to work"
from = "A/Step"
to = "A/Work"
[[interval]]
name = "step to receipt"
from = "A/Step"
to = "C/Recv"
kind = "end_to_end"
[[interval]]
name = "step to every instance downstream"
from = "A/Step"
to = "*/*"
kind = "end_to_end"
)",
                                 "chain.toml");
    run.graph = graph::link(run.samples, run.spec);
    const auto want = reference_intervals(run);
    EXPECT_EQ(want.summaries[0].count, 1'200u);  // every step reaches some work
    expect_reference_answers(run, want, reference_matrix(run), {{1u, 0u}, {2u, 0u}, {3u, 0u}, {1u, 1u}});
}

// Wide frontiers: each send fans out to 40-120 receipts (one hash, many
// consumers), whose work finishes in random order on four instances, so a
// search's frontier grows past the small sorted buffer into a binary heap
// (reach.cpp's Frontier) and shrinks again; the sends overlap in time, and
// some receipts share a time.
TEST(WideFanOut, IntervalsAndMatrixMatchBruteForceThroughFrontiersOfEverySize) {
    std::mt19937_64 rng(13);
    CsvLog a, b, c;
    for (int i = 0; i < 60; ++i) {
        const double t = 100 + i * 2e-3;
        const std::string id = "m" + std::to_string(i);
        a.row("A", "1", "Send", t, "", id);
        const int receipts = 40 + static_cast<int>(rng() % 81);
        for (int k = 0; k < receipts; ++k) {
            const double received = t + double(rng() % 3000 + 1) * 1e-6 * (k % 7 != 0);
            const std::string work = id + "w" + std::to_string(k);
            b.row("B", "1", "Recv", received + 1e-6, id, work);
            c.row("C", std::to_string(rng() % 4), "Work", received + double(rng() % 5000 + 2) * 1e-6, work, "");
        }
    }
    RandomRun run;
    run.samples = graph::testing::load({{"a.csv", a.text()}, {"b.csv", b.text()}, {"c.csv", c.text()}});
    run.spec = graph::parse_spec(R"(
[[interval]]
name = "send to work, per instance"
from = "A/Send"
to = "C/Work"
kind = "end_to_end"
[[interval]]
name = "send to anything"
from = "A/Send"
to = "*/*"
kind = "end_to_end"
)",
                                 "wide.toml");
    run.graph = graph::link(run.samples, run.spec);
    const auto want = reference_intervals(run);
    EXPECT_EQ(want.summaries[0].count, 60u * 4);  // every send reaches work on every instance
    expect_reference_answers(run, want, reference_matrix(run), {{1u, 0u}, {2u, 0u}, {1u, 1u}});
}

// Tolerance 0: every edge runs forward in time; 3 ms: some run backwards.
INSTANTIATE_TEST_SUITE_P(Seeds, RandomRuns,
                         ::testing::Combine(::testing::Values(1u, 2u, 3u), ::testing::Values(std::int64_t{0}, std::int64_t{3'000'000}),
                                            ::testing::Bool()));

}  // namespace
}  // namespace hashtrace::metrics
