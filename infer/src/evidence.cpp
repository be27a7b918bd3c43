// Candidate pairs of the spec-less graph, and the evidence that keeps or
// rejects each (docs/infer.md). One pass over the
// edges counts every pair exactly and keeps an even sample of its links; the
// closer looks (latencies, searches for other paths, rival producers, scope)
// read only those samples, so their cost is bounded per pair, not per sample.
#include "hashtrace/infer/evidence.hpp"

#include "text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <stdexcept>
#include <tuple>
#include <utility>

namespace hashtrace::infer {

std::string_view to_string(Verdict v) {
    switch (v) {
        case Verdict::kept: return "kept";
        case Verdict::rare: return "rare";
        case Verdict::repeated: return "repeated value";
        case Verdict::label_mismatch: return "label mismatch";
        case Verdict::spread: return "spread over the run";
        case Verdict::reversed: return "reversed";
        case Verdict::sibling: return "sibling";
        case Verdict::shortcut: return "shortcut";
        case Verdict::outcompeted: return "outcompeted";
    }
    return "?";
}

std::vector<std::uint32_t> Evidence::kept() const {
    std::vector<std::uint32_t> out;
    for (std::uint32_t i = 0; i < pairs.size(); ++i)
        if (pairs[i].verdict == Verdict::kept) out.push_back(i);
    return out;
}

bool Evidence::needs_relinking() const {
    for (const auto& p : pairs)
        if (p.verdict == Verdict::kept && p.scope == graph::PairScope::thread && p.same_thread < p.links) return true;
    return false;
}

std::uint64_t Evidence::links_a_spec_removes() const {
    std::uint64_t removed = 0;
    for (const auto& p : pairs) {
        if (p.verdict != Verdict::kept) removed += p.links;
        else if (p.scope == graph::PairScope::instance) removed += p.links - p.same_instance;
        else if (p.scope == graph::PairScope::thread) removed += p.links - p.same_thread;
    }
    return removed;
}

namespace {

constexpr std::uint32_t kNone = 0xFFFFFFFFu;

using detail::format;
const auto& percent = detail::percent_text;
const auto& duration = detail::duration_text;

// A tracepoint that makes the values it outputs (a source, or one whose output
// differs from its input), unlike a pass-through (input = output in at least
// 99 % of its samples), which only passes on what it received.
bool makes_values(const TracepointClass& c) { return c.inputs == 0 || double(c.passthrough) < 0.99 * double(c.inputs); }

// Tracepoints as a spec names them (node/tracepoint over all instances),
// numbered in name order so that every output is in a stable order.
void build_classes(const graph::SampleSet& s, Evidence& ev) {
    std::map<std::pair<std::string, std::string>, ClassId> ids;
    for (const auto& tp : s.tracepoints) ids.emplace(std::pair(tp.node_name, tp.tracepoint_name), 0);
    for (auto& [key, id] : ids) {
        id = static_cast<ClassId>(ev.classes.size());
        TracepointClass c;
        c.node = key.first;
        c.tracepoint = key.second;
        ev.classes.push_back(std::move(c));
    }
    ev.class_of.resize(s.tracepoints.size());
    for (std::size_t t = 0; t < s.tracepoints.size(); ++t) {
        const auto& tp = s.tracepoints[t];
        const ClassId c = ids.at({tp.node_name, tp.tracepoint_name});
        ev.class_of[t] = c;
        auto& cls = ev.classes[c];
        if (cls.input_label.empty()) cls.input_label = tp.input_hash_type;
        if (cls.output_label.empty()) cls.output_label = tp.output_hash_type;
    }
    const bool has_ids = s.input.size() == s.size() && s.output.size() == s.size();
    for (std::size_t i = 0; i < s.size(); ++i) {
        auto& cls = ev.classes[ev.class_of[s.tracepoint[i]]];
        ++cls.samples;
        if (has_ids) {
            cls.inputs += s.input[i] != graph::kNoHash;
            cls.outputs += s.output[i] != graph::kNoHash;
            cls.passthrough += s.input[i] != graph::kNoHash && s.input[i] == s.output[i];
        }
    }
    // Without the hash ids (analyze frees them), a tracepoint's samples stand in.
    if (!has_ids)
        for (auto& cls : ev.classes) cls.inputs = cls.outputs = cls.samples;
}

// A pair's running counts and its even sample of links: every stride-th link
// is kept; when the sample fills, every other one is dropped and the stride doubles.
struct Tally {
    std::uint64_t links = 0, same_instance = 0, same_thread = 0;
    std::uint64_t stride = 1;
    std::vector<graph::Edge> sample;
};

double quantile(std::vector<double>& sorted, double p) {
    if (sorted.empty()) return 0;
    const auto rank = static_cast<std::size_t>(std::ceil(p * static_cast<double>(sorted.size())));
    return sorted[std::min(sorted.size() - 1, rank == 0 ? 0 : rank - 1)];
}

class Analysis {
public:
    Analysis(const graph::SampleSet& s, const graph::Graph& g, const EvidenceOptions& o, Evidence& ev)
        : s_(s), g_(g), o_(o), ev_(ev), n_classes_(ev.classes.size()), pair_of_(n_classes_ * n_classes_, kNone) {}

    void run() {
        tally();
        reject_by_counts_and_labels();
        reject_spread();
        reject_reversed();
        reject_siblings();
        reject_shortcuts();
        reject_outcompeted();
        restore_unexplained_shortcuts();
        propose_scopes();
        explain_kept();
    }

private:
    ClassId cls(graph::SampleIndex i) const { return ev_.class_of[s_.tracepoint[i]]; }
    std::uint32_t instance(graph::SampleIndex i) const { return s_.tracepoint_of(i).instance_id; }
    bool local(graph::SampleIndex a, graph::SampleIndex b) const { return instance(a) == instance(b) && s_.thread[a] == s_.thread[b]; }
    // How near x is to c: 2 on c's thread, 1 in c's instance, 0 elsewhere.
    int locality(graph::SampleIndex x, graph::SampleIndex c) const { return instance(x) != instance(c) ? 0 : local(x, c) ? 2 : 1; }
    std::uint32_t pair_index(ClassId a, ClassId b) const { return pair_of_[std::size_t(a) * n_classes_ + b]; }
    bool alive(ClassId a, ClassId b) const {
        const auto p = pair_index(a, b);
        return p != kNone && ev_.pairs[p].verdict == Verdict::kept;
    }
    PairEvidence& pair(std::uint32_t i) { return ev_.pairs[i]; }
    const TracepointClass& from_of(const PairEvidence& p) const { return ev_.classes[p.from]; }
    const TracepointClass& to_of(const PairEvidence& p) const { return ev_.classes[p.to]; }

    void tally() {
        std::vector<std::uint32_t> slot(n_classes_ * n_classes_, kNone);
        std::vector<std::pair<ClassId, ClassId>> keys;
        std::vector<Tally> tallies;
        const std::size_t cap = 2 * std::max<std::uint32_t>(o_.checked_links, 1);
        for (const graph::Edge& e : g_.edges) {
            const ClassId a = cls(e.from), b = cls(e.to);
            auto& at = slot[std::size_t(a) * n_classes_ + b];
            if (at == kNone) {
                at = static_cast<std::uint32_t>(tallies.size());
                tallies.emplace_back();
                keys.emplace_back(a, b);
            }
            Tally& t = tallies[at];
            const bool local_instance = instance(e.from) == instance(e.to);
            t.same_instance += local_instance;
            t.same_thread += local_instance && s_.thread[e.from] == s_.thread[e.to];
            if (t.links++ % t.stride == 0) {
                t.sample.push_back(e);
                if (t.sample.size() == cap) {
                    for (std::size_t k = 0; k < cap / 2; ++k) t.sample[k] = t.sample[2 * k];
                    t.sample.resize(cap / 2);
                    t.stride *= 2;
                }
            }
        }
        // Pairs in (from, to) order.
        std::vector<std::uint32_t> order(keys.size());
        for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
        std::sort(order.begin(), order.end(), [&](auto x, auto y) { return keys[x] < keys[y]; });
        for (const std::uint32_t k : order) {
            Tally& t = tallies[k];
            PairEvidence p;
            p.from = keys[k].first;
            p.to = keys[k].second;
            p.links = t.links;
            p.same_instance = t.same_instance;
            p.same_thread = t.same_thread;
            p.rate_per_s = ev_.window_s > 0 ? double(t.links) / ev_.window_s : 0;
            p.consumer_share = to_of(p).inputs ? double(t.links) / double(to_of(p).inputs) : 0;
            p.producer_share = from_of(p).outputs ? double(t.links) / double(from_of(p).outputs) : 0;
            std::vector<double> latency;
            latency.reserve(t.sample.size());
            for (const auto& e : t.sample) latency.push_back(double(graph::elapsed_ns(s_.time_ns[e.from], s_.time_ns[e.to])) / 1e6);
            std::sort(latency.begin(), latency.end());
            p.p10_ms = quantile(latency, 0.10);
            p.p50_ms = quantile(latency, 0.50);
            p.p90_ms = quantile(latency, 0.90);
            p.checked = static_cast<std::uint32_t>(t.sample.size());
            pair_of_[std::size_t(p.from) * n_classes_ + p.to] = static_cast<std::uint32_t>(ev_.pairs.size());
            ev_.pairs.push_back(std::move(p));
            samples_.push_back(std::move(t.sample));
        }
    }

    void reject_by_counts_and_labels() {
        for (auto& p : ev_.pairs) {
            if (double(p.links) < o_.rare_share * double(from_of(p).outputs) && double(p.links) < o_.rare_share * double(to_of(p).inputs)) {
                p.verdict = Verdict::rare;
                p.reason = format("rare: %llu links, %s of %s's outputs and %s of %s's inputs", (unsigned long long)p.links,
                                  percent(p.producer_share).c_str(), from_of(p).selector().c_str(), percent(p.consumer_share).c_str(),
                                  to_of(p).selector().c_str());
            }
        }
        // SPEC 4 rule 5 links a pass-through to its own previous sample of a
        // value it sees again; that is the value reused, not one sample
        // causing the next (a loop that makes its next value is no pass-through).
        for (auto& p : ev_.pairs) {
            if (p.verdict != Verdict::kept || p.from != p.to) continue;
            const auto& c = from_of(p);
            if (makes_values(c)) continue;
            p.verdict = Verdict::repeated;
            p.reason = format("repeated value: %s passes its input on unchanged, so a link to itself is the same value seen again",
                              c.selector().c_str());
        }
        // Overlapping id spaces: the same integers hashed under different
        // labels meet by value. Suspect when the labels differ and another
        // link of either tracepoint agrees on its label.
        for (auto& p : ev_.pairs) {
            if (p.verdict != Verdict::kept) continue;
            const auto& out = from_of(p).output_label;
            const auto& in = to_of(p).input_label;
            if (out.empty() || in.empty() || out == in) continue;
            std::string agreeing;
            for (const auto& q : ev_.pairs) {
                if (&q == &p || q.verdict == Verdict::rare) continue;
                if (q.to == p.to && from_of(q).output_label == in) agreeing = from_of(q).selector() + " -> " + to_of(q).selector();
                if (q.from == p.from && to_of(q).input_label == out) agreeing = from_of(q).selector() + " -> " + to_of(q).selector();
                if (!agreeing.empty()) break;
            }
            if (agreeing.empty()) continue;
            p.verdict = Verdict::label_mismatch;
            p.reason = format("hash labels differ: %s outputs '%s', %s takes '%s', while %s agrees: overlapping id spaces",
                              from_of(p).selector().c_str(), out.c_str(), to_of(p).selector().c_str(), in.c_str(), agreeing.c_str());
        }
    }

    void reject_spread() {
        const double window_ms = ev_.window_s * 1e3;
        if (window_ms <= 0) return;
        for (auto& p : ev_.pairs) {
            if (p.verdict != Verdict::kept) continue;
            const double spread = p.p90_ms - p.p10_ms;
            if (spread <= o_.spread_share * window_ms) continue;
            p.verdict = Verdict::spread;
            p.reason = format("latency spread over the whole run: p10 %s .. p90 %s of a %s run (values that meet by coincidence)",
                              duration(p.p10_ms).c_str(), duration(p.p90_ms).c_str(), duration(window_ms).c_str());
        }
    }

    // Share of pair i's checked links whose consumer links from no other
    // kept producer tracepoint: links nothing else explains.
    double unexplained_share(std::uint32_t i) const {
        const auto& p = ev_.pairs[i];
        if (samples_[i].empty()) return 0;
        std::size_t alone = 0;
        for (const auto& e : samples_[i]) {
            bool other = false;
            g_.for_each_in(e.to, [&](const graph::Edge& in) {
                const ClassId x = cls(in.from);
                other = other || (x != p.from && alive(x, p.to));
            });
            alone += !other;
        }
        return double(alone) / double(samples_[i].size());
    }

    // Mystery Machine's counterexample: if A's values cause B's, no value
    // reaches B before A makes it. Links of the opposite pair (B -> A: the
    // same values of the same id space seen at B first), where nothing else
    // explains A's sample, are such counterexamples: from 1 % of the larger
    // direction's links on, both directions are coincidences of two id
    // spaces (counters that meet by value); below that, the smaller one alone.
    void reject_reversed() {
        std::vector<std::tuple<std::uint32_t, std::uint32_t, double>> rejected;  // (pair, its reverse, counterexamples)
        for (std::uint32_t i = 0; i < ev_.pairs.size(); ++i) {
            const auto& p = pair(i);
            if (p.verdict != Verdict::kept || p.from == p.to) continue;
            const auto r = pair_index(p.to, p.from);
            if (r == kNone || pair(r).verdict == Verdict::rare || pair(r).verdict == Verdict::label_mismatch) continue;
            const auto& q = pair(r);
            // Only values of one id space both ways are counterexamples: a
            // message sent as `wire` and received back as `messageid` is not.
            const auto &a = from_of(p), &b = to_of(p);
            if (a.output_label != b.output_label || a.input_label != b.input_label || a.output_label != b.input_label) continue;
            const double counterexamples = double(q.links) * unexplained_share(r);
            const double backed = double(p.links) * unexplained_share(i);
            const bool minor = counterexamples > backed || (counterexamples == backed && counterexamples > 0 && r < i);
            if (minor || counterexamples >= o_.counterexample_share * double(p.links)) rejected.emplace_back(i, r, counterexamples);
        }
        for (const auto& [i, r, counterexamples] : rejected) {
            auto& p = pair(i);
            p.verdict = Verdict::reversed;
            p.rival = r;
            p.reason = format("happened-before contradicted: in about %.0f links nothing else explains, the same values reach %s from %s "
                              "first (this way: %llu); two id spaces that meet by value",
                              counterexamples, from_of(p).selector().c_str(), to_of(p).selector().c_str(), (unsigned long long)p.links);
        }
    }

    // Is c reached from a through kept pairs other than the direct link?
    // Samples are in time order, so a path runs forward in index and stops at c.
    bool reached_otherwise(graph::SampleIndex a, graph::SampleIndex c, std::vector<graph::SampleIndex>& stack) const {
        stack.clear();
        stack.push_back(a);
        std::uint32_t visits = 0;
        while (!stack.empty()) {
            const graph::SampleIndex x = stack.back();
            stack.pop_back();
            const ClassId cx = cls(x);
            for (const graph::Edge& e : g_.out(x)) {
                const graph::SampleIndex y = e.to;
                if (y > c) break;  // edges are sorted by target, which is time order
                if (x == a && y == c) continue;
                if (!alive(cx, cls(y))) continue;
                if (y == c) return true;
                if (++visits > o_.search_visits) return false;
                stack.push_back(y);
            }
        }
        return false;
    }

    // Per pair with verdict `of`: the share of its checked links also
    // reached through the pairs kept now.
    std::vector<double> implied_shares(Verdict of) const {
        std::vector<graph::SampleIndex> stack;
        std::vector<double> implied(ev_.pairs.size(), 0);
        for (std::uint32_t i = 0; i < ev_.pairs.size(); ++i) {
            if (ev_.pairs[i].verdict != of || samples_[i].empty()) continue;
            std::size_t reached = 0;
            for (const auto& e : samples_[i]) reached += reached_otherwise(e.from, e.to, stack);
            implied[i] = double(reached) / double(samples_[i].size());
        }
        return implied;
    }

    void reject_shortcuts() {
        const auto implied = implied_shares(Verdict::kept);
        for (std::uint32_t i = 0; i < ev_.pairs.size(); ++i) {
            auto& p = pair(i);
            p.implied_share = implied[i];
            if (p.verdict != Verdict::kept || implied[i] < o_.implied_share) continue;
            p.verdict = Verdict::shortcut;
            p.reason = format("shortcut: %s of %u checked links also go through other kept pairs (a value passed on unchanged)",
                              percent(implied[i]).c_str(), p.checked);
        }
    }

    // A shortcut is judged while pairs that later rules reject still stand:
    // two receivers of one router's copies each link to what the other does
    // next (the first receiver queues a message before the second receives
    // it), and such links, outcompeted later, can carry a true hop's own
    // links around it. A shortcut that the pairs kept at the end no longer
    // explain is a link again; the shortcuts among those restored (the
    // pairs kept now explain them) go again, and rivals the rest outcompete
    // fall; until nothing changes.
    void restore_unexplained_shortcuts() {
        for (int round = 0; round < 4; ++round) {
            const auto implied = implied_shares(Verdict::shortcut);
            bool restored = false;
            for (std::uint32_t i = 0; i < ev_.pairs.size(); ++i) {
                auto& p = pair(i);
                if (p.verdict != Verdict::shortcut || implied[i] >= o_.implied_share) continue;
                p.verdict = Verdict::kept;
                p.implied_share = implied[i];
                restored = true;
            }
            if (!restored) return;
            reject_shortcuts();
            reject_outcompeted();
        }
    }

    bool links_to(graph::SampleIndex x, graph::SampleIndex y) const {
        const auto out = g_.out(x);
        return std::binary_search(out.begin(), out.end(), graph::Edge{x, y}, [](const graph::Edge& a, const graph::Edge& b) { return a.to < b.to; });
    }

    // A triangle: c links from a and from x, and x links to a. Either a
    // passes the value on (x -> a -> c, and x -> c is a shortcut) or x feeds
    // a and c alike and a merely saw the value first (a sibling, a -> c
    // false). Delays of successive hops add their variance, so the direct
    // link is the one with the steadier latency: a is a sibling of c when
    // c's latency from x varies clearly less than from a.
    void reject_siblings() {
        struct Triangle {
            std::uint32_t count = 0;
            double sum_xc = 0, sum_xc2 = 0, sum_ac = 0, sum_ac2 = 0;
        };
        std::vector<std::pair<std::uint32_t, std::uint32_t>> losers;  // (pair, rival)
        std::map<std::uint32_t, Triangle> triangles;
        for (std::uint32_t i = 0; i < ev_.pairs.size(); ++i) {
            const auto& p = pair(i);
            if (p.verdict != Verdict::kept || samples_[i].empty()) continue;
            triangles.clear();
            for (const auto& e : samples_[i]) {
                // Only the nearest third (the latest x feeding both) is a
                // witness: a value passed on through several steps also
                // reaches c from far upstream, where two periodic loops can
                // make x -> c steadier than the hop a -> c it runs through.
                // And only across threads or processes: a local step x -> a
                // (a router receiving, then forwarding) adds next to no
                // variance, so the two latencies tell nothing apart; and a
                // local a -> c is program order on one thread, causal
                // whatever the latencies (a worker's start and end, whose
                // queue paces them so that x -> c is the steadier).
                graph::SampleIndex nearest = 0;
                std::uint32_t rival = kNone;
                g_.for_each_in(e.to, [&](const graph::Edge& in) {
                    const ClassId x = cls(in.from);
                    if (x == p.from || in.from >= e.from || (rival != kNone && in.from <= nearest)) return;
                    const auto r = pair_index(x, p.to);
                    if (r == kNone || pair(r).verdict != Verdict::kept || !links_to(in.from, e.from)) return;
                    nearest = in.from, rival = r;
                });
                if (rival == kNone || local(nearest, e.from) || local(e.from, e.to)) continue;
                const double xc = double(graph::elapsed_ns(s_.time_ns[nearest], s_.time_ns[e.to])) / 1e6;
                const double ac = double(graph::elapsed_ns(s_.time_ns[e.from], s_.time_ns[e.to])) / 1e6;
                auto& t = triangles[rival];
                ++t.count;
                t.sum_xc += xc, t.sum_xc2 += xc * xc, t.sum_ac += ac, t.sum_ac2 += ac * ac;
            }
            for (const auto& [r, t] : triangles) {
                if (2 * t.count < samples_[i].size()) continue;
                const double n = t.count;
                const double var_xc = std::max(0.0, t.sum_xc2 / n - (t.sum_xc / n) * (t.sum_xc / n));
                const double var_ac = std::max(0.0, t.sum_ac2 / n - (t.sum_ac / n) * (t.sum_ac / n));
                if (std::sqrt(var_xc) < 0.95 * std::sqrt(var_ac)) {
                    losers.emplace_back(i, r);
                    break;
                }
            }
        }
        for (const auto& [i, r] : losers) {
            auto& p = pair(i);
            p.verdict = Verdict::sibling;
            p.rival = r;
            p.reason = format("sibling: %s feeds both %s and %s, with a steadier latency to %s than %s has (%s and %s only see the same value one after the other)",
                              from_of(pair(r)).selector().c_str(), from_of(p).selector().c_str(), to_of(p).selector().c_str(),
                              to_of(p).selector().c_str(), from_of(p).selector().c_str(), from_of(p).selector().c_str(),
                              to_of(p).selector().c_str());
        }
    }

    // Mystery Machine's hypothesis elimination: where two producers explain
    // the same consumer samples, the one that explains more of them (or as
    // many, the nearer: the latest of a chain is the direct one) stands. Two
    // producers that both make the value, as often and from different
    // inputs, are no rivals but a join (a consumer that waits for a worker's
    // result and for the note announcing it): a pass-through that saw the
    // value first, a producer of a few of the values, or a second receiver
    // of the same message is what this removes.
    void reject_outcompeted() {
        std::vector<std::pair<std::uint32_t, std::uint32_t>> losers;  // (pair, rival)
        // Per rival: the shared consumer samples; of them, those where the
        // rival's producer sample is the nearer: in the consumer's thread or
        // instance where this pair's is not (a value is in a process once it
        // arrived there: a router's later copy to another receiver is no
        // nearer), else the later one; and those where both producers made
        // it from the same input (two receivers of one message).
        struct Shared {
            std::uint32_t samples = 0, rival_nearer = 0, same_input = 0;
        };
        const bool has_ids = s_.input.size() == s_.size();
        std::map<std::uint32_t, Shared> overlap;
        for (std::uint32_t i = 0; i < ev_.pairs.size(); ++i) {
            const auto& p = pair(i);
            if (p.verdict != Verdict::kept || samples_[i].empty()) continue;
            overlap.clear();
            for (const auto& e : samples_[i]) {
                std::uint32_t seen_rival = kNone;
                g_.for_each_in(e.to, [&](const graph::Edge& in) {
                    const ClassId a = cls(in.from);
                    if (a == p.from) return;
                    const auto r = pair_index(a, p.to);
                    if (r == kNone || pair(r).verdict != Verdict::kept || r == seen_rival) return;
                    seen_rival = r;
                    auto& shared = overlap[r];
                    ++shared.samples;
                    const int rival_at = locality(in.from, e.to), this_at = locality(e.from, e.to);
                    shared.rival_nearer += rival_at > this_at || (rival_at == this_at && in.from > e.from);
                    shared.same_input += has_ids && s_.input[in.from] == s_.input[e.from];
                });
            }
            std::uint32_t best = kNone;
            for (const auto& [r, shared] : overlap) {
                if (2 * shared.samples < samples_[i].size()) continue;
                const auto& q = pair(r);
                // "Sooner" sample by sample, not by medians: where two steps
                // of a chain are microseconds apart, medians over different
                // samples of links order them by chance.
                const bool more = double(q.links) > 1.02 * double(p.links);
                const bool as_many_sooner = double(q.links) >= 0.98 * double(p.links) && 2 * shared.rival_nearer > shared.samples;
                const bool join = has_ids && makes_values(from_of(p)) && makes_values(from_of(q)) && 2 * shared.same_input < shared.samples;
                if (as_many_sooner && !more && join) continue;
                if ((more || as_many_sooner) && (best == kNone || q.links > pair(best).links)) best = r;
            }
            if (best != kNone) losers.emplace_back(i, best);
        }
        for (const auto& [i, r] : losers) {
            auto& p = pair(i);
            const auto& q = pair(r);
            p.verdict = Verdict::outcompeted;
            p.rival = r;
            p.reason = format("outcompeted: %s explains %s of %s's inputs (this pair %s) on the same samples, median %s against %s",
                              from_of(q).selector().c_str(), percent(q.consumer_share).c_str(), to_of(p).selector().c_str(),
                              percent(p.consumer_share).c_str(), duration(q.p50_ms).c_str(), duration(p.p50_ms).c_str());
        }
    }

    // Share of the checked links of pair i that cross `boundary` and land on a
    // consumer that also links from the same producer tracepoint inside it.
    template <typename Inside>
    double contradicted(std::uint32_t i, const graph::Graph& inside_graph, Inside inside) const {
        std::size_t crossing = 0, contradicted = 0;
        const ClassId from = ev_.pairs[i].from;
        for (const auto& e : samples_[i]) {
            if (inside(e.from, e.to)) continue;
            ++crossing;
            bool found = false;
            inside_graph.for_each_in(e.to, [&](const graph::Edge& in) { found = found || (cls(in.from) == from && inside(in.from, e.to)); });
            contradicted += found;
        }
        return crossing ? double(contradicted) / double(crossing) : 0;
    }

    void propose_scopes() {
        auto same_instance = [&](graph::SampleIndex a, graph::SampleIndex b) { return instance(a) == instance(b); };
        auto same_thread = [&](graph::SampleIndex a, graph::SampleIndex b) { return instance(a) == instance(b) && s_.thread[a] == s_.thread[b]; };
        std::vector<std::uint32_t> mixed_threads;
        for (std::uint32_t i = 0; i < ev_.pairs.size(); ++i) {
            auto& p = pair(i);
            if (p.verdict != Verdict::kept) continue;
            if (p.same_instance < p.links) {
                p.cross_instance_contradicted = contradicted(i, g_, same_instance);
                if (p.cross_instance_contradicted < o_.contradicted_share) {
                    p.scope = graph::PairScope::any;
                    p.scope_reason = format("any: %s of its links cross node instances, %s of those checked with no link from the consumer's own instance",
                                            percent(1 - double(p.same_instance) / double(p.links)).c_str(),
                                            percent(1 - p.cross_instance_contradicted).c_str());
                    continue;
                }
                p.scope_reason = format("instance: %s of its checked cross-instance links land where the consumer's own instance also links (a reused value)",
                                        percent(p.cross_instance_contradicted).c_str());
            } else {
                p.scope_reason = "instance: all its links stay within one node instance";
            }
            p.scope = graph::PairScope::instance;
            if (p.same_thread == p.same_instance && p.same_thread > 0) {
                p.scope = graph::PairScope::thread;
                p.scope_reason = p.same_thread == p.links ? "thread: all its links stay within one thread"
                                                          : p.scope_reason + "; within the instance, all in one thread";
            } else if (p.same_thread > 0) {
                mixed_threads.push_back(i);
            }
        }
        check_threads(mixed_threads, same_thread);
    }

    // A pair linking both within and across threads: reused per-thread
    // values (loop counters) when the consumer's own thread holds a producer
    // of the same value that the latest-per-source rule passed over. A join
    // of these pairs with thread scope finds those producers.
    template <typename SameThread>
    void check_threads(const std::vector<std::uint32_t>& mixed, SameThread same_thread) {
        const bool has_ids = s_.input.size() == s_.size() && s_.output.size() == s_.size();
        if (mixed.empty() || !has_ids) return;
        ev_.threads_checked = true;
        graph::AnalysisSpec spec;
        for (const auto i : mixed) {
            const auto& p = pair(i);
            spec.pairs.push_back({graph::Selector{from_of(p).node, from_of(p).tracepoint}, graph::Selector{to_of(p).node, to_of(p).tracepoint},
                                  graph::PairScope::thread, 0});
        }
        graph::LinkOptions options;
        options.threads = 1;
        const graph::Graph threaded = graph::link(s_, spec, options);
        for (const auto i : mixed) {
            auto& p = pair(i);
            p.cross_thread_contradicted = contradicted(i, threaded, same_thread);
            if (p.cross_thread_contradicted < o_.contradicted_share) {
                p.scope_reason += format("; %s of its checked links cross threads with no producer on the consumer's thread",
                                         percent(1 - p.cross_thread_contradicted).c_str());
                continue;
            }
            p.scope = graph::PairScope::thread;
            p.scope_reason = format("thread: %s of its checked cross-thread links land where the consumer's own thread holds a producer of the same value (a reused counter)",
                                    percent(p.cross_thread_contradicted).c_str());
        }
    }

    void explain_kept() {
        for (auto& p : ev_.pairs) {
            if (p.verdict != Verdict::kept) continue;
            p.reason = format("kept: explains %s of %s's inputs, median %s (p90 %s), %s of checked links reached no other way",
                              percent(p.consumer_share).c_str(), to_of(p).selector().c_str(), duration(p.p50_ms).c_str(),
                              duration(p.p90_ms).c_str(), percent(1 - p.implied_share).c_str());
        }
    }

    const graph::SampleSet& s_;
    const graph::Graph& g_;
    const EvidenceOptions& o_;
    Evidence& ev_;
    std::size_t n_classes_;
    std::vector<std::uint32_t> pair_of_;
    std::vector<std::vector<graph::Edge>> samples_;  // per pair: its checked links
};

}  // namespace

Evidence gather_evidence(const graph::SampleSet& samples, const graph::Graph& specless, const EvidenceOptions& options) {
    Evidence ev;
    build_classes(samples, ev);
    ev.samples = samples.size();
    ev.links = specless.edges.size();
    ev.nodes = samples.node_names.size();
    if (samples.size() > 1) ev.window_s = double(graph::elapsed_ns(samples.time_ns[0], samples.time_ns[samples.size() - 1])) / 1e9;
    // Pairs are looked up in a table of every (producer, consumer) tracepoint.
    if (ev.classes.size() > 4096) throw std::invalid_argument("more than 4096 tracepoints: too many to infer a structure from");
    Analysis(samples, specless, options, ev).run();
    return ev;
}

}  // namespace hashtrace::infer
