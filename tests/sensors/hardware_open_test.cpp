// The hardware paths cannot be exercised on a machine without GPIO chips or
// PPS devices, but their failure paths can: a missing device must be a clear
// SensorError naming the device, never a crash or a silent empty source.
#include "hashtrace/sensors/edge_source.hpp"

#include <gtest/gtest.h>

namespace hs = hashtrace::sensors;

namespace {
void expect_names(const std::function<void()>& open, const std::string& device) {
    try {
        open();
        ADD_FAILURE() << "opening " << device << " did not fail";
    } catch (const hs::SensorError& e) {
        EXPECT_NE(std::string(e.what()).find(device), std::string::npos) << e.what();
    }
}
}  // namespace

TEST(HardwareEdgeSources, MissingGpioChipIsAClearError) {
    expect_names([] { hs::open_gpio_edges({.chip = "/dev/gpiochip-hashtrace-none", .line = 3}); },
                 "/dev/gpiochip-hashtrace-none:3");
    expect_names([] { hs::open_gpio_output({.chip = "/dev/gpiochip-hashtrace-none", .line = 4}); },
                 "/dev/gpiochip-hashtrace-none:4");
}

TEST(HardwareEdgeSources, MissingOrWrongPpsDeviceIsAClearError) {
    expect_names([] { hs::open_pps_edges("/dev/pps-hashtrace-none"); }, "/dev/pps-hashtrace-none");
    // An existing file that is not a PPS device fails at PPS_GETCAP.
    expect_names([] { hs::open_pps_edges("/dev/null"); }, "/dev/null: PPS_GETCAP");
}
