#include "hashtrace/collectors/display_picture.hpp"
#include "hashtrace/collectors/frame_observer.hpp"

#include <gtest/gtest.h>

using namespace hashtrace::collectors;

TEST(DisplayPicture, ShowsTheLatestIdReadableByTheCollector) {
    const DisplayLayout layout;
    const cv::Mat picture = render_display({4242u, 1}, layout);
    ASSERT_EQ(picture.type(), CV_8UC1);
    ASSERT_EQ(picture.cols, layout.width);
    FrameObserver observer(std::nullopt, std::nullopt);
    EXPECT_EQ(observer.observe(picture).payload, "4242");
}

TEST(DisplayPicture, PatchIsWhiteOnOddFlashesOnly) {
    const DisplayLayout layout;
    const cv::Rect patch(0, 0, layout.patch_size, layout.patch_size);
    EXPECT_EQ(cv::mean(render_display({std::nullopt, 0}, layout)(patch))[0], 0.0);
    EXPECT_EQ(cv::mean(render_display({7u, 1}, layout)(patch))[0], 255.0);
    EXPECT_EQ(cv::mean(render_display({8u, 2}, layout)(patch))[0], 0.0);
}

TEST(DisplayPicture, NothingToDecodeBeforeTheFirstMessage) {
    FrameObserver observer(std::nullopt, std::nullopt);
    EXPECT_FALSE(observer.observe(render_display({std::nullopt, 0})).payload);
}
