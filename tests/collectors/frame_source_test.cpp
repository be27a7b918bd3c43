// Reading video files: errors name the file and frame; frames decoded ahead
// on other threads arrive complete and in order.
#include "hashtrace/collectors/decode_ahead.hpp"
#include "hashtrace/collectors/frame_source.hpp"

#include <gtest/gtest.h>

#include <opencv2/videoio.hpp>

#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace hashtrace::collectors;

// This suite also runs under ThreadSanitizer (label tsan). OpenCV's imdecode
// offers every image to GDAL first, and GDAL takes two of its own mutexes in
// both orders on the calling thread: a lock-order report inside libgdal,
// not about our threads. TSan reads this hook at start-up.
extern "C" const char* __tsan_default_suppressions() { return "deadlock:libgdal.so\n"; }

TEST(FrameSource, MissingAndUnreadableFilesNameTheFile) {
    try {
        FrameSource::open_file("/nonexistent/footage.avi");
        FAIL() << "opened a missing file";
    } catch (const VideoError& e) {
        EXPECT_NE(std::string(e.what()).find("/nonexistent/footage.avi: no such file"), std::string::npos) << e.what();
    }
    const auto text = std::filesystem::temp_directory_path() / ("hashtrace-not-a-video-" + std::to_string(::getpid()) + ".avi");
    {
        std::ofstream out(text);
        out << "this is not a video\n";
    }
    try {
        FrameSource::open_file(text);
        ADD_FAILURE() << "opened a text file as video";
    } catch (const VideoError& e) {
        EXPECT_NE(std::string(e.what()).find(text.string()), std::string::npos) << e.what();
    }
    std::filesystem::remove(text);
}

TEST(DecodeAhead, DeliversEveryFrameInOrderWhateverTheThreadCount) {
    // Frame k is a flat grey of level k: order is visible in the pixels.
    const auto file = std::filesystem::temp_directory_path() / ("hashtrace-ordered-" + std::to_string(::getpid()) + ".avi");
    constexpr int kFrames = 120;
    {
        cv::VideoWriter writer(file.string(), cv::CAP_FFMPEG, cv::VideoWriter::fourcc('M', 'J', 'P', 'G'), 1000,
                               cv::Size(64, 48), false);
        ASSERT_TRUE(writer.isOpened());
        for (int k = 0; k < kFrames; ++k) writer.write(cv::Mat(48, 64, CV_8UC1, cv::Scalar(k * 2)));
    }
    for (unsigned threads : {0u, 1u, 2u, 4u}) {
        FrameSource source = FrameSource::open_file(file);
        DecodeAhead frames(source, threads);
        cv::Mat frame;
        int k = 0;
        while (frames.next(frame)) {
            ASSERT_NEAR(cv::mean(frame)[0], k * 2, 1.5) << "threads " << threads << " frame " << k;
            ++k;
        }
        EXPECT_EQ(k, kFrames) << "threads " << threads;
    }
    {
        // Stopping early (an error while reading codes) joins the decoders.
        FrameSource source = FrameSource::open_file(file);
        DecodeAhead frames(source, 2);
        cv::Mat frame;
        ASSERT_TRUE(frames.next(frame));
    }
    std::filesystem::remove(file);
}
