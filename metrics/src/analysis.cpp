// The measure stage: edge metrics, then intervals and the node latency matrix
// as reach questions spread over the cores: each answered by forward
// searches from its start samples, or by EarliestReach passes where those
// would not be exact or would wander too far (reach.hpp).
#include "hashtrace/metrics/analysis.hpp"

#include "edge_metrics.hpp"
#include "hashtrace/metrics/reach.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <thread>
#include <tuple>

namespace hashtrace::metrics {
namespace {

using graph::SampleIndex;
using graph::SampleSet;

detail::TracepointSet tracepoints_matching(const SampleSet& s, const graph::Selector& selector) {
    detail::TracepointSet set(s.tracepoints.size());
    for (std::size_t t = 0; t < set.size(); ++t) set[t] = selector.matches(s.tracepoints[t].node_name, s.tracepoints[t].tracepoint_name);
    return set;
}

double ms_between(const SampleSet& s, SampleIndex a, SampleIndex b) { return double(graph::elapsed_ns(s.time_ns[a], s.time_ns[b])) / 1e6; }

// One question: from each start sample, the earliest reachable sample of
// each target class. An interval's classes are the node instances of its
// `to` tracepoints (SPEC 5: the earliest per instance reached); the matrix's
// are the nodes, from every sample without incoming edge.
// Intervals with the same `from` tracepoints share one question (one search
// per start sample serves all of them), each owning a range of its classes.
struct Question {
    bool from_roots = false;                  // the matrix: starts are the samples without incoming edge
    detail::TracepointSet start_tracepoints;  // otherwise the samples of these (for the matrix: set by its starts)
    detail::TargetClasses classes;
    struct Part {
        std::size_t interval;
        std::uint32_t first_class, class_count;
    };
    std::vector<Part> intervals;  // empty for the matrix
};

// The searches take their starts a block of samples at a time (see the chunk tasks below).
constexpr SampleIndex kBlock = 1 << 14;

// Which of a group of questions (at most 64) a sample starts, a bit each:
// by its tracepoint, or (the matrix) by having no incoming edge.
constexpr std::size_t kGroup = 64;
struct StartBits {
    std::vector<std::uint64_t> of_tracepoint;
    std::uint64_t of_roots = 0;

    StartBits(const SampleSet& s, std::span<const Question* const> group) : of_tracepoint(s.tracepoints.size(), 0) {
        for (std::size_t k = 0; k < group.size(); ++k) {
            if (group[k]->from_roots) of_roots |= std::uint64_t{1} << k;
            for (std::size_t t = 0; t < of_tracepoint.size(); ++t)
                if (group[k]->start_tracepoints[t]) of_tracepoint[t] |= std::uint64_t{1} << k;
        }
    }
};

// The samples of [begin, end) that start any question of a group,
// ascending, and the bits of the questions each starts, written to
// `samples` and `bits` (room for end - begin each); returns how many. One
// scan serves the whole group; its starts are then dealt to the questions
// (deal_starts). Every sample is written and the end
// advances only past starts: whether a sample is a start is as good as
// random, and a branch on it would mispredict often.
std::size_t find_starts(const SampleSet& s, const graph::Graph& g, const StartBits& starting, SampleIndex begin, SampleIndex end,
                        SampleIndex* samples, std::uint64_t* bits) {
    const graph::TracepointId* tracepoint = s.tracepoint.data();
    const std::uint32_t* in_offset = g.in_offset.data();
    std::size_t count = 0;
    for (SampleIndex v = begin; v < end; ++v) {
        const std::uint64_t starts = starting.of_tracepoint[tracepoint[v]] | (in_offset[v] == in_offset[v + 1] ? starting.of_roots : 0);
        samples[count] = v;
        bits[count] = starts;
        count += starts != 0;
    }
    return count;
}

// What find_starts found dealt to the group's questions, in one pass: the
// starts of question k, ascending, to starts[k * room ...], counts[k] of
// them (counts zeroed by the caller). A sample mostly starts one question,
// so the loop over its bits runs once, predictably; picking each
// question's starts in a pass of its own over the whole list cost 9
// instructions a start and question (81M on the 4M run).
void deal_starts(std::span<const SampleIndex> samples, const std::uint64_t* bits, std::size_t room, SampleIndex* starts, std::size_t* counts) {
    for (std::size_t i = 0; i < samples.size(); ++i)
        for (std::uint64_t questions = bits[i]; questions != 0; questions &= questions - 1) {
            const auto k = static_cast<std::size_t>(std::countr_zero(questions));
            starts[k * room + counts[k]++] = samples[i];
        }
}

std::vector<SampleIndex> all_starts(const SampleSet& s, const graph::Graph& g, const Question& q) {
    const Question* group[] = {&q};
    const StartBits starting(s, group);
    std::vector<SampleIndex> starts(s.size());
    std::vector<std::uint64_t> bits(kBlock);
    std::size_t count = 0;
    for (SampleIndex block = 0; block < s.size(); block += kBlock)
        count += find_starts(s, g, starting, block, static_cast<SampleIndex>(std::min<std::size_t>(block + kBlock, s.size())), starts.data() + count,
                             bits.data());
    starts.resize(count);
    return starts;
}

// The exact fallback: one EarliestReach pass per class.
std::vector<detail::Reached> answer_by_passes(const SampleSet& s, const Question& q, const std::vector<SampleIndex>& starts,
                                              detail::EarliestReach& reach) {
    std::vector<detail::Reached> out;
    for (std::uint32_t c = 0; c < q.classes.count; ++c) {
        detail::TracepointSet to(s.tracepoints.size());
        for (graph::TracepointId t = 0; t < to.size(); ++t) {
            const auto of_t = q.classes.of(t);
            to[t] = std::find(of_t.begin(), of_t.end(), c) != of_t.end();
        }
        reach.run(q.start_tracepoints, to);
        for (SampleIndex v : starts) {
            if (q.classes.skip_start_class && !q.classes.of(s.tracepoint[v]).empty() && q.classes.of(s.tracepoint[v]).front() == c) continue;
            if (const SampleIndex to_sample = reach.earliest(v); to_sample != detail::kUnreached)
                out.push_back({v, c, graph::elapsed_ns(s.time_ns[v], s.time_ns[to_sample])});
        }
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return std::tie(a.from, a.target_class) < std::tie(b.from, b.target_class); });
    return out;
}

// A question's answer over a range of start samples, in start order: the
// intervals' latencies per part (as the summaries take them, in room the
// caller lays out: at most one per start and class of the part), the
// matrix's reached samples as they are.
struct Answer {
    bool complete = true;  // false where a search gave up: the question is then answered by passes
    std::vector<detail::LatencyBlock> values_ms;  // per part of the question (intervals)
    std::vector<detail::Reached> reached;  // the matrix

    explicit Answer(const Question& q) : values_ms(q.intervals.size()) {}
    void add(const Question& q, const std::vector<std::uint32_t>& part_of_class, std::span<const detail::Reached> found) {
        if (q.from_roots) reached.insert(reached.end(), found.begin(), found.end());
        else
            for (const auto& x : found) detail::AppendLatency{values_ms.data(), part_of_class.data()}(x.from, x.target_class, x.latency_ns);
    }
};

// Per worker: the start samples of one block, and the searches' scratch.
struct Scratch {
    detail::SearchScratch search;
    std::vector<SampleIndex> any_starts, starts;  // of a group of questions, of each question of the group (kBlock each)
    std::vector<std::uint64_t> start_bits;
    std::vector<std::size_t> start_counts;  // of each question of the group
};

// Keep-all mode: every `to` sample reachable from each `from` sample without
// passing through another `to` sample (a path ends at its first `to`).
std::vector<double> all_reachable_latencies(const SampleSet& s, const graph::Graph& g, const std::vector<SampleIndex>& from_samples,
                                            const detail::TracepointSet& to) {
    std::vector<double> values;
    std::vector<std::uint32_t> stamp(s.size(), 0);
    std::vector<SampleIndex> stack;
    std::uint32_t generation = 0;
    for (SampleIndex v : from_samples) {
        ++generation;
        stack.assign(1, v);
        while (!stack.empty()) {
            const SampleIndex u = stack.back();
            stack.pop_back();
            for (const graph::Edge& e : g.out(u)) {
                if (stamp[e.to] == generation) continue;
                stamp[e.to] = generation;
                if (to[s.tracepoint[e.to]]) values.push_back(ms_between(s, v, e.to));
                else stack.push_back(e.to);
            }
        }
    }
    return values;
}

}  // namespace

AnalysisResult analyze(const SampleSet& s, const graph::Graph& g, const graph::AnalysisSpec& spec, const MetricOptions& options) {
    // What linking freed into the page pool (its lists; the hash ids a
    // caller dropped) would stay resident under the metrics' buffers, which
    // come from the heap.
    graph::release_pooled_memory();
    AnalysisResult r;
    r.samples = s.size();
    r.files = s.files.size();
    r.nodes = s.node_names.size();
    r.instances = s.instances.size();
    r.unlinked_inputs = g.unlinked_inputs;
    r.unconsumed_outputs = g.unconsumed_outputs;
    r.dropped_samples = s.dropped_samples;
    for (const auto& f : s.files) {
        r.bad_records += f.report.bad_records;
        r.torn_files += f.report.torn;
    }
    if (s.size() > 0) {
        r.first_time_ns = s.time_ns.front();
        r.last_time_ns = s.time_ns.back();
        r.window_s = double(graph::elapsed_ns(r.first_time_ns, r.last_time_ns)) / 1e9;
    }
    std::vector<detail::TracepointSet> from_sets, to_sets;
    for (const auto& interval : spec.intervals) {
        from_sets.push_back(tracepoints_matching(s, interval.from));
        to_sets.push_back(tracepoints_matching(s, interval.to));
    }

    std::vector<Question> questions;
    std::vector<std::vector<std::vector<std::uint32_t>>> class_lists;  // per question, per tracepoint
    for (std::size_t i = 0; i < spec.intervals.size() && !options.keep_all_targets; ++i) {
        std::size_t k = 0;
        while (k < questions.size() && questions[k].start_tracepoints != from_sets[i]) ++k;
        if (k == questions.size()) {
            questions.push_back(Question{false, from_sets[i], {}, {}});
            class_lists.emplace_back(s.tracepoints.size());
        }
        Question& q = questions[k];
        // One class per node instance of the `to` tracepoints, in instance
        // order: results come out in (from sample, instance) order.
        std::vector<std::uint32_t> instance_class(s.instances.size(), detail::kNoClass);
        for (std::size_t t = 0; t < s.tracepoints.size(); ++t)
            if (to_sets[i][t]) instance_class[s.tracepoints[t].instance_id] = 0;
        Question::Part part{i, q.classes.count, 0};
        for (auto& c : instance_class)
            if (c == 0) c = part.first_class + part.class_count++;
        for (std::size_t t = 0; t < s.tracepoints.size(); ++t)
            if (to_sets[i][t]) class_lists[k][t].push_back(instance_class[s.tracepoints[t].instance_id]);
        q.classes.count += part.class_count;
        q.intervals.push_back(part);
    }
    for (std::size_t k = 0; k < questions.size(); ++k)
        questions[k].classes = detail::TargetClasses::from_lists(class_lists[k], questions[k].classes.count);
    std::optional<Question> matrix;
    if (s.node_names.size() > 1) {
        matrix = Question{true, detail::TracepointSet(s.tracepoints.size()), {}, {}};
        std::vector<std::vector<std::uint32_t>> node_of(s.tracepoints.size());
        for (std::size_t t = 0; t < s.tracepoints.size(); ++t) node_of[t] = {s.tracepoints[t].node_id};
        matrix->classes = detail::TargetClasses::from_lists(node_of, static_cast<std::uint32_t>(s.node_names.size()), true);
    }

    unsigned threads = options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
    // A visit of the search costs about what a pass costs per sample: a
    // question whose searches visit more than two passes' worth is wandering
    // along loop chains, and the passes finish it at a bounded cost.
    const std::size_t budget = options.reach_search_budget ? options.reach_search_budget : std::max<std::size_t>(2 * s.size(), 1u << 16);
    r.intervals.resize(spec.intervals.size());
    auto finish_interval = [&](std::size_t i, std::span<const double> values) {
        IntervalResult& ir = r.intervals[i];
        ir.name = spec.intervals[i].name;
        ir.kind = spec.intervals[i].kind;
        ir.from = spec.intervals[i].from.text();
        ir.to = spec.intervals[i].to.text();
        ir.latency_ms = summarize(values);
    };
    auto finish_matrix = [&](std::span<const Answer> answers) {
        const std::size_t nodes = s.node_names.size();
        std::vector<Moments> cells(nodes * nodes);
        std::vector<double> maxima(nodes * nodes, 0);
        for (const Answer& answer : answers)
            for (const auto& x : answer.reached) {
                const std::size_t cell = s.tracepoint_of(x.from).node_id * nodes + x.target_class;
                const double ms = double(x.latency_ns) / 1e6;
                cells[cell].add(ms);
                maxima[cell] = cells[cell].n == 1 ? ms : std::max(maxima[cell], ms);
            }
        for (std::size_t cell = 0; cell < cells.size(); ++cell)
            if (cells[cell].n > 0)
                r.node_latency.push_back({s.node_names[cell / nodes], s.node_names[cell % nodes], cells[cell].n, cells[cell].mean, maxima[cell]});
    };

    std::vector<Question*> asked;
    if (matrix) asked.push_back(&*matrix);
    for (Question& q : questions) asked.push_back(&q);
    std::vector<StartBits> start_bits;
    for (std::size_t k = 0; k < asked.size(); k += kGroup)
        start_bits.emplace_back(s, std::span<const Question* const>(asked).subspan(k, std::min(kGroup, asked.size() - k)));
    std::vector<std::vector<std::uint32_t>> part_of_class;
    for (const Question* q : asked) {
        part_of_class.emplace_back(q->classes.count);
        for (std::uint32_t p = 0; p < q->intervals.size(); ++p)
            std::fill_n(part_of_class.back().begin() + q->intervals[p].first_class, q->intervals[p].class_count, p);
    }

    using Task = std::function<void(Scratch&)>;
    // Each task writes its own part of the result. The edge metrics go first
    // (the longest); then each chunk's count of start samples (the last
    // lays out the latencies' room); then the questions, answered in chunks
    // of the sample range, each chunk all questions at once, a block of samples at a time
    // (the block's starts and the samples its searches visit stay in cache,
    // and no buffer the size of the run is filled per question); then the
    // summaries, the longest (M11's, usually) first: the last tasks should be
    // short, so that no thread is left alone with one.
    std::vector<Task> tasks;
    std::optional<detail::MessageWaits> waits;
    // The searches run before the edge metrics tell whether some edge runs
    // back in time: they are exact unless one does, which the summaries
    // check before they read an answer.
    bool edges_run_backward_in_time = false;
    std::atomic<bool> edges_measured{false};
    tasks.emplace_back([&](Scratch&) {
        waits = detail::measure_edges(s, g, options, r, edges_run_backward_in_time);
        edges_measured = true;
        edges_measured.notify_all();
    });
    const std::size_t chunk_count = asked.empty() ? 0 : 4 * std::size_t{threads};
    auto chunk_begin = [&](std::size_t c) { return static_cast<SampleIndex>(s.size() * c / chunk_count); };
    std::vector<std::vector<Answer>> answers(asked.size());  // per question, per chunk
    for (std::size_t k = 0; k < asked.size(); ++k) answers[k].assign(chunk_count, Answer(*asked[k]));
    // The latencies' room, one allocation laid out once every chunk's starts
    // are counted: per question part (interval) a region, in which each
    // chunk's block (one latency per start and class of the part) follows
    // the previous chunk's. The chunks write their latencies where the
    // summaries read them, instead of into a vector per chunk and interval
    // that was then copied into another, fresh one (4-6k of the 4M run's 37k
    // page faults). The arena is not advised for 2 MiB pages: they would be
    // touched all at once, beside the edge pass's columns, and lift the
    // run's peak by 7 MiB.
    std::vector<std::size_t> starts_in_chunk(chunk_count * asked.size());  // [chunk][question]
    std::unique_ptr<double[]> arena;
    std::vector<std::vector<std::span<double>>> regions(asked.size());  // per question, per part
    auto lay_out_latencies = [&] {
        std::size_t total = 0;
        for (std::size_t k = 0; k < asked.size(); ++k)
            for (const Question::Part& part : asked[k]->intervals)
                for (std::size_t c = 0; c < chunk_count; ++c) total += starts_in_chunk[c * asked.size() + k] * part.class_count;
        arena = std::make_unique_for_overwrite<double[]>(total);
        double* next = arena.get();
        for (std::size_t k = 0; k < asked.size(); ++k)
            for (std::size_t p = 0; p < asked[k]->intervals.size(); ++p) {
                double* const region = next;
                for (std::size_t c = 0; c < chunk_count; ++c) {
                    answers[k][c].values_ms[p] = {next, 0};
                    next += starts_in_chunk[c * asked.size() + k] * asked[k]->intervals[p].class_count;
                }
                regions[k].emplace_back(region, next);
            }
    };
    std::atomic<std::size_t> chunks_uncounted{chunk_count};
    std::atomic<bool> latencies_laid_out{false};  // set after the layout's writes, which the searches then see
    for (std::size_t c = 0; c < chunk_count; ++c)
        tasks.emplace_back([&, c](Scratch&) {
            std::vector<std::size_t> samples_of(s.tracepoints.size(), 0);
            for (SampleIndex v = chunk_begin(c), end = chunk_begin(c + 1); v < end; ++v) ++samples_of[s.tracepoint[v]];
            for (std::size_t k = 0; k < asked.size(); ++k)
                for (std::size_t t = 0; t < samples_of.size(); ++t)
                    starts_in_chunk[c * asked.size() + k] += asked[k]->start_tracepoints[t] ? samples_of[t] : 0;
            if (chunks_uncounted.fetch_sub(1) == 1) {
                lay_out_latencies();
                latencies_laid_out = true;
                latencies_laid_out.notify_all();
            }
        });
    std::atomic<std::size_t> chunks_pending{chunk_count};
    for (std::size_t c = 0; c < chunk_count; ++c)
        tasks.emplace_back([&, c](Scratch& scratch) {
            const SampleIndex begin = chunk_begin(c), end = chunk_begin(c + 1);
            std::vector<std::size_t> budgets(asked.size(), (budget * (end - begin) + s.size() - 1) / std::max<std::size_t>(s.size(), 1));
            // The counting tasks come before this one: each is done or under way on another thread.
            latencies_laid_out.wait(false);
            const std::size_t group_size = std::min(kGroup, asked.size());
            scratch.any_starts.resize(kBlock);
            scratch.start_bits.resize(kBlock);
            scratch.starts.resize(group_size * kBlock);
            scratch.start_counts.resize(group_size);
            for (SampleIndex block = begin; block < end; block += std::min(kBlock, end - block))
                for (std::size_t k = 0; k < asked.size(); ++k) {
                    if (k % kGroup == 0) {
                        const std::size_t any_starts = find_starts(s, g, start_bits[k / kGroup], block, std::min(block + kBlock, end),
                                                                   scratch.any_starts.data(), scratch.start_bits.data());
                        std::fill(scratch.start_counts.begin(), scratch.start_counts.end(), 0);
                        deal_starts({scratch.any_starts.data(), any_starts}, scratch.start_bits.data(), kBlock, scratch.starts.data(),
                                    scratch.start_counts.data());
                    }
                    Answer& answer = answers[k][c];
                    if (!answer.complete) continue;
                    // The answers go straight where they are read (a search that gives up leaves a part, which the passes replace).
                    const std::span<const SampleIndex> starts{scratch.starts.data() + k % kGroup * kBlock, scratch.start_counts[k % kGroup]};
                    answer.complete = asked[k]->from_roots
                                          ? detail::search_earliest(s, g, starts, asked[k]->classes, budgets[k], scratch.search,
                                                                    detail::AppendReached{answer.reached})
                                          : detail::search_earliest(s, g, starts, asked[k]->classes, budgets[k], scratch.search,
                                                                    detail::AppendLatency{answer.values_ms.data(), part_of_class[k].data()});
                }
            if (chunks_pending.fetch_sub(1) == 1) chunks_pending.notify_all();
        });
    tasks.emplace_back([&](Scratch&) {
        edges_measured.wait(false);
        r.m11_ms = summarize(waits->values());
        if (options.keep_values) r.m11_values_ms.assign(waits->values().begin(), waits->values().end());
        waits.reset();
    });
    // A question some search gave up on, or any question where an edge runs
    // back in time, is answered by passes, once, by the first summary that needs it.
    std::vector<std::once_flag> by_passes(asked.size());
    // The tracepoint graph, which only the passes need (a pass over the
    // edges of its own, instead of a quarter of every run's edge pass
    // collecting it): built by the first question answered by passes.
    std::once_flag tracepoint_graph_built;
    std::optional<detail::TracepointGraph> tracepoint_graph;
    auto answers_of = [&](std::size_t k) -> std::span<Answer> {
        for (std::size_t left; (left = chunks_pending.load()) != 0;) chunks_pending.wait(left);
        edges_measured.wait(false);
        std::call_once(by_passes[k], [&] {
            if (!edges_run_backward_in_time && std::all_of(answers[k].begin(), answers[k].end(), [](const Answer& a) { return a.complete; }))
                return;
            std::call_once(tracepoint_graph_built, [&] { tracepoint_graph.emplace(s, g); });
            Question& q = *asked[k];
            detail::EarliestReach reach(s, g, *tracepoint_graph);
            const std::vector<SampleIndex> starts = all_starts(s, g, q);
            if (q.from_roots)
                for (SampleIndex v : starts) q.start_tracepoints[s.tracepoint[v]] = true;
            answers[k].assign(1, Answer(q));
            for (std::size_t p = 0; p < q.intervals.size(); ++p) answers[k][0].values_ms[p] = {regions[k][p].data(), 0};
            answers[k][0].add(q, part_of_class[k], answer_by_passes(s, q, starts, reach));
        });
        return answers[k];
    };
    for (std::size_t k = 0; k < asked.size(); ++k) {
        if (asked[k]->from_roots)
            tasks.emplace_back([&, k](Scratch&) { finish_matrix(answers_of(k)); });
        for (std::size_t p = 0; p < asked[k]->intervals.size(); ++p)
            tasks.emplace_back([&, k, p](Scratch&) {
                // The chunks' blocks moved down over the gaps between them
                // (starts that reached no target), into one run of values.
                double* const first = regions[k][p].data();
                double* end = first;
                for (const Answer& answer : answers_of(k)) {
                    const detail::LatencyBlock& block = answer.values_ms[p];
                    if (block.data != end) std::copy(block.data, block.data + block.size, end);
                    end += block.size;
                }
                const std::size_t i = asked[k]->intervals[p].interval;
                finish_interval(i, {first, end});
                if (options.keep_values) r.intervals[i].values_ms.assign(first, end);
            });
    }
    for (std::size_t i = 0; i < spec.intervals.size() && options.keep_all_targets; ++i)
        tasks.emplace_back([&, i](Scratch&) {
            const Question from{false, from_sets[i], {}, {}};
            std::vector<double> values = all_reachable_latencies(s, g, all_starts(s, g, from), to_sets[i]);
            finish_interval(i, values);
            if (options.keep_values) r.intervals[i].values_ms = std::move(values);
        });

    threads = static_cast<unsigned>(std::min<std::size_t>(threads, tasks.size()));
    std::atomic<std::size_t> next_task{0};
    auto worker = [&] {
        Scratch scratch;
        for (std::size_t k; (k = next_task.fetch_add(1)) < tasks.size();) tasks[k](scratch);
    };
    {
        std::vector<std::jthread> pool;
        for (unsigned i = 1; i < threads; ++i) pool.emplace_back(worker);
        worker();
    }
    std::sort(r.node_latency.begin(), r.node_latency.end(),
              [](const NodeLatency& a, const NodeLatency& b) { return std::tie(a.from, a.to) < std::tie(b.from, b.to); });
    return r;
}

}  // namespace hashtrace::metrics
