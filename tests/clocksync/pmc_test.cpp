#include "hashtrace/clocksync/pmc.hpp"

#include <gtest/gtest.h>

namespace hc = hashtrace::clocksync;

namespace {
// Captured from pmc 3.1.1 against a follower over veth (software timestamps).
constexpr const char* kFollower = R"(sending: GET CURRENT_DATA_SET
sending: GET PORT_DATA_SET
sending: GET TIME_STATUS_NP
	627527.fffe.57fbe2-0 seq 0 RESPONSE MANAGEMENT CURRENT_DATA_SET 
		stepsRemoved     1
		offsetFromMaster -1428.0
		meanPathDelay    2311.0
	627527.fffe.57fbe2-1 seq 1 RESPONSE MANAGEMENT PORT_DATA_SET 
		portIdentity            627527.fffe.57fbe2-1
		portState               UNCALIBRATED
		logMinDelayReqInterval  0
		peerMeanPathDelay       0
		logAnnounceInterval     1
	627527.fffe.57fbe2-0 seq 2 RESPONSE MANAGEMENT TIME_STATUS_NP 
		master_offset              -1428
		ingress_time               0
		cumulativeScaledRateOffset +0.000000000
		gmPresent                  true
		gmIdentity                 fe55bc.fffe.c0f6e6
)";
}  // namespace

TEST(Pmc, ParsesFollowerResponses) {
    const auto s = hc::parse_pmc_output(kFollower);
    EXPECT_TRUE(s.answered);
    ASSERT_EQ(s.port_states.size(), 1u);
    EXPECT_EQ(s.port_states[0], "UNCALIBRATED");
    EXPECT_DOUBLE_EQ(*s.offset_from_master_ns, -1428.0);
    EXPECT_DOUBLE_EQ(*s.mean_path_delay_ns, 2311.0);
    EXPECT_TRUE(*s.gm_present);
    EXPECT_EQ(s.gm_identity, "fe55bc.fffe.c0f6e6");

    const auto r = hc::ptp_record(s, 42, "lab-2", -12.5);
    EXPECT_EQ(r.state, "UNCALIBRATED");
    EXPECT_EQ(r.offset_ns, -1428);
    EXPECT_EQ(r.path_delay_ns, 2311);
    EXPECT_EQ(r.freq_ppb, -12.5);
    EXPECT_EQ(hc::sync_status(r), hc::SyncStatus::measuring);
}

TEST(Pmc, NoAnswerIsNoDaemonAndNothingMeasured) {
    const auto s = hc::parse_pmc_output("sending: GET CURRENT_DATA_SET\nsending: GET PORT_DATA_SET\n");
    EXPECT_FALSE(s.answered);
    const auto r = hc::ptp_record(s, 1, "h", std::nullopt);
    EXPECT_EQ(r.state, "NO_DAEMON");
    EXPECT_FALSE(r.offset_ns.has_value());
    EXPECT_EQ(hc::sync_status(r), hc::SyncStatus::unknown);
}

TEST(Pmc, ZerosBeforeTheFirstMeasurementAreNotAnOffset) {
    std::string text = kFollower;
    text.replace(text.find("-1428.0"), 7, "0.0");
    text.replace(text.find("2311.0"), 6, "0.0");
    const auto r = hc::ptp_record(hc::parse_pmc_output(text), 1, "h", std::nullopt);
    EXPECT_EQ(r.state, "UNCALIBRATED");
    EXPECT_FALSE(r.offset_ns.has_value());
}

TEST(Pmc, MasterIsTheReferenceAndFollowingPortWins) {
    const std::string master = "\tx-1 seq 1 RESPONSE MANAGEMENT PORT_DATA_SET\n\t\tportState MASTER\n"
                               "\tx-0 seq 0 RESPONSE MANAGEMENT CURRENT_DATA_SET\n\t\toffsetFromMaster 0.0\n\t\tmeanPathDelay 0.0\n";
    const auto r = hc::ptp_record(hc::parse_pmc_output(master), 1, "gm", 0.0);
    EXPECT_EQ(r.state, "MASTER");
    EXPECT_FALSE(r.offset_ns.has_value());
    EXPECT_EQ(hc::sync_status(r), hc::SyncStatus::reference);

    const std::string two_ports = "\tx-1 seq 1 RESPONSE MANAGEMENT PORT_DATA_SET\n\t\tportState MASTER\n"
                                  "\tx-2 seq 2 RESPONSE MANAGEMENT PORT_DATA_SET\n\t\tportState SLAVE\n";
    EXPECT_EQ(hc::clock_state(hc::parse_pmc_output(two_ports)), "SLAVE");
}
