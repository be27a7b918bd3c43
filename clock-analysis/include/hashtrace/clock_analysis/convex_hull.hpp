// hashtrace/clock_analysis/convex_hull.hpp - the two convex chains of a set of
// clock constraints (Duda's convex-hull method, as Trace Compass uses it).
//
// A message gives one point (x, y): "the receiver's clock minus the sender's,
// at time x, is at most (or at least) y". A line lies below every point of a
// set exactly when it lies below the set's lower chain, so the few chain
// vertices carry all the constraints of thousands of messages.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace hashtrace::clock_analysis {

struct Point {
    std::int64_t x = 0;  // ns, on the time axis of the pair's first clock
    std::int64_t y = 0;  // ns
};

// A chain grown one point at a time, x never decreasing: what the batch
// functions below do, for callers that stream their points (no array of them).
class ChainBuilder {
public:
    explicit ChainBuilder(bool lower) : sign_(lower ? 1 : -1) {}
    void add(const Point& p);
    const std::vector<Point>& chain() const noexcept { return chain_; }
    std::vector<Point> take() noexcept { return std::move(chain_); }

private:
    int sign_;
    std::vector<Point> chain_;
};

// Points sorted by x (ties in any order). Orientation tests are exact
// (128-bit cross products), so the chains do not depend on rounding.
std::vector<Point> lower_chain(std::span<const Point> sorted);  // convex: the binding upper constraints
std::vector<Point> upper_chain(std::span<const Point> sorted);  // concave: the binding lower constraints

// A chain's value at x, interpolated; nullopt outside its span.
std::optional<long double> chain_at(std::span<const Point> chain, std::int64_t x);

}  // namespace hashtrace::clock_analysis
