#include "hashtrace/collectors/regions.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

using namespace hashtrace::collectors;

TEST(Regions, ParsesAndFormats) {
    const Region r = parse_region("10,20,300,200");
    EXPECT_EQ(r, (Region{10, 20, 300, 200}));
    EXPECT_EQ(format_region(r), "10,20,300,200");
}

TEST(Regions, RejectsMalformedTextNamingIt) {
    for (const char* bad : {"", "1,2,3", "1,2,3,4,5", "a,2,3,4", "1,2,0,4", "-1,2,3,4", "1, 2,3,4"}) {
        try {
            parse_region(bad);
            ADD_FAILURE() << "accepted '" << bad << "'";
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find("region '" + std::string(bad) + "'"), std::string::npos) << e.what();
        }
    }
}

TEST(Regions, MustLieInsideTheFrame) {
    EXPECT_NO_THROW(check_region_inside({0, 0, 640, 480}, 640, 480, "QR"));
    EXPECT_THROW(check_region_inside({600, 0, 41, 10}, 640, 480, "QR"), std::invalid_argument);
    EXPECT_THROW(check_region_inside({0, 470, 10, 11}, 640, 480, "LED"), std::invalid_argument);
}
