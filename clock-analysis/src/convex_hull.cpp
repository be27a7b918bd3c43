#include "hashtrace/clock_analysis/convex_hull.hpp"

#include <algorithm>

namespace hashtrace::clock_analysis {
namespace {

// > 0 when o -> a -> b turns left (counter-clockwise).
__int128 cross(const Point& o, const Point& a, const Point& b) {
    return static_cast<__int128>(a.x - o.x) * (b.y - o.y) - static_cast<__int128>(a.y - o.y) * (b.x - o.x);
}

// Andrew's monotone chain; sign +1 keeps left turns (lower chain), -1 right turns (upper chain).
std::vector<Point> chain(std::span<const Point> sorted, int sign) {
    std::vector<Point> out;
    for (const Point& p : sorted) {
        // Of several points at one x only the extreme one binds.
        if (!out.empty() && out.back().x == p.x) {
            if ((sign > 0) ? p.y >= out.back().y : p.y <= out.back().y) continue;
            out.pop_back();
        }
        while (out.size() >= 2 && sign * cross(out[out.size() - 2], out.back(), p) <= 0) out.pop_back();
        out.push_back(p);
    }
    return out;
}

}  // namespace

std::vector<Point> lower_chain(std::span<const Point> sorted) { return chain(sorted, +1); }
std::vector<Point> upper_chain(std::span<const Point> sorted) { return chain(sorted, -1); }

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
