#include "hashtrace/clocksync/ptp_setup.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace hc = hashtrace::clocksync;

namespace {
bool has_line(const std::string& config, const std::string& line) {
    return config.find("\n" + line + "\n") != std::string::npos;
}
}  // namespace

TEST(PtpSetup, FollowerSoftwareConfig) {
    hc::PtpSetup s;
    s.interface = "eth1";
    s.free_running = true;
    s.uds_path = "/tmp/ptp.sock";
    const std::string c = hc::render_ptp4l_config(s);
    EXPECT_TRUE(has_line(c, "time_stamping software")) << c;
    EXPECT_TRUE(has_line(c, "slaveOnly 1")) << c;
    EXPECT_TRUE(has_line(c, "free_running 1")) << c;
    EXPECT_TRUE(has_line(c, "uds_address /tmp/ptp.sock")) << c;
    EXPECT_TRUE(has_line(c, "network_transport UDPv4")) << c;
    EXPECT_FALSE(has_line(c, "priority1 127")) << c;
    EXPECT_TRUE(c.ends_with("\n[eth1]\n")) << c;
    EXPECT_TRUE(hc::phc2sys_command(s).empty());  // software: ptp4l steers CLOCK_REALTIME itself
}

TEST(PtpSetup, GrandmasterHardwareConfigAndPhc2sys) {
    hc::PtpSetup s;
    s.interface = "enp3s0";
    s.role = hc::PtpRole::grandmaster;
    s.timestamping = hc::Timestamping::hardware;
    s.transport = hc::PtpTransport::layer2;
    s.domain = 3;
    const std::string c = hc::render_ptp4l_config(s);
    EXPECT_TRUE(has_line(c, "time_stamping hardware")) << c;
    EXPECT_TRUE(has_line(c, "priority1 127")) << c;
    EXPECT_TRUE(has_line(c, "network_transport L2")) << c;
    EXPECT_TRUE(has_line(c, "domainNumber 3")) << c;
    EXPECT_FALSE(has_line(c, "slaveOnly 1")) << c;
    const auto phc2sys = hc::phc2sys_command(s);
    ASSERT_FALSE(phc2sys.empty());
    EXPECT_EQ(phc2sys[0], "phc2sys");
    EXPECT_NE(std::find(phc2sys.begin(), phc2sys.end(), "-rr"), phc2sys.end());
    const auto pmc = hc::pmc_command(s);
    EXPECT_NE(std::find(pmc.begin(), pmc.end(), "/var/run/ptp4l"), pmc.end());
    EXPECT_NE(std::find(pmc.begin(), pmc.end(), "GET CURRENT_DATA_SET"), pmc.end());
}

TEST(PtpSetup, RejectsWhatPtp4lCannotRun) {
    hc::PtpSetup s;
    EXPECT_THROW(hc::validate(s), std::invalid_argument);  // no interface
    s.interface = "eth0";
    s.domain = 300;
    EXPECT_THROW(hc::validate(s), std::invalid_argument);
    s.domain = 0;
    s.role = hc::PtpRole::grandmaster;
    s.free_running = true;
    EXPECT_THROW(hc::validate(s), std::invalid_argument);
    s.free_running = false;
    s.interface = "eth0]\n[global";
    EXPECT_THROW(hc::render_ptp4l_config(s), std::invalid_argument);
    EXPECT_THROW(hc::parse_ptp_role("boss"), std::invalid_argument);
    EXPECT_THROW(hc::parse_timestamping("atomic"), std::invalid_argument);
    EXPECT_THROW(hc::parse_transport("tcp"), std::invalid_argument);
}
