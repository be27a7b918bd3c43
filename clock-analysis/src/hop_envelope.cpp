#include "hop_envelope.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace hashtrace::clock_analysis::detail {

HopEnvelope::HopEnvelope(std::vector<Point> upper) : points_(std::move(upper)) {}

void HopEnvelope::cut(const PairFit& fit) {
    pieces_.clear();
    if (fit.problem) return;
    constexpr std::int64_t kEnd = std::numeric_limits<std::int64_t>::max();
    for (std::size_t i = 0; i < fit.pieces.size(); ++i) {
        // Between the change that starts the piece and the one that ends it;
        // the first and the last piece reach the ends of the run.
        const std::int64_t from = i == 0 ? -kEnd : fit.pieces[i].change_hi_ns;
        const std::int64_t to = i + 1 == fit.pieces.size() ? kEnd : fit.pieces[i + 1].change_lo_ns;
        const auto b = std::lower_bound(points_.begin(), points_.end(), from, [](const Point& q, std::int64_t x) { return q.x < x; });
        const auto e = std::upper_bound(b, points_.end(), to, [](std::int64_t x, const Point& q) { return x < q.x; });
        if (e - b >= 2) pieces_.push_back({from, to, lower_chain(std::span<const Point>(b, e))});
    }
}

// The cone of the messages on one side of x (at or before it, at or after
// it): min of y + kMaxRate * |x - s|, searched outwards from x until the
// distance alone costs more than the best bound found. A step of theta
// between x and a message breaks that message's bound in one direction only:
// after a step up, the messages before it bound too low; after a step down,
// those after it (looking back). So of the two sides' bounds, the larger
// holds across one step either way; it costs a little against the smaller
// where theta is smooth.
long double HopEnvelope::cone(std::int64_t x) const {
    const auto reach = [&](const Point& q) { return kMaxRate * std::fabs(static_cast<long double>(x) - static_cast<long double>(q.x)); };
    const auto after = std::lower_bound(points_.begin(), points_.end(), x, [](const Point& q, std::int64_t v) { return q.x < v; });
    const auto before = std::upper_bound(points_.begin(), points_.end(), x, [](std::int64_t v, const Point& q) { return v < q.x; });
    constexpr long double kNone = std::numeric_limits<long double>::infinity();
    long double right = kNone, left = kNone;
    for (auto it = after; it != points_.end() && reach(*it) < right; ++it) right = std::min(right, static_cast<long double>(it->y) + reach(*it));
    for (auto it = before; it != points_.begin() && reach(*(it - 1)) < left;) {
        --it;
        left = std::min(left, static_cast<long double>(it->y) + reach(*it));
    }
    return std::max(left, right);  // both finite: x lies within the messages' span (at)
}

std::optional<long double> HopEnvelope::at(std::int64_t x) const {
    if (points_.empty() || x < points_.front().x || x > points_.back().x) return std::nullopt;
    long double bound = cone(x);
    for (const Piece& p : pieces_)
        if (p.from_ns <= x && x <= p.to_ns)
            if (const auto v = chain_at(p.chain, x)) bound = std::min(bound, *v);
    return bound;
}

}  // namespace hashtrace::clock_analysis::detail
