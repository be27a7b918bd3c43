// The inferred system as nodes, tracepoints and edges to draw, each
// tracepoint at its chain depth.
#include "hashtrace/infer/system_picture.hpp"

#include <algorithm>
#include <map>
#include <utility>

namespace hashtrace::infer {
namespace {

bool contains(const std::vector<ClassId>& v, ClassId c) { return std::find(v.begin(), v.end(), c) != v.end(); }

// Longest-path layering over the kept pairs. A depth-first search from the
// sources (then from any tracepoint not reached) orders the tracepoints so
// that every pair points forward, except the pairs that close a cycle (their
// consumer is still open on the search's stack); those are left out, or a
// request/response loop would push its tracepoints right without end.
std::vector<std::uint32_t> chain_depths(const Evidence& ev, const Chains& ch) {
    const std::size_t n = ev.classes.size();
    std::vector<std::vector<ClassId>> out(n);
    for (const auto& p : ev.pairs)
        if (p.verdict == Verdict::kept && p.from != p.to) out[p.from].push_back(p.to);

    enum class State : std::uint8_t { unseen, open, closed };
    std::vector<State> state(n, State::unseen);
    std::vector<ClassId> postorder;
    std::vector<std::pair<ClassId, std::size_t>> stack;  // tracepoint, next pair to follow
    auto search = [&](ClassId root) {
        if (state[root] != State::unseen) return;
        state[root] = State::open;
        stack.emplace_back(root, 0);
        while (!stack.empty()) {
            auto& [c, next] = stack.back();
            if (next < out[c].size()) {
                const ClassId to = out[c][next++];
                if (state[to] == State::unseen) {
                    state[to] = State::open;
                    stack.emplace_back(to, 0);
                }
                continue;
            }
            state[c] = State::closed;
            postorder.push_back(c);
            stack.pop_back();
        }
    };
    for (const ClassId s : ch.sources) search(s);
    for (ClassId c = 0; c < n; ++c) search(c);

    // Reverse postorder: a pair's consumer comes later unless the pair closes a cycle.
    std::vector<std::size_t> rank(n);
    for (std::size_t i = 0; i < n; ++i) rank[postorder[n - 1 - i]] = i;
    std::vector<std::uint32_t> depth(n, 0);
    for (std::size_t i = n; i-- > 0;) {
        const ClassId c = postorder[i];
        for (const ClassId to : out[c])
            if (rank[to] > rank[c]) depth[to] = std::max(depth[to], depth[c] + 1);
    }
    return depth;
}

}  // namespace

SystemPicture system_picture(const Evidence& ev, const Chains& ch) {
    SystemPicture picture;
    const auto depth = chain_depths(ev, ch);
    std::map<std::string, std::vector<ClassId>> by_node;
    for (ClassId c = 0; c < ev.classes.size(); ++c) by_node[ev.classes[c].node].push_back(c);
    for (const auto& [node, members] : by_node) {
        PictureNode& drawn = picture.nodes.emplace_back();
        drawn.name = node;
        for (const ClassId c : members) {
            const auto& cls = ev.classes[c];
            drawn.tracepoints.push_back({c, cls.selector(), cls.tracepoint, cls.samples, contains(ch.sources, c), contains(ch.sinks, c), depth[c]});
            picture.depths = std::max(picture.depths, depth[c] + 1);
        }
    }
    for (std::uint32_t i = 0; i < ev.pairs.size(); ++i) {
        const auto& p = ev.pairs[i];
        if (p.verdict == Verdict::shortcut) {
            ++picture.shortcuts;
            continue;
        }
        const bool suspect = p.verdict != Verdict::kept;
        (suspect ? picture.suspect : picture.kept) += 1;
        picture.edges.push_back({i, ev.classes[p.from].selector(), ev.classes[p.to].selector(), p.rate_per_s, p.p50_ms, suspect, p.verdict,
                                 p.scope});
    }
    return picture;
}

}  // namespace hashtrace::infer
