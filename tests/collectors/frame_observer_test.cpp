#include "hashtrace/collectors/frame_observer.hpp"
#include "hashtrace/collectors/frame_source.hpp"
#include "hashtrace/collectors/qr_render.hpp"
#include "hashtrace/collectors/region_finder.hpp"

#include <gtest/gtest.h>

#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>

#include <filesystem>
#include <unistd.h>

using namespace hashtrace::collectors;

namespace {
cv::Mat scene(const char* text, int led_level = 40) {
    cv::Mat frame(480, 640, CV_8UC1, cv::Scalar(70));
    if (text) render_qr(text, 200).copyTo(frame(cv::Rect(300, 150, 200, 200)));
    cv::circle(frame, cv::Point(60, 60), 12, cv::Scalar(led_level), cv::FILLED);
    return frame;
}
}  // namespace

TEST(FrameObserver, DecodesTheCodeInItsRegionAndMeasuresTheLed) {
    FrameObserver observer(Region{280, 130, 240, 240}, Region{54, 54, 12, 12});
    const auto seen = observer.observe(scene("41007", 200));
    ASSERT_TRUE(seen.payload);
    EXPECT_EQ(*seen.payload, "41007");
    EXPECT_NEAR(seen.led_luminance, 200, 0.5);
}

TEST(FrameObserver, ReusesADecodeOnlyWhileTheRegionIsUnchanged) {
    FrameObserver observer(Region{280, 130, 240, 240}, std::nullopt);
    EXPECT_EQ(observer.observe(scene("1")).payload, "1");
    EXPECT_EQ(observer.observe(scene("1")).payload, "1");
    EXPECT_EQ(observer.decodes(), 1u);
    EXPECT_EQ(observer.reused(), 1u);
    EXPECT_EQ(observer.observe(scene("2")).payload, "2");
    EXPECT_EQ(observer.decodes(), 2u);
    // Unreadable frames are decoded every time, never reused.
    EXPECT_FALSE(observer.observe(scene(nullptr)).payload);
    EXPECT_FALSE(observer.observe(scene(nullptr)).payload);
    EXPECT_EQ(observer.decodes(), 4u);
}

TEST(FrameObserver, WithoutReuseDecodesEveryFrame) {
    FrameObserver observer(Region{280, 130, 240, 240}, std::nullopt, {.reuse_unchanged = false});
    for (int i = 0; i < 3; ++i) EXPECT_EQ(observer.observe(scene("9")).payload, "9");
    EXPECT_EQ(observer.decodes(), 3u);
    EXPECT_EQ(observer.reused(), 0u);
}

TEST(FrameObserver, AHalfwayBlendOfTwoCodesIsNotMistakenForEither) {
    cv::Mat blend;
    cv::addWeighted(scene("123456"), 0.5, scene("654321"), 0.5, 0, blend);
    FrameObserver observer(Region{280, 130, 240, 240}, std::nullopt);
    const auto seen = observer.observe(blend);
    if (seen.payload) {
        EXPECT_TRUE(*seen.payload == "123456" || *seen.payload == "654321") << *seen.payload;
    }
}

TEST(FrameObserver, RejectsColourFrames) {
    FrameObserver observer(Region{0, 0, 10, 10}, std::nullopt);
    EXPECT_THROW(observer.observe(cv::Mat(20, 20, CV_8UC3)), std::invalid_argument);
}

TEST(FindQrCode, GivesTheCodesBounds) {
    const auto found = find_qr_code(scene("77"));
    ASSERT_TRUE(found);
    EXPECT_EQ(found->payload, "77");
    EXPECT_GE(found->bounds.x, 300);
    EXPECT_LE(found->bounds.x + found->bounds.width, 500);
    EXPECT_GE(found->bounds.y, 150);
    EXPECT_LE(found->bounds.y + found->bounds.height, 350);
    EXPECT_FALSE(find_qr_code(scene(nullptr)));
}

TEST(RegionFinder, FindsTheCodeAndTheBlinkingLed) {
    RegionFinder finder;
    for (int i = 0; i < 40; ++i) finder.add(scene(i < 20 ? "5" : "6", i % 10 < 3 ? 220 : 40));
    ASSERT_TRUE(finder.qr());
    const Region qr = *finder.qr();
    EXPECT_LE(qr.x, 300);
    EXPECT_GE(qr.x + qr.width, 500);
    const auto led = finder.led();
    ASSERT_TRUE(led);
    // Inside the LED's 12-pixel radius around (60, 60).
    EXPECT_GE(led->x, 47);
    EXPECT_LE(led->x + led->width, 74);
    EXPECT_GE(led->y, 47);
    EXPECT_LE(led->y + led->height, 74);
    EXPECT_GT(led->width, 8);
}

TEST(RegionFinder, NoBlinkingNoLed) {
    RegionFinder finder;
    for (int i = 0; i < 5; ++i) finder.add(scene("5"));
    EXPECT_FALSE(finder.led());
}

// Not in the tsan-labelled suite: OpenCV offers the garbage bytes to GDAL,
// whose own mutexes ThreadSanitizer reports (a lock-order report inside libgdal).
TEST(FrameSource, DecodePacketRejectsBytesThatAreNoJpegNamingTheFrame) {
    // A real source for the name; the packet is garbage.
    const auto file = std::filesystem::temp_directory_path() / ("hashtrace-one-frame-" + std::to_string(::getpid()) + ".avi");
    {
        cv::VideoWriter writer(file.string(), cv::CAP_FFMPEG, cv::VideoWriter::fourcc('M', 'J', 'P', 'G'), 1000,
                               cv::Size(64, 48), false);
        ASSERT_TRUE(writer.isOpened());
        writer.write(cv::Mat(48, 64, CV_8UC1, cv::Scalar(90)));
    }
    FrameSource source = FrameSource::open_file(file);
    ASSERT_TRUE(source.has_packets());
    cv::Mat packet;
    ASSERT_TRUE(source.next_packet(packet));
    EXPECT_EQ(source.decode_packet(packet, 0).cols, 64);
    const cv::Mat garbage(1, 100, CV_8UC1, cv::Scalar(7));
    try {
        source.decode_packet(garbage, 41);
        ADD_FAILURE() << "decoded garbage";
    } catch (const VideoError& e) {
        EXPECT_NE(std::string(e.what()).find("frame 41 cannot be decoded"), std::string::npos) << e.what();
    }
    EXPECT_FALSE(source.next_packet(packet));
    std::filesystem::remove(file);
}
