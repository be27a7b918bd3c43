#include "hashtrace/clock_analysis/pair_estimate.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace hashtrace::clock_analysis {
namespace {

using Polygon = std::vector<RegionVertex>;

Polygon search_box() {
    return {{{-kMaxOffsetNs, -kMaxRate}, 1 | 4}, {{kMaxOffsetNs, -kMaxRate}, 2 | 4},
            {{kMaxOffsetNs, kMaxRate}, 2 | 8}, {{-kMaxOffsetNs, kMaxRate}, 1 | 8}};
}

// Keeps the lines with sign * (line(p.x) - p.y) <= 0 (Sutherland-Hodgman on one half-plane).
void clip(Polygon& polygon, const Point& p, int sign, std::int64_t origin_ns) {
    if (polygon.empty()) return;
    const auto excess = [&](const RegionVertex& v) { return sign * (v.line.at(p.x, origin_ns) - static_cast<long double>(p.y)); };
    Polygon out;
    out.reserve(polygon.size() + 1);
    for (std::size_t i = 0; i < polygon.size(); ++i) {
        const RegionVertex& a = polygon[i];
        const RegionVertex& b = polygon[(i + 1) % polygon.size()];
        const long double ea = excess(a), eb = excess(b);
        if (ea <= 0) out.push_back(a);
        if ((ea < 0 && eb > 0) || (ea > 0 && eb < 0)) {
            const long double t = ea / (ea - eb);
            out.push_back({{a.line.offset_ns + t * (b.line.offset_ns - a.line.offset_ns), a.line.rate + t * (b.line.rate - a.line.rate)},
                           a.box & b.box});
        }
    }
    polygon = std::move(out);
}

Polygon feasible_region(std::span<const Point> ceiling, std::span<const Point> floor, std::int64_t origin_ns) {
    Polygon region = search_box();
    for (const Point& p : ceiling) clip(region, p, +1, origin_ns);
    for (const Point& p : floor) clip(region, p, -1, origin_ns);
    return region;
}


// Area centroid (vertex mean for a degenerate polygon), relative to the first
// vertex so that the offsets' large common part does not cost precision.
Line centroid(const Polygon& polygon) {
    const Line& o = polygon.front().line;
    long double area2 = 0, ca = 0, cb = 0, ma = 0, mb = 0;
    for (std::size_t i = 0; i < polygon.size(); ++i) {
        const Line& p = polygon[i].line;
        const Line& q = polygon[(i + 1) % polygon.size()].line;
        const long double pa = p.offset_ns - o.offset_ns, pb = p.rate - o.rate, qa = q.offset_ns - o.offset_ns, qb = q.rate - o.rate;
        const long double c = pa * qb - qa * pb;
        area2 += c;
        ca += (pa + qa) * c;
        cb += (pb + qb) * c;
        ma += pa;
        mb += pb;
    }
    const long double n = static_cast<long double>(polygon.size());
    // The offsets span ~1e4 ns and the rates ~1e-6 here: an area near 1e-20 of that is rounding.
    if (std::fabs(area2) <= 1e-12L * std::fabs(ma * mb / (n * n)) || area2 == 0) return {o.offset_ns + ma / n, o.rate + mb / n};
    return {o.offset_ns + ca / (3 * area2), o.rate + cb / (3 * area2)};
}

std::span<const Point> within(std::span<const Point> sorted, std::int64_t first, std::int64_t last) {
    const auto b = std::lower_bound(sorted.begin(), sorted.end(), first, [](const Point& p, std::int64_t x) { return p.x < x; });
    const auto e = std::upper_bound(b, sorted.end(), last, [](std::int64_t x, const Point& p) { return x < p.x; });
    return {b, e};
}

PairPiece piece_from_chains(std::vector<Point> ceiling, std::vector<Point> floor, std::size_t upper_count, std::size_t lower_count,
                            std::int64_t origin_ns) {
    PairPiece piece;
    piece.upper_count = upper_count;
    piece.lower_count = lower_count;
    piece.first_ns = std::numeric_limits<std::int64_t>::max();
    piece.last_ns = std::numeric_limits<std::int64_t>::min();
    for (const auto* side : {&ceiling, &floor}) {
        if (side->empty()) continue;
        piece.first_ns = std::min(piece.first_ns, side->front().x);
        piece.last_ns = std::max(piece.last_ns, side->back().x);
    }
    piece.region = feasible_region(ceiling, floor, origin_ns);
    piece.ceiling = std::move(ceiling);
    piece.floor = std::move(floor);
    const bool bounded = !piece.region.empty() &&
                         std::none_of(piece.region.begin(), piece.region.end(), [](const RegionVertex& v) { return v.box != 0; });
    if (bounded) piece.estimate = centroid(piece.region);
    return piece;
}

PairPiece make_piece(std::span<const Point> upper, std::span<const Point> lower, std::int64_t origin_ns) {
    return piece_from_chains(lower_chain(upper), upper_chain(lower), upper.size(), lower.size(), origin_ns);
}

}  // namespace

namespace {

// A chain's bound at x (side +1: the ceiling's, above; -1: the floor's,
// below). Beyond the chain's ends a line may take any slope the search box
// allows (|rate| <= kMaxRate), so the bound there is the end's, loosened by
// that slope over the distance: a one-sided instance is bounded at the
// reference's first sample too, when its messages start later.
std::optional<long double> chain_bound(std::span<const Point> chain, std::int64_t x, int side) {
    if (chain.empty()) return std::nullopt;
    if (const auto inside = chain_at(chain, x)) return inside;
    const Point& end = x < chain.front().x ? chain.front() : chain.back();
    const long double distance = std::abs(static_cast<long double>(x) - static_cast<long double>(end.x));
    return static_cast<long double>(end.y) + side * kMaxRate * distance;
}

}  // namespace

Bounds PairPiece::bounds_at(std::int64_t x, std::int64_t origin_ns) const {
    Bounds b;
    if (estimate) {
        long double lo = region.front().line.at(x, origin_ns), hi = lo;
        for (const RegionVertex& v : region) {
            const long double value = v.line.at(x, origin_ns);
            lo = std::min(lo, value);
            hi = std::max(hi, value);
        }
        b.lo = lo;
        b.hi = hi;
        return b;
    }
    b.hi = chain_bound(ceiling, x, +1);
    b.lo = chain_bound(floor, x, -1);
    return b;
}

bool PairFit::placed() const {
    return !problem && !pieces.empty() && std::all_of(pieces.begin(), pieces.end(), [](const PairPiece& p) { return p.estimate.has_value(); });
}

const PairPiece& PairFit::piece_at(std::int64_t x) const {
    std::size_t i = 0;
    while (i + 1 < pieces.size() && pieces[i + 1].first_ns <= x) ++i;
    return pieces[i];
}

std::optional<PairFit> fit_one_piece(std::vector<Point> ceiling, std::vector<Point> floor, std::size_t upper_count,
                                     std::size_t lower_count, std::int64_t origin_ns) {
    PairFit fit;
    fit.origin_ns = origin_ns;
    fit.messages = upper_count + lower_count;
    if (upper_count + lower_count == 0) return fit;
    fit.pieces.push_back(piece_from_chains(std::move(ceiling), std::move(floor), upper_count, lower_count, origin_ns));
    if (fit.pieces.front().region.empty()) return std::nullopt;
    return fit;
}

namespace {

// The constraints' distinct times, in order.
std::vector<std::int64_t> merged_times(std::span<const Point> upper, std::span<const Point> lower) {
    std::vector<std::int64_t> merged;
    merged.reserve(upper.size() + lower.size());
    std::size_t u = 0, l = 0;
    while (u < upper.size() || l < lower.size())
        merged.push_back(l == lower.size() || (u < upper.size() && upper[u].x <= lower[l].x) ? upper[u++].x : lower[l++].x);
    merged.erase(std::unique(merged.begin(), merged.end()), merged.end());
    return merged;
}

// A run is feasible from any single instant unless a message each way at
// that very nanosecond contradict each other: that instant, if any.
std::optional<std::int64_t> contradiction_at_one_instant(std::span<const Point> upper, std::span<const Point> lower) {
    for (std::size_t u = 0, l = 0; u < upper.size() && l < lower.size();) {
        if (upper[u].x < lower[l].x) ++u;
        else if (lower[l].x < upper[u].x) ++l;
        else if (upper[u].y < lower[l].y) return upper[u].x;
        else ++u;
    }
    return std::nullopt;
}

// Each piece is a longest feasible run of constraints (feasibility only
// shrinks as constraints are added), found by galloping then bisection, so a
// run without a step costs one check.
class PieceSearch {
public:
    PieceSearch(std::span<const Point> upper, std::span<const Point> lower, std::int64_t origin_ns)
        : upper_(upper), lower_(lower), origin_ns_(origin_ns), merged_(merged_times(upper, lower)) {}
    const std::vector<std::int64_t>& times() const { return merged_; }
    // The farthest index from `anchor` (forward or back) that one line still fits with it.
    std::size_t longest(std::size_t anchor, bool forward) const {
        const std::size_t far = forward ? merged_.size() - 1 : 0;
        const auto span = [&](std::size_t other) { return forward ? feasible(anchor, other) : feasible(other, anchor); };
        if (span(far)) return far;
        std::size_t good = 0, bad = forward ? far - anchor : anchor - far;  // distances from the anchor
        for (std::size_t step = 1; good + step < bad; step *= 2) {
            if (!span(forward ? anchor + good + step : anchor - good - step)) {
                bad = good + step;
                break;
            }
            good += step;
        }
        while (bad - good > 1) {
            const std::size_t mid = good + (bad - good) / 2;
            (span(forward ? anchor + mid : anchor - mid) ? good : bad) = mid;
        }
        return forward ? anchor + good : anchor - good;
    }
    PairPiece piece(std::size_t first, std::size_t last) const {
        return make_piece(within(upper_, merged_[first], merged_[last]), within(lower_, merged_[first], merged_[last]), origin_ns_);
    }

private:
    bool feasible(std::size_t first, std::size_t last) const {
        return !feasible_region(lower_chain(within(upper_, merged_[first], merged_[last])),
                                upper_chain(within(lower_, merged_[first], merged_[last])), origin_ns_).empty();
    }
    std::span<const Point> upper_, lower_;
    std::int64_t origin_ns_;
    std::vector<std::int64_t> merged_;
};

// Pieces, in time order. Where two overlap (a run feasible with either), the
// boundary goes to the middle of the overlap: the change happened somewhere
// in it, and the later piece says where it may lie. Sets fit.problem past
// max_pieces.
void split_into_pieces(const PieceSearch& search, const FitOptions& options, PairFit& fit) {
    const auto& merged = search.times();
    std::size_t start = 0, end = search.longest(0, true);
    std::int64_t change_lo = 0, change_hi = 0;  // of the piece to be added next
    const auto add_piece = [&](std::size_t first, std::size_t last) {
        fit.pieces.push_back(search.piece(first, last));
        fit.pieces.back().change_lo_ns = change_lo;
        fit.pieces.back().change_hi_ns = change_hi;
    };
    while (end + 1 < merged.size()) {
        if (fit.pieces.size() + 1 == options.max_pieces) {
            fit.problem = {"more than " + std::to_string(options.max_pieces) + " pieces (a clock jumping back and forth, or wrong links)",
                           merged[start], merged.back()};
            return;
        }
        const std::size_t next_end = search.longest(end + 1, true);
        const std::size_t next_start = search.longest(next_end, false);  // > start, or the first piece would reach next_end
        const std::size_t boundary = std::max(start, (next_start + end) / 2);
        add_piece(start, boundary);
        // [start, end + 1] and [next_start - 1, next_end] fit no line: the change lies in both.
        change_lo = merged[next_start - 1];
        change_hi = merged[end + 1];
        start = boundary + 1;
        end = next_end;
    }
    add_piece(start, end);
}

// Pieces between contradictions need messages both ways to fit a rate: a
// short one means the clock jumped back and forth, or links are wrong.
void refuse_short_pieces(const FitOptions& options, PairFit& fit) {
    if (fit.pieces.size() < 2) return;
    for (const PairPiece& p : fit.pieces) {
        if (p.upper_count >= options.min_piece_constraints && p.lower_count >= options.min_piece_constraints) continue;
        fit.problem = {"the constraints contradict each other and a piece between them would hold only " + std::to_string(p.upper_count) +
                           " + " + std::to_string(p.lower_count) + " messages (a clock jumping back and forth, or wrong links)",
                       p.first_ns, p.last_ns};
        return;
    }
}

}  // namespace

PairFit fit_pair(std::span<const Point> upper, std::span<const Point> lower, std::int64_t origin_ns, const FitOptions& options) {
    PairFit fit;
    fit.origin_ns = origin_ns;
    fit.messages = upper.size() + lower.size();
    if (upper.empty() && lower.empty()) return fit;
    if (upper.empty() || lower.empty()) {  // one-sided: always feasible, never a piece boundary
        fit.pieces.push_back(make_piece(upper, lower, origin_ns));
        return fit;
    }
    if (const auto at = contradiction_at_one_instant(upper, lower)) {
        fit.problem = {"a receive before its send on any line at one instant", *at, *at};
        return fit;
    }
    split_into_pieces(PieceSearch(upper, lower, origin_ns), options, fit);
    if (!fit.problem) refuse_short_pieces(options, fit);
    return fit;
}

}  // namespace hashtrace::clock_analysis
