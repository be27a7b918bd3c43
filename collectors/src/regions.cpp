#include "hashtrace/collectors/regions.hpp"

#include <charconv>
#include <stdexcept>

namespace hashtrace::collectors {

Region parse_region(std::string_view text) {
    int values[4];
    const char* p = text.data();
    const char* end = text.data() + text.size();
    for (int i = 0; i < 4; ++i) {
        auto [next, ec] = std::from_chars(p, end, values[i]);
        if (ec != std::errc{}) throw std::invalid_argument("region '" + std::string(text) + "': expected x,y,w,h in pixels");
        p = next;
        if (i < 3) {
            if (p == end || *p != ',') throw std::invalid_argument("region '" + std::string(text) + "': expected x,y,w,h in pixels");
            ++p;
        }
    }
    if (p != end) throw std::invalid_argument("region '" + std::string(text) + "': unexpected text after x,y,w,h");
    Region r{values[0], values[1], values[2], values[3]};
    if (r.x < 0 || r.y < 0 || r.width <= 0 || r.height <= 0)
        throw std::invalid_argument("region '" + std::string(text) + "': x and y must be >= 0 and w, h > 0");
    return r;
}

std::string format_region(const Region& r) {
    return std::to_string(r.x) + "," + std::to_string(r.y) + "," + std::to_string(r.width) + "," + std::to_string(r.height);
}

void check_region_inside(const Region& r, int width, int height, std::string_view what) {
    if (r.x + r.width > width || r.y + r.height > height)
        throw std::invalid_argument(std::string(what) + " region " + format_region(r) + " lies outside the " +
                                    std::to_string(width) + "x" + std::to_string(height) + " frame");
}

}  // namespace hashtrace::collectors
