// hop_envelope.hpp - an upper bound on theta = v - u (on u's clock) at any
// time, from the messages u -> v of one hop: what carries a message over that
// hop when a cycle stands in for the messages a pair lacks (time_base.cpp).
//
// Each message (s, r) says theta(s) <= r - s at its own send time only. To
// say something at another time x, the bound has to assume how theta moves
// between the two:
// - the cone: theta changes by at most kMaxRate per ns (the rate the search
//   box assumes everywhere), so theta(x) <= (r - s) + kMaxRate * |x - s|;
//   the larger of the bounds from the messages before x and after x holds
//   across a step either way. Loose: a few tens of us per ms to the nearest
//   message.
// - the convex envelope (lower chain) of the messages: exact where theta is
//   one line, and far too tight after a step (it bridges the step), which
//   makes the pairs a cycle closes contradict themselves.
// So the envelope starts as the cone alone; once the hop's own pair has been
// fitted (with the cone, which finds its steps), `cut` adds one convex
// envelope per piece of that fit, from the messages between the changes that
// bound the piece and used there only (not where a change may lie). The
// bound is the smaller of the two.
#pragma once

#include "hashtrace/clock_analysis/pair_estimate.hpp"

#include <cstdint>
#include <optional>
#include <vector>

namespace hashtrace::clock_analysis::detail {

class HopEnvelope {
public:
    explicit HopEnvelope(std::vector<Point> upper);  // sorted by x
    // The hop's pair as fitted on u's clock (with this envelope's cones for
    // its cycles). A refused fit cuts nothing.
    void cut(const PairFit& fit);
    // nullopt outside the span of the hop's messages.
    std::optional<long double> at(std::int64_t x) const;

private:
    long double cone(std::int64_t x) const;

    struct Piece {
        std::int64_t from_ns, to_ns;  // where its chain is used
        std::vector<Point> chain;
    };
    std::vector<Point> points_;
    std::vector<Piece> pieces_;
};

}  // namespace hashtrace::clock_analysis::detail
