// Message hops from the hashes' journeys (message_hops.hpp says why).
#include "hashtrace/infer/message_hops.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>

namespace hashtrace::infer {
namespace {

using graph::HashId;
using graph::kNoHash;
using graph::SampleIndex;

// A hop pair needs this many hops, and this share of its receiving
// tracepoint's hops, to be trusted: a few journeys whose order was guessed
// wrong (a pass-through instance that was a tap) must not become a pair.
constexpr std::uint64_t kMinHops = 3;
constexpr double kMinShare = 0.01;

// The samples of each hash, in time order: a counting sort over the ids.
struct SamplesByHash {
    std::vector<std::uint32_t> begin;  // hash_count + 1 offsets into `samples`
    std::vector<SampleIndex> samples;
};

SamplesByHash group_by_hash(const graph::SampleSet& s) {
    SamplesByHash g;
    g.begin.assign(s.hash_count + 1, 0);
    const auto each = [&](auto&& f) {
        for (SampleIndex i = 0; i < s.size(); ++i) {
            if (s.input[i] != kNoHash) f(s.input[i], i);
            if (s.output[i] != kNoHash && s.output[i] != s.input[i]) f(s.output[i], i);
        }
    };
    each([&](HashId h, SampleIndex) { ++g.begin[h + 1]; });
    for (std::size_t h = 1; h < g.begin.size(); ++h) g.begin[h] += g.begin[h - 1];
    g.samples.resize(g.begin.back());
    std::vector<std::uint32_t> next(g.begin.begin(), g.begin.end() - 1);
    each([&](HashId h, SampleIndex i) { g.samples[next[h]++] = i; });
    return g;
}

// One instance's part in a journey: its first sample taking the hash in,
// its last giving it out (within an instance, one clock orders them).
struct Visit {
    std::uint32_t instance;
    SampleIndex arrival = ~SampleIndex{0}, departure = ~SampleIndex{0};
    bool consumes = false;  // a sample takes the hash in and gives another out
};

class HopCounter {
public:
    explicit HopCounter(const graph::SampleSet& s) : s_(s) {
        std::map<std::pair<std::string, std::string>, std::uint32_t> keys;
        for (const auto& tp : s.tracepoints) {
            auto [it, fresh] = keys.try_emplace({tp.node_name, tp.tracepoint_name}, static_cast<std::uint32_t>(selectors_.size()));
            if (fresh) selectors_.push_back({it->first.first, it->first.second});
            key_.push_back(it->second);
        }
    }

    void follow(const SampleIndex* first, const SampleIndex* last, HashId h, MessageHops& out);
    std::vector<HopPair> pairs() const;

private:
    std::vector<Visit> visits(const SampleIndex* first, const SampleIndex* last, const SampleIndex* maker, HashId h) const;
    void hop(SampleIndex from, SampleIndex to, MessageHops& out);

    const graph::SampleSet& s_;
    std::vector<graph::Selector> selectors_;  // per key: node/tracepoint
    std::vector<std::uint32_t> key_;          // per TracepointId
    std::unordered_map<std::uint64_t, HopPair> pairs_;
};

// The maker's instance first. By the logs' clocks the other instances' samples
// may come before the maker: all of them count, but on the maker's instance
// only what follows the maker.
std::vector<Visit> HopCounter::visits(const SampleIndex* first, const SampleIndex* last, const SampleIndex* maker, HashId h) const {
    std::vector<Visit> v{Visit{s_.tracepoint_of(*maker).instance_id}};
    for (const SampleIndex* p = first; p != last; ++p) {
        const std::uint32_t instance = s_.tracepoint_of(*p).instance_id;
        if (instance == v.front().instance && p < maker) continue;
        auto it = std::find_if(v.begin(), v.end(), [&](const Visit& x) { return x.instance == instance; });
        if (it == v.end()) it = v.insert(v.end(), Visit{instance});
        if (s_.input[*p] == h && it->arrival == ~SampleIndex{0}) it->arrival = *p;
        if (s_.output[*p] == h) it->departure = *p;
        if (s_.input[*p] == h && s_.output[*p] != h) it->consumes = true;
    }
    return v;
}

void HopCounter::hop(SampleIndex from, SampleIndex to, MessageHops& out) {
    if (from == ~SampleIndex{0} || to == ~SampleIndex{0}) return;
    const std::uint64_t key = (std::uint64_t{key_[s_.tracepoint[from]]} << 32) | key_[s_.tracepoint[to]];
    HopPair& p = pairs_[key];
    const bool early = s_.time_ns[to] < s_.time_ns[from];
    ++p.hops, ++out.hops;
    p.received_before_sent += early, out.received_before_sent += early;
}

void HopCounter::follow(const SampleIndex* first, const SampleIndex* last, HashId h, MessageHops& out) {
    const SampleIndex* maker = nullptr;
    for (const SampleIndex* p = first; p != last; ++p) {
        if (s_.output[*p] != h || s_.input[*p] == h) continue;
        if (maker) {
            ++out.hashes_made_twice;
            return;
        }
        maker = p;
    }
    if (!maker) return;  // its maker was not traced: no journey to order
    const auto v = visits(first, last, maker, h);
    if (v.size() < 2) return;
    ++out.messages;
    const Visit& start = v.front();  // the maker's instance
    std::vector<const Visit*> passing, consuming;
    for (auto it = v.begin() + 1; it != v.end(); ++it) (it->consumes ? consuming : passing).push_back(&*it);
    if (passing.size() <= 1 && consuming.size() <= 1) {
        const Visit* previous = &start;
        for (const Visit* next : {passing.empty() ? nullptr : passing[0], consuming.empty() ? nullptr : consuming[0]})
            if (next) hop(previous->departure, next->arrival, out), previous = next;
        if (start.consumes && v.size() == 2) hop(v[1].departure, start.arrival, out);  // a reply with the same hash
        return;
    }
    ++out.order_unknown;
    for (auto it = v.begin() + 1; it != v.end(); ++it) hop(start.departure, it->arrival, out);
}

std::vector<HopPair> HopCounter::pairs() const {
    std::unordered_map<std::uint32_t, std::uint64_t> into;  // hops per receiving tracepoint
    for (const auto& [key, p] : pairs_) into[static_cast<std::uint32_t>(key)] += p.hops;
    std::vector<HopPair> out;
    for (const auto& [key, p] : pairs_) {
        if (p.hops < kMinHops || static_cast<double>(p.hops) < kMinShare * static_cast<double>(into[static_cast<std::uint32_t>(key)])) continue;
        out.push_back(p);
        out.back().from = selectors_[key >> 32];
        out.back().to = selectors_[static_cast<std::uint32_t>(key)];
    }
    std::sort(out.begin(), out.end(), [](const HopPair& a, const HopPair& b) {
        return a.hops != b.hops ? a.hops > b.hops : std::tie(a.from.node, a.from.tracepoint, a.to.node, a.to.tracepoint) <
                                                        std::tie(b.from.node, b.from.tracepoint, b.to.node, b.to.tracepoint);
    });
    return out;
}

}  // namespace

MessageHops find_message_hops(const graph::SampleSet& samples) {
    if (samples.size() && samples.input.size() != samples.size())
        throw std::logic_error("find_message_hops: the samples' hash ids were dropped");
    const SamplesByHash byHash = group_by_hash(samples);
    HopCounter counter(samples);
    MessageHops out;
    for (HashId h = 0; h + 1 < byHash.begin.size(); ++h) {
        const SampleIndex* first = byHash.samples.data() + byHash.begin[h];
        const SampleIndex* last = byHash.samples.data() + byHash.begin[h + 1];
        if (last - first >= 2) counter.follow(first, last, h, out);
    }
    out.pairs = counter.pairs();
    return out;
}

graph::AnalysisSpec MessageHops::spec() const {
    graph::AnalysisSpec spec;
    for (const auto& p : pairs) spec.pairs.push_back({p.from, p.to, graph::PairScope::any, 0});
    return spec;
}

}  // namespace hashtrace::infer
