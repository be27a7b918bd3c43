// video_command_names.hpp - the names and summaries of the commands
// that run in `hashtrace-video`, shared by their implementations there and the
// forwarders that list and start them from `hashtrace` (video_forward_command.cpp).
#pragma once

namespace hashtrace::collectors::cli_support {

inline constexpr const char* kVideoTool = "hashtrace-video";
inline constexpr const char* kCollectVideoSummary = "samples from high-speed video of QR codes and a PPS LED";
inline constexpr const char* kCollectSimulateSummary = "write test footage of QR codes and a PPS LED with ground truth";

}  // namespace hashtrace::collectors::cli_support
