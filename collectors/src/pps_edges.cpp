#include "hashtrace/collectors/pps_edges.hpp"

#include <algorithm>
#include <vector>

namespace hashtrace::collectors {

LuminanceLevels cluster_levels(std::span<const double> luminance) {
    if (luminance.empty()) return {};
    const auto [lo, hi] = std::minmax_element(luminance.begin(), luminance.end());
    double threshold = (*lo + *hi) / 2;
    LuminanceLevels levels{*lo, *hi};
    // Two-means: converges in a handful of iterations for a two-level signal.
    for (int iteration = 0; iteration < 32; ++iteration) {
        double dark_sum = 0, bright_sum = 0;
        std::size_t dark_n = 0, bright_n = 0;
        for (double v : luminance) {
            if (v < threshold) {
                dark_sum += v;
                ++dark_n;
            } else {
                bright_sum += v;
                ++bright_n;
            }
        }
        if (dark_n == 0 || bright_n == 0) break;
        levels = {dark_sum / dark_n, bright_sum / bright_n};
        const double next = (levels.dark + levels.bright) / 2;
        if (next == threshold) break;
        threshold = next;
    }
    // The levels are the clusters' medians: the few frames caught mid-edge
    // would pull a mean towards the other level.
    std::vector<double> dark, bright;
    for (double v : luminance) (v < threshold ? dark : bright).push_back(v);
    auto median = [](std::vector<double>& v) {
        std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
        return v[v.size() / 2];
    };
    if (!dark.empty() && !bright.empty()) levels = {median(dark), median(bright)};
    return levels;
}

PpsEdgeResult detect_pps_edges(std::span<const double> luminance, const PpsEdgeOptions& options) {
    PpsEdgeResult result;
    result.levels = cluster_levels(luminance);
    const double range = result.levels.bright - result.levels.dark;
    result.has_signal = range >= options.min_contrast;
    if (!result.has_signal || options.window == 0) return result;

    const std::size_t n = luminance.size();
    const std::size_t w = options.window;
    auto level = [&](std::size_t i) { return (luminance[i] - result.levels.dark) / range; };
    auto mean_level = [&](std::size_t from, std::size_t to) {  // [from, to)
        double sum = 0;
        for (std::size_t i = from; i < to; ++i) sum += level(i);
        return sum / static_cast<double>(to - from);
    };

    bool bright = n > 0 && level(0) > 0.5;
    for (std::size_t i = 1; i < n; ++i) {
        const double v = level(i);
        if (bright) {
            if (v < 0.3) bright = false;
            continue;
        }
        if (v <= 0.5) continue;
        // Frame i is the first more bright than dark: a candidate edge.
        if (i < w || i + w > n) {
            ++result.edges_at_boundary;
            bright = true;
            continue;
        }
        if (mean_level(i - w, i) >= 0.3 || mean_level(i, i + w) <= 0.7) continue;  // a glitch
        double deficit = 0;
        for (std::size_t k = i - w; k < i + w; ++k) deficit += 1.0 - level(k);
        result.edges.push_back({static_cast<double>(i - w) + deficit - options.rise_frames / 2, i});
        bright = true;
    }
    return result;
}

}  // namespace hashtrace::collectors
