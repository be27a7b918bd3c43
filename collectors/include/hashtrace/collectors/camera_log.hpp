// hashtrace/collectors/camera_log.hpp - turning dated frame observations into
// the samples of the `Camera` node.
//
// Tracepoints (one family per region of the picture):
//   QrDisplayed    the first frame of each appearance of a code: the time the
//                  display showed it. Input hash: the payload under the
//                  PayloadMapping (payload.hpp); no output hash.
//   QrPersisting   every later frame of the same appearance (the display keeps
//                  showing the code: persistence, or a code held for two
//                  refreshes). Same input hash; kept so the analysis can see
//                  them, but a separate tracepoint so intervals ending at
//                  `Camera/QrDisplayed` measure the first photons only.
//   PpsRisingEdge  each PPS edge found on the LED region, no hashes.
// Every sample's seq is its frame number in the video, so a sample can be
// traced back to its frame.
//
// When was a code displayed? While a display changes from one code to the
// next, neither can be read (the paper lost ~6 ms per change this way, and
// overestimated the smallest latency by as much). Decoding fails about as long
// after the change's midpoint as before it, so by default (gap_middle) a
// QrDisplayed sample is dated at the middle of the gap between the old code's
// last frame and the new code's first (frame centres), when that gap is at most
// max_gap_frames frames; otherwise (a long stretch of unreadable frames says
// nothing about when the change happened) and in first_frame mode, at the
// first readable frame's centre, which is late by up to the unreadable time.
//
// The first code in the video is QrPersisting: it was on the display before
// filming began, so its appearance was not seen.
//
// An appearance ends only when a different code is read: unreadable frames
// (a refresh in progress, noise) inside a run of one code do not split it, and
// neither do misreads (text the payload mapping rejects).
#pragma once

#include "hashtrace/collectors/frame_clock.hpp"
#include "hashtrace/collectors/frame_observation.hpp"
#include "hashtrace/collectors/payload.hpp"
#include "hashtrace/collectors/pps_edges.hpp"
#include "hashtrace/logio/sample_log.hpp"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace hashtrace::collectors {

enum class FrameRole : std::uint8_t { unreadable, misread, first, persisting };

std::vector<FrameRole> classify_appearances(std::span<const FrameObservation> frames,
                                            const PayloadMapping& mapping);

enum class DisplayTime : std::uint8_t { gap_middle, first_frame };

struct CameraLogOptions {
    PayloadMapping mapping;
    DisplayTime display_time = DisplayTime::gap_middle;
    std::size_t max_gap_frames = 12;  // under a 60 Hz refresh at 1000 fps (16.7 frames)
    std::string node_name = "Camera";
    std::string instance = "1";
    std::string input_hash_type = "messageid";
};

struct CameraLogStats {
    std::size_t frames = 0;
    std::size_t unreadable = 0;
    std::size_t appearances = 0;   // QrDisplayed samples
    std::size_t persisting = 0;    // QrPersisting samples
    std::size_t misread = 0;       // read, but not a payload the mapping accepts
    std::size_t pps_edges = 0;
};

inline constexpr std::uint32_t kQrDisplayed = 0;
inline constexpr std::uint32_t kQrPersisting = 1;
inline constexpr std::uint32_t kPpsRisingEdge = 2;

logio::SampleLog build_camera_log(std::span<const FrameObservation> frames, std::span<const FrameRole> roles,
                                  std::span<const PpsEdge> edges, const FrameClock& clock,
                                  const CameraLogOptions& options, CameraLogStats& stats);

}  // namespace hashtrace::collectors
