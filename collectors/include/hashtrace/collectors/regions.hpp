// hashtrace/collectors/regions.hpp - the parts of the picture the collector reads.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace hashtrace::collectors {

struct Region {
    int x = 0, y = 0, width = 0, height = 0;
    friend bool operator==(const Region&, const Region&) = default;
};

// "x,y,w,h" in pixels; throws std::invalid_argument naming the text and the reason.
Region parse_region(std::string_view text);
std::string format_region(const Region& r);
// Throws std::invalid_argument unless the region lies inside a width x height frame.
void check_region_inside(const Region& r, int width, int height, std::string_view what);

struct Regions {
    std::optional<Region> qr;   // where the code is shown; nullopt: find it
    std::optional<Region> led;  // the PPS LED; nullopt: find it (or run without one)
};

}  // namespace hashtrace::collectors
