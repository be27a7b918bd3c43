#include "hashtrace/clock_analysis/convex_hull.hpp"

#include <algorithm>

namespace hashtrace::clock_analysis {
namespace {

// > 0 when o -> a -> b turns left (counter-clockwise).
__int128 cross(const Point& o, const Point& a, const Point& b) {
    return static_cast<__int128>(a.x - o.x) * (b.y - o.y) - static_cast<__int128>(a.y - o.y) * (b.x - o.x);
}

}  // namespace

// Andrew's monotone chain; sign +1 keeps left turns (lower chain), -1 right turns (upper chain).
void ChainBuilder::add(const Point& p) {
    // Of several points at one x only the extreme one binds.
    if (!chain_.empty() && chain_.back().x == p.x) {
        if ((sign_ > 0) ? p.y >= chain_.back().y : p.y <= chain_.back().y) return;
        chain_.pop_back();
    }
    while (chain_.size() >= 2 && sign_ * cross(chain_[chain_.size() - 2], chain_.back(), p) <= 0) chain_.pop_back();
    chain_.push_back(p);
}

namespace {

std::vector<Point> chain(std::span<const Point> sorted, bool lower) {
    ChainBuilder builder(lower);
    for (const Point& p : sorted) builder.add(p);
    return builder.take();
}

}  // namespace

std::vector<Point> lower_chain(std::span<const Point> sorted) { return chain(sorted, true); }
std::vector<Point> upper_chain(std::span<const Point> sorted) { return chain(sorted, false); }

std::optional<long double> chain_at(std::span<const Point> chain, std::int64_t x) {
    if (chain.empty() || x < chain.front().x || x > chain.back().x) return std::nullopt;
    const auto it = std::upper_bound(chain.begin(), chain.end(), x, [](std::int64_t v, const Point& p) { return v < p.x; });
    if (it == chain.end()) return static_cast<long double>(chain.back().y);
    const Point& a = *(it - 1);
    const Point& b = *it;
    return static_cast<long double>(a.y) +
           static_cast<long double>(b.y - a.y) * static_cast<long double>(x - a.x) / static_cast<long double>(b.x - a.x);
}

}  // namespace hashtrace::clock_analysis
