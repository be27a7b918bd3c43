// The measure stage: edge metrics, then intervals and the node latency matrix
// as reach questions spread over the cores: each answered by forward
// searches from its start samples, or by EarliestReach passes where those
// would not be exact or would wander too far (reach.hpp).
#include "hashtrace/metrics/analysis.hpp"

#include "edge_metrics.hpp"
#include "hashtrace/graph/parallel.hpp"
#include "hashtrace/metrics/reach.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <tuple>
#include <vector>

namespace hashtrace::metrics {
namespace {

using graph::SampleIndex;
using graph::SampleSet;

TracepointSet tracepoints_matching(const SampleSet& s, const graph::Selector& selector) {
    TracepointSet set(s.tracepoints.size());
    for (std::size_t t = 0; t < set.size(); ++t) set[t] = selector.matches(s.tracepoints[t].node_name, s.tracepoints[t].tracepoint_name);
    return set;
}

double ms_between(const SampleSet& s, SampleIndex a, SampleIndex b) { return double(graph::elapsed_ns(s.time_ns[a], s.time_ns[b])) / 1e6; }

// One question: from each start sample, the earliest reachable sample of
// each target class. An interval's classes are the node instances of its
// `to` tracepoints (docs/spec.md section 5: the earliest per instance reached); the matrix's
// are the nodes, from every sample without incoming edge.
// Intervals with the same `from` tracepoints share one question (one search
// per start sample serves all of them), each owning a range of its classes.
struct Question {
    bool from_roots = false;                  // the matrix: starts are the samples without incoming edge
    TracepointSet start_tracepoints;  // otherwise the samples of these (for the matrix: set by its starts)
    TargetClasses classes;
    struct Part {
        std::size_t interval;
        std::uint32_t first_class, class_count;
    };
    std::vector<Part> intervals;  // empty for the matrix
};

// The searches take their starts a block of samples at a time (Measurement::search_chunk).
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
// so the loop over its bits runs once, predictably, where a pass per
// question over the whole list would read every start once per question.
void deal_starts(std::span<const SampleIndex> samples, const std::uint64_t* bits, std::size_t room, SampleIndex* starts, std::size_t* counts) {
    for (std::size_t i = 0; i < samples.size(); ++i)
        for (std::uint64_t questions = bits[i]; questions != 0; questions &= questions - 1) {
            const auto k = static_cast<std::size_t>(std::countr_zero(questions));
            starts[k * room + counts[k]++] = samples[i];
        }
}

// The samples whose searches a run (or a shard: its share) asks for.
struct StartRange {
    SampleIndex begin, end;
};
StartRange start_range(const SampleSet& s, const MetricOptions& options) {
    if (!options.share) return {0, static_cast<SampleIndex>(s.size())};
    return {options.share->begin, options.share->end};
}

std::vector<SampleIndex> all_starts(const SampleSet& s, const graph::Graph& g, const Question& q, StartRange range) {
    const Question* group[] = {&q};
    const StartBits starting(s, group);
    std::vector<SampleIndex> starts(range.end - range.begin);
    std::vector<std::uint64_t> bits(kBlock);
    std::size_t count = 0;
    for (SampleIndex block = range.begin; block < range.end; block += std::min(kBlock, range.end - block))
        count += find_starts(s, g, starting, block, std::min(block + kBlock, range.end), starts.data() + count, bits.data());
    starts.resize(count);
    return starts;
}

// The exact fallback: one EarliestReach pass per class.
std::vector<Reached> answer_by_passes(const SampleSet& s, const Question& q, const std::vector<SampleIndex>& starts,
                                              EarliestReach& reach) {
    std::vector<Reached> out;
    for (std::uint32_t c = 0; c < q.classes.count; ++c) {
        TracepointSet to(s.tracepoints.size());
        for (graph::TracepointId t = 0; t < to.size(); ++t) {
            const auto of_t = q.classes.of(t);
            to[t] = std::find(of_t.begin(), of_t.end(), c) != of_t.end();
        }
        reach.run(q.start_tracepoints, to);
        for (SampleIndex v : starts) {
            if (q.classes.skip_start_class && !q.classes.of(s.tracepoint[v]).empty() && q.classes.of(s.tracepoint[v]).front() == c) continue;
            if (const SampleIndex to_sample = reach.earliest(v); to_sample != kUnreached)
                out.push_back({v, c, to_sample});
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
    std::vector<LatencyBlock> values_ms;  // per part of the question (intervals)
    std::vector<Reached> reached;  // the matrix

    explicit Answer(const Question& q) : values_ms(q.intervals.size()) {}
    void add(const SampleSet& s, const Question& q, const std::vector<std::uint32_t>& part_of_class, std::span<const Reached> found) {
        if (q.from_roots) reached.insert(reached.end(), found.begin(), found.end());
        else
            for (const auto& x : found) AppendLatency{values_ms.data(), part_of_class.data(), s.time_ns.data()}(x.from, x.target_class, x.to);
    }
};

// Per worker: the start samples of one block, and the searches' scratch.
struct Scratch {
    SearchScratch search;
    std::vector<SampleIndex> any_starts, starts;  // of a group of questions, of each question of the group (kBlock each)
    std::vector<std::uint64_t> start_bits;
    std::vector<std::size_t> start_counts;  // of each question of the group
};

// Keep-all mode: every `to` sample reachable from each `from` sample without
// passing through another `to` sample (a path ends at its first `to`).
std::vector<double> all_reachable_latencies(const SampleSet& s, const graph::Graph& g, const std::vector<SampleIndex>& from_samples,
                                            const TracepointSet& to) {
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

// The run's counts and window, which need no walk of the graph.
void count_run(const SampleSet& s, const graph::Graph& g, AnalysisResult& r) {
    r.samples = s.size();
    r.files = s.files.size();
    r.nodes = s.node_names.size();
    r.instances = s.instances.size();
    r.unlinked_inputs = g.unlinked_inputs;
    r.unconsumed_outputs = g.unconsumed_outputs;
    for (const auto& f : s.files) add_input_health(r, f.path, f.report);
    if (s.size() > 0) {
        r.first_time_ns = s.time_ns.front();
        r.last_time_ns = s.time_ns.back();
        r.window_s = double(graph::elapsed_ns(r.first_time_ns, r.last_time_ns)) / 1e9;
    }
}

// The intervals' questions: one per distinct set of `from` tracepoints, each
// interval a part of it with one class per node instance of its `to`
// tracepoints, in instance order (results come out in (from sample,
// instance) order).
std::vector<Question> interval_questions(const SampleSet& s, const std::vector<TracepointSet>& from_sets,
                                         const std::vector<TracepointSet>& to_sets) {
    std::vector<Question> questions;
    std::vector<std::vector<std::vector<std::uint32_t>>> class_lists;  // per question, per tracepoint
    for (std::size_t i = 0; i < from_sets.size(); ++i) {
        std::size_t k = 0;
        while (k < questions.size() && questions[k].start_tracepoints != from_sets[i]) ++k;
        if (k == questions.size()) {
            questions.push_back(Question{false, from_sets[i], {}, {}});
            class_lists.emplace_back(s.tracepoints.size());
        }
        Question& q = questions[k];
        std::vector<std::uint32_t> instance_class(s.instances.size(), kNoClass);
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
        questions[k].classes = TargetClasses::from_lists(class_lists[k], questions[k].classes.count);
    return questions;
}

// The node latency matrix's question, for a run of more than one node.
std::optional<Question> matrix_question(const SampleSet& s) {
    if (s.node_names.size() <= 1) return std::nullopt;
    Question matrix{true, TracepointSet(s.tracepoints.size()), {}, {}};
    std::vector<std::vector<std::uint32_t>> node_of(s.tracepoints.size());
    for (std::size_t t = 0; t < s.tracepoints.size(); ++t) node_of[t] = {s.tracepoints[t].node_id};
    matrix.classes = TargetClasses::from_lists(node_of, static_cast<std::uint32_t>(s.node_names.size()), true);
    return matrix;
}

// The measure stage as tasks spread over the cores, each writing its own
// part of the result. The edge metrics go first (the longest); then each
// chunk's count of start samples (the last lays out the latencies' room);
// then the questions, answered in chunks of the sample range, each chunk all
// questions at once, a block of samples at a time (the block's starts and
// the samples its searches visit stay in cache, and no buffer the size of
// the run is filled per question); then the summaries, the longest (M11's,
// usually) first: the last tasks should be short, so that no thread is left
// alone with one. A task waits only for tasks before it, which have started.
class Measurement {
public:
    Measurement(const SampleSet& s, const graph::Graph& g, const graph::AnalysisSpec& spec, const MetricOptions& options, AnalysisResult& r,
                std::vector<Question> questions, std::optional<Question> matrix, unsigned threads)
        : s_(s), g_(g), spec_(spec), options_(options), r_(r), questions_(std::move(questions)), matrix_(std::move(matrix)),
          starts_(start_range(s, options)) {
        if (matrix_) asked_.push_back(&*matrix_);
        for (Question& q : questions_) asked_.push_back(&q);
        for (std::size_t k = 0; k < asked_.size(); k += kGroup)
            start_bits_.emplace_back(s, std::span<const Question* const>(asked_).subspan(k, std::min(kGroup, asked_.size() - k)));
        for (const Question* q : asked_) {
            part_of_class_.emplace_back(q->classes.count);
            for (std::uint32_t p = 0; p < q->intervals.size(); ++p)
                std::fill_n(part_of_class_.back().begin() + q->intervals[p].first_class, q->intervals[p].class_count, p);
        }
        chunk_count_ = asked_.empty() ? 0 : 4 * std::size_t{threads};
        answers_.resize(asked_.size());
        for (std::size_t k = 0; k < asked_.size(); ++k) answers_[k].assign(chunk_count_, Answer(*asked_[k]));
        starts_in_chunk_.resize(chunk_count_ * asked_.size());
        regions_.resize(asked_.size());
        chunks_uncounted_ = chunk_count_;
        chunks_pending_ = chunk_count_;
        by_passes_ = std::vector<std::once_flag>(asked_.size());
    }

    // Runs the questions' tasks, then the keep-all intervals' (`from_sets`,
    // `to_sets`: of every interval) when the options ask for them.
    void run(unsigned threads, const std::vector<TracepointSet>& from_sets, const std::vector<TracepointSet>& to_sets) {
        add_edge_task();
        add_counting_tasks();
        add_search_tasks();
        add_summary_tasks();
        if (options_.keep_all_targets) add_keep_all_tasks(from_sets, to_sets);
        threads = static_cast<unsigned>(std::min<std::size_t>(threads, tasks_.size()));
        std::vector<Scratch> scratch(threads);
        graph::parallel::for_each(tasks_.size(), threads, [&](std::size_t k, unsigned worker) { tasks_[k](scratch[worker]); });
    }

private:
    using Task = std::function<void(Scratch&)>;

    SampleIndex chunk_begin(std::size_t c) const {
        return starts_.begin + static_cast<SampleIndex>(std::size_t{starts_.end - starts_.begin} * c / chunk_count_);
    }

    // The searches run before the edge metrics tell whether some edge runs
    // back in time: they are exact unless one does, which the summaries
    // check before they read an answer.
    void add_edge_task() {
        tasks_.emplace_back([this](Scratch&) {
            waits_ = detail::measure_edges(s_, g_, options_, r_, edges_run_backward_in_time_);
            edges_measured_ = true;
            edges_measured_.notify_all();
        });
    }

    void add_counting_tasks() {
        for (std::size_t c = 0; c < chunk_count_; ++c)
            tasks_.emplace_back([this, c](Scratch&) {
                std::vector<std::size_t> samples_of(s_.tracepoints.size(), 0);
                for (SampleIndex v = chunk_begin(c), end = chunk_begin(c + 1); v < end; ++v) ++samples_of[s_.tracepoint[v]];
                for (std::size_t k = 0; k < asked_.size(); ++k)
                    for (std::size_t t = 0; t < samples_of.size(); ++t)
                        starts_in_chunk_[c * asked_.size() + k] += asked_[k]->start_tracepoints[t] ? samples_of[t] : 0;
                if (chunks_uncounted_.fetch_sub(1) == 1) {
                    lay_out_latencies();
                    latencies_laid_out_ = true;
                    latencies_laid_out_.notify_all();
                }
            });
    }

    // The latencies' room, one allocation laid out once every chunk's starts
    // are counted: per question part (interval) a region, in which each
    // chunk's block (one latency per start and class of the part) follows
    // the previous chunk's. The chunks write their latencies where the
    // summaries read them, with no copy between. The arena is not advised
    // for 2 MiB pages: they would be touched all at once, beside the edge
    // pass's columns, and lift the run's peak.
    void lay_out_latencies() {
        std::size_t total = 0;
        for (std::size_t k = 0; k < asked_.size(); ++k)
            for (const Question::Part& part : asked_[k]->intervals)
                for (std::size_t c = 0; c < chunk_count_; ++c) total += starts_in_chunk_[c * asked_.size() + k] * part.class_count;
        arena_ = std::make_unique_for_overwrite<double[]>(total);
        if (options_.keep_value_times) time_arena_ = std::make_unique_for_overwrite<std::int64_t[]>(total);
        double* next = arena_.get();
        for (std::size_t k = 0; k < asked_.size(); ++k)
            for (std::size_t p = 0; p < asked_[k]->intervals.size(); ++p) {
                double* const region = next;
                for (std::size_t c = 0; c < chunk_count_; ++c) {
                    answers_[k][c].values_ms[p] = {next, 0, times_beside(next)};
                    next += starts_in_chunk_[c * asked_.size() + k] * asked_[k]->intervals[p].class_count;
                }
                regions_[k].emplace_back(region, next);
            }
    }

    // Where the `from` time of the latency at `value` goes (keep_value_times), else nowhere.
    std::int64_t* times_beside(const double* value) const {
        return time_arena_ ? time_arena_.get() + (value - arena_.get()) : nullptr;
    }

    // A visit of the search costs about what a pass costs per sample: a
    // question whose searches visit more than two passes' worth is wandering
    // along loop chains, and the passes finish it at a bounded cost.
    void add_search_tasks() {
        const std::size_t budget = options_.reach_search_budget ? options_.reach_search_budget : std::max<std::size_t>(2 * s_.size(), 1u << 16);
        for (std::size_t c = 0; c < chunk_count_; ++c)
            tasks_.emplace_back([this, c, budget](Scratch& scratch) { search_chunk(c, budget, scratch); });
    }

    void search_chunk(std::size_t c, std::size_t budget, Scratch& scratch) {
        const SampleIndex begin = chunk_begin(c), end = chunk_begin(c + 1);
        std::vector<std::size_t> budgets(asked_.size(), (budget * (end - begin) + s_.size() - 1) / std::max<std::size_t>(s_.size(), 1));
        // The counting tasks come before this one: each is done or under way on another thread.
        latencies_laid_out_.wait(false);
        const std::size_t group_size = std::min(kGroup, asked_.size());
        scratch.any_starts.resize(kBlock);
        scratch.start_bits.resize(kBlock);
        scratch.starts.resize(group_size * kBlock);
        scratch.start_counts.resize(group_size);
        for (SampleIndex block = begin; block < end; block += std::min(kBlock, end - block))
            for (std::size_t k = 0; k < asked_.size(); ++k) {
                if (k % kGroup == 0) {
                    const std::size_t any_starts = find_starts(s_, g_, start_bits_[k / kGroup], block, std::min(block + kBlock, end),
                                                               scratch.any_starts.data(), scratch.start_bits.data());
                    std::fill(scratch.start_counts.begin(), scratch.start_counts.end(), 0);
                    deal_starts({scratch.any_starts.data(), any_starts}, scratch.start_bits.data(), kBlock, scratch.starts.data(),
                                scratch.start_counts.data());
                }
                Answer& answer = answers_[k][c];
                if (!answer.complete) continue;
                // The answers go straight where they are read (a search that gives up leaves a part, which the passes replace).
                const std::span<const SampleIndex> starts{scratch.starts.data() + k % kGroup * kBlock, scratch.start_counts[k % kGroup]};
                answer.complete = asked_[k]->from_roots
                                      ? search_earliest(s_, g_, starts, asked_[k]->classes, budgets[k], scratch.search,
                                                                AppendReached{answer.reached})
                                      : search_earliest(s_, g_, starts, asked_[k]->classes, budgets[k], scratch.search,
                                                                AppendLatency{answer.values_ms.data(), part_of_class_[k].data(), s_.time_ns.data()});
            }
        if (chunks_pending_.fetch_sub(1) == 1) chunks_pending_.notify_all();
    }

    void add_summary_tasks() {
        tasks_.emplace_back([this](Scratch&) {
            edges_measured_.wait(false);
            if (options_.summarize_values) r_.m11_ms = summarize(waits_->values());
            if (options_.keep_values) r_.m11_values_ms.assign(waits_->values().begin(), waits_->values().end());
            if (options_.take_values) options_.take_values(MetricOptions::kM11Values, waits_->values(), {});
            waits_.reset();
        });
        for (std::size_t k = 0; k < asked_.size(); ++k) {
            if (asked_[k]->from_roots) tasks_.emplace_back([this, k](Scratch&) { finish_matrix(answers_of(k)); });
            for (std::size_t p = 0; p < asked_[k]->intervals.size(); ++p)
                tasks_.emplace_back([this, k, p](Scratch&) {
                    // The chunks' blocks moved down over the gaps between them
                    // (starts that reached no target), into one run of values.
                    double* const first = regions_[k][p].data();
                    double* end = first;
                    for (const Answer& answer : answers_of(k)) {
                        const LatencyBlock& block = answer.values_ms[p];
                        if (block.data != end) {
                            std::copy(block.data, block.data + block.size, end);
                            if (block.from_ns) std::copy(block.from_ns, block.from_ns + block.size, times_beside(end));
                        }
                        end += block.size;
                    }
                    const std::size_t i = asked_[k]->intervals[p].interval;
                    finish_interval(i, {first, end});
                    const std::span<const std::int64_t> times{time_arena_ ? times_beside(first) : nullptr, time_arena_ ? std::size_t(end - first) : 0};
                    if (options_.take_values) options_.take_values(i, {first, end}, times);
                    if (!options_.keep_values) return;
                    r_.intervals[i].values_ms.assign(first, end);
                    r_.intervals[i].from_ns.assign(times.begin(), times.end());
                });
        }
    }

    void add_keep_all_tasks(const std::vector<TracepointSet>& from_sets, const std::vector<TracepointSet>& to_sets) {
        for (std::size_t i = 0; i < spec_.intervals.size(); ++i)
            tasks_.emplace_back([this, i, &from_sets, &to_sets](Scratch&) {
                const Question from{false, from_sets[i], {}, {}};
                std::vector<double> values = all_reachable_latencies(s_, g_, all_starts(s_, g_, from, starts_), to_sets[i]);
                finish_interval(i, values);
                if (options_.take_values) options_.take_values(i, values, {});
                if (options_.keep_values) r_.intervals[i].values_ms = std::move(values);
            });
    }

    // Question k's answers, once every search is done: a question some
    // search gave up on, or any question where an edge runs back in time,
    // is answered by passes, once, by the first summary that needs it.
    std::span<Answer> answers_of(std::size_t k) {
        for (std::size_t left; (left = chunks_pending_.load()) != 0;) chunks_pending_.wait(left);
        edges_measured_.wait(false);
        std::call_once(by_passes_[k], [&] {
            if (!edges_run_backward_in_time_ && std::all_of(answers_[k].begin(), answers_[k].end(), [](const Answer& a) { return a.complete; }))
                return;
            // The tracepoint graph, which only the passes need: built by the
            // first question answered by passes.
            std::call_once(tracepoint_graph_built_, [&] { tracepoint_graph_.emplace(s_, g_); });
            Question& q = *asked_[k];
            EarliestReach reach(s_, g_, *tracepoint_graph_);
            const std::vector<SampleIndex> starts = all_starts(s_, g_, q, starts_);
            if (q.from_roots)
                for (SampleIndex v : starts) q.start_tracepoints[s_.tracepoint[v]] = true;
            answers_[k].assign(1, Answer(q));
            for (std::size_t p = 0; p < q.intervals.size(); ++p) answers_[k][0].values_ms[p] = {regions_[k][p].data(), 0, times_beside(regions_[k][p].data())};
            answers_[k][0].add(s_, q, part_of_class_[k], answer_by_passes(s_, q, starts, reach));
        });
        return answers_[k];
    }

    void finish_interval(std::size_t i, std::span<const double> values) {
        IntervalResult& ir = r_.intervals[i];
        ir.name = spec_.intervals[i].name;
        ir.kind = spec_.intervals[i].kind;
        ir.from = spec_.intervals[i].from.text();
        ir.to = spec_.intervals[i].to.text();
        if (options_.summarize_values) ir.latency_ms = summarize(values);
    }

    void finish_matrix(std::span<const Answer> answers) {
        const std::size_t nodes = s_.node_names.size();
        std::vector<Moments> cells(nodes * nodes);
        std::vector<std::int64_t> maxima(nodes * nodes, 0);
        std::vector<__int128> sums(nodes * nodes, 0);
        for (const Answer& answer : answers)
            for (const auto& x : answer.reached) {
                const std::size_t cell = s_.tracepoint_of(x.from).node_id * nodes + x.target_class;
                const std::int64_t ns = graph::elapsed_ns(s_.time_ns[x.from], s_.time_ns[x.to]);
                cells[cell].add(double(ns) / 1e6);
                sums[cell] += ns;
                maxima[cell] = cells[cell].n == 1 ? ns : std::max(maxima[cell], ns);
            }
        for (std::size_t cell = 0; cell < cells.size(); ++cell)
            if (cells[cell].n > 0)
                r_.node_latency.push_back({s_.node_names[cell / nodes], s_.node_names[cell % nodes], cells[cell].n, cells[cell].mean,
                                           double(maxima[cell]) / 1e6, sums[cell], maxima[cell]});
    }

    const SampleSet& s_;
    const graph::Graph& g_;
    const graph::AnalysisSpec& spec_;
    const MetricOptions& options_;
    AnalysisResult& r_;
    std::vector<Question> questions_;
    std::optional<Question> matrix_;
    StartRange starts_;  // the samples whose searches are asked for: the run's, or a shard's share
    std::vector<Question*> asked_;  // the matrix first, then the intervals' questions
    std::vector<StartBits> start_bits_;  // per group of kGroup questions
    std::vector<std::vector<std::uint32_t>> part_of_class_;  // per question
    std::vector<Task> tasks_;

    std::optional<detail::MessageWaits> waits_;
    bool edges_run_backward_in_time_ = false;
    std::atomic<bool> edges_measured_{false};

    std::size_t chunk_count_ = 0;
    std::vector<std::vector<Answer>> answers_;  // per question, per chunk
    std::vector<std::size_t> starts_in_chunk_;  // [chunk][question]
    std::unique_ptr<double[]> arena_;
    std::unique_ptr<std::int64_t[]> time_arena_;  // keep_value_times: laid out as arena_
    std::vector<std::vector<std::span<double>>> regions_;  // per question, per part
    std::atomic<std::size_t> chunks_uncounted_{0};
    std::atomic<bool> latencies_laid_out_{false};  // set after the layout's writes, which the searches then see
    std::atomic<std::size_t> chunks_pending_{0};

    std::vector<std::once_flag> by_passes_;  // per question
    std::once_flag tracepoint_graph_built_;
    std::optional<TracepointGraph> tracepoint_graph_;
};

}  // namespace

void add_input_health(AnalysisResult& r, const std::string& path, const logio::ReadReport& report) {
    r.bad_records += report.bad_records;
    r.dropped_samples += report.dropped_samples;
    r.stream_dropped_samples += report.stream_dropped;
    r.lost_samples += report.lost_samples;
    r.torn_files += report.torn;
    if (report.closed_uncleanly()) r.unclean_files.push_back(path);
}

AnalysisResult analyze(const SampleSet& s, const graph::Graph& g, const graph::AnalysisSpec& spec, const MetricOptions& options) {
    // What linking freed into the page pool (its lists; the hash ids a
    // caller dropped) would stay resident under the metrics' buffers, which
    // come from the heap.
    if (options.release_pooled_memory) graph::release_pooled_memory();
    AnalysisResult r;
    count_run(s, g, r);
    std::vector<TracepointSet> from_sets, to_sets;
    for (const auto& interval : spec.intervals) {
        from_sets.push_back(tracepoints_matching(s, interval.from));
        to_sets.push_back(tracepoints_matching(s, interval.to));
    }
    r.intervals.resize(spec.intervals.size());
    const unsigned threads = graph::parallel::thread_count(options.threads);
    Measurement measurement(s, g, spec, options, r,
                            options.keep_all_targets ? std::vector<Question>{} : interval_questions(s, from_sets, to_sets),
                            matrix_question(s), threads);
    measurement.run(threads, from_sets, to_sets);
    std::sort(r.node_latency.begin(), r.node_latency.end(),
              [](const NodeLatency& a, const NodeLatency& b) { return std::tie(a.from, a.to) < std::tie(b.from, b.to); });
    return r;
}

}  // namespace hashtrace::metrics
