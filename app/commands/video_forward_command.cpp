// `hashtrace collect video` and `collect simulate` in `hashtrace`: they run in
// the companion `hashtrace-video`, so that OpenCV's libraries load only for
// them (app/CMakeLists.txt).
#include "command.hpp"
#include "video_command_names.hpp"

namespace {

int run_in_video_tool(hashtrace::cli::Args& args) {
    return hashtrace::cli::run_in_companion(hashtrace::collectors::cli_support::kVideoTool, args);
}

}  // namespace

HASHTRACE_COMMAND("collect video", hashtrace::collectors::cli_support::kCollectVideoSummary, run_in_video_tool);
HASHTRACE_COMMAND("collect simulate", hashtrace::collectors::cli_support::kCollectSimulateSummary, run_in_video_tool);
