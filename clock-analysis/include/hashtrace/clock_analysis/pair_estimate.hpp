// hashtrace/clock_analysis/pair_estimate.hpp - the clock of one process
// instance relative to another's, from the messages between them.
//
// theta(x) = (the other clock) - (the axis clock), at axis time x, is taken
// to be a line offset + rate * (x - origin) (a piece of it, where a clock
// stepped or changed rate). A message axis -> other, sent at s (axis clock)
// and received at r (other clock), says theta(s) <= r - s: an upper point
// (s, r - s). A message other -> axis, sent at s' and received at r', says
// theta(r') >= s' - r': a lower point (r', s' - r'). Both are exact (clock
// rates are positive), with no assumption about transit times beyond their
// being >= 0. The lines meeting every constraint are a convex polygon in
// (offset, rate): its extreme vertices give guaranteed bounds at any time,
// its centroid the estimate (a line that bisects the feasible region).
#pragma once

#include "hashtrace/clock_analysis/convex_hull.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace hashtrace::clock_analysis {

// Lines beyond these are outside the search box; a bound set by the box is
// no bound ("unbounded"). 1% is far beyond any working oscillator.
inline constexpr long double kMaxRate = 0.01L;
inline constexpr long double kMaxOffsetNs = 1e15L;

struct Line {
    long double offset_ns = 0;  // at the fit's origin
    long double rate = 0;       // dimensionless: drift_ppm = rate * 1e6
    long double at(std::int64_t x, std::int64_t origin_ns) const {
        return offset_ns + rate * static_cast<long double>(x - origin_ns);
    }
};

struct Bounds {
    std::optional<long double> lo, hi;  // nullopt: unbounded on that side
};

// A vertex of the feasible region; `box` says which sides of the search box
// it lies on (1, 2: offset -, +; 4, 8: rate -, +), 0 when set by messages alone.
struct RegionVertex {
    Line line;
    unsigned box = 0;
};

struct PairPiece {
    std::int64_t first_ns = 0, last_ns = 0;  // span of its constraints on the axis clock
    std::size_t upper_count = 0, lower_count = 0;
    // A piece after the first: the change that starts it (a step, a new
    // rate) lies in [change_lo_ns, change_hi_ns], the span where neither its
    // line nor the one before fits every constraint (one change between them).
    std::int64_t change_lo_ns = 0, change_hi_ns = 0;
    std::vector<Point> ceiling, floor;       // theta <= ceiling (convex chain), theta >= floor (concave chain)
    std::vector<RegionVertex> region;        // convex polygon, empty when infeasible
    std::optional<Line> estimate;            // the region's centroid; nullopt unless bounded on both sides
    // Bounds on theta(x): from the region's vertices where it is bounded;
    // otherwise (one-sided, or too few messages for a rate) from the chains,
    // within their spans only: any line below a chain's vertices is below
    // the chain between them, but beyond its ends a line may have any slope.
    Bounds bounds_at(std::int64_t x, std::int64_t origin_ns) const;
};

struct PairFit {
    std::int64_t origin_ns = 0;
    std::vector<PairPiece> pieces;  // in time order
    std::size_t messages = 0;       // constraints used
    // Set when the constraints contradict each other in a way pieces cannot
    // explain (too many pieces, or a piece too short to fit): the fit is refused.
    struct Contradiction {
        std::string reason;
        std::int64_t first_ns = 0, last_ns = 0;  // the time span (axis clock) where it shows
    };
    std::optional<Contradiction> problem;
    // Two-sided in every piece and not refused: usable for a time base.
    bool placed() const;
    const PairPiece& piece_at(std::int64_t x) const;  // the last piece starting at or before x (else the first)
};

struct FitOptions {
    std::size_t max_pieces = 16;           // more: a clock jumping back and forth, refused
    std::size_t min_piece_constraints = 2; // per side, to fit a rate
};

// upper and lower sorted by x. Pure.
PairFit fit_pair(std::span<const Point> upper, std::span<const Point> lower, std::int64_t origin_ns,
                 const FitOptions& options = {});

// The same fit from the two chains alone (ceiling = lower_chain(upper),
// floor = upper_chain(lower)) when one line meets every constraint; nullopt
// when none does: then fit_pair, which needs the points, finds the pieces.
// For callers that stream their points into chains (time_base.cpp).
std::optional<PairFit> fit_one_piece(std::vector<Point> ceiling, std::vector<Point> floor, std::size_t upper_count,
                                     std::size_t lower_count, std::int64_t origin_ns);

}  // namespace hashtrace::clock_analysis
