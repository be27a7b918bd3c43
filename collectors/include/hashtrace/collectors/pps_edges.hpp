// hashtrace/collectors/pps_edges.hpp - finding the PPS LED's rising edges in
// a luminance series (one value per video frame).
//
// Frame positions are in frames since the start of frame 0's exposure: frame k
// is exposed over [k, k+1). The camera is assumed to expose for its whole frame
// period (as high-speed cameras at full shutter do), so a frame's luminance is
// the LED's light averaged over that frame.
//
// Robustness:
//  - the dark and bright levels are the medians of a two-means clustering of
//    all frames, so exposure and LED brightness need no configuration;
//  - a rising edge needs `window` frames that are dark on average before it
//    and `window` frames that are bright on average after it (hysteresis),
//    so single noisy frames never make an edge;
//  - the sub-frame position is the light deficit over those 2*window frames:
//    with levels normalised to 0 (dark) and 1 (bright),
//        edge = start + sum over the window of (1 - level)
//    which is exact for an instantaneous edge under full-period exposure, is
//    the midpoint of a slow (linear) rise that fits in the window, and
//    averages zero-mean noise instead of thresholding it;
//  - a PPS edge is where the LED *starts* to rise, so half the LED's known
//    rise time (`rise_frames`, from its datasheet or a measurement) is taken
//    off the midpoint the light deficit gives.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace hashtrace::collectors {

struct PpsEdgeOptions {
    std::size_t window = 8;       // frames either side; must cover the LED's rise
    double min_contrast = 12.0;   // grey levels between dark and bright, else no LED signal
    double rise_frames = 0;       // the LED's 0-100% rise time, in frames
};

struct LuminanceLevels {
    double dark = 0;
    double bright = 0;
};

struct PpsEdge {
    double position = 0;     // frames since the start of frame 0's exposure
    std::size_t frame = 0;   // first frame that is more bright than dark
};

struct PpsEdgeResult {
    LuminanceLevels levels;
    bool has_signal = false;            // contrast >= min_contrast
    std::vector<PpsEdge> edges;
    std::size_t edges_at_boundary = 0;  // rising edges too close to the start or end to measure
};

LuminanceLevels cluster_levels(std::span<const double> luminance);
PpsEdgeResult detect_pps_edges(std::span<const double> luminance, const PpsEdgeOptions& options = {});

}  // namespace hashtrace::collectors
