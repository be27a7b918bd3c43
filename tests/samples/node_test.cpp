// The nodes' pure parts: option parsing (with its error messages) and the
// scene-graph work each node does.
#include "options.hpp"
#include "run_stats.hpp"
#include "schedule.hpp"
#include "scene.hpp"

#include "hashtrace/cli/args.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>

namespace samples = hashtrace::samples;
namespace msg = hashtrace::samples::msg;

namespace {

std::string usage_error(const std::vector<std::string>& argv) {
    try {
        samples::parse_node_options(argv);
    } catch (const hashtrace::cli::UsageError& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST(NodeOptions, ExtraWorkPerAppliedMessage) {
    EXPECT_EQ(samples::parse_node_options({"haptics", "--connect", "h:1"}).extra_apply_ms, 0);
    EXPECT_DOUBLE_EQ(samples::parse_node_options({"render", "--connect", "h:1", "--extra-work", "apply=0.25"}).extra_apply_ms, 0.25);
    EXPECT_NE(usage_error({"render", "--connect", "h:1", "--extra-work", "send=1"}).find("unknown stage 'send'"), std::string::npos);
    EXPECT_NE(usage_error({"render", "--connect", "h:1", "--extra-work", "apply"}).find("STAGE=MS"), std::string::npos);
    EXPECT_NE(usage_error({"render", "--connect", "h:1", "--extra-work", "apply=-1"}).find("[0, 1000]"), std::string::npos);
    EXPECT_NE(usage_error({"render", "--connect", "h:1", "--extra-work", "apply=2x"}).find("[0, 1000]"), std::string::npos);
}

TEST(NodeOptions, PhaseOfTheLoopsSchedule) {
    EXPECT_FALSE(samples::parse_node_options({"render", "--connect", "h:1"}).phase_ms.has_value());
    EXPECT_EQ(samples::parse_node_options({"render", "--connect", "h:1", "--phase-ms", "2.5"}).phase_ms, 2.5);
    // Within the period: 1 / 60 Hz = 16.67 ms, 1 / 50 Hz = 20 ms.
    EXPECT_NE(usage_error({"render", "--connect", "h:1", "--phase-ms", "17"}).find("[0, the loop's period)"), std::string::npos);
    EXPECT_EQ(samples::parse_node_options({"render", "--connect", "h:1", "--rate", "50", "--phase-ms", "17"}).phase_ms, 17);
    EXPECT_NE(usage_error({"render", "--connect", "h:1", "--phase-ms", "-1"}).find("--phase-ms '-1'"), std::string::npos);
    EXPECT_NE(usage_error({"render", "--connect", "h:1", "--phase-ms", "1ms"}).find("number of milliseconds"), std::string::npos);
}

// A locked schedule's first deadline: the next instant at the phase, whatever
// the time now, and loops of 50 and 60 Hz in different processes meet on the
// grid of 10/3 ms their periods share, even days after boot.
TEST(LoopSchedule, FirstDeadlineLiesOnTheGridAtThePhase) {
    const std::int64_t day = 86'400'000'000'000;
    for (const std::int64_t now : {std::int64_t{0}, std::int64_t{123'456'789}, 3 * day + 987'654'321}) {
        for (const double rate : {50.0, 60.0, 200.0}) {
            const std::int64_t deadline = samples::first_deadline_at_phase(now, rate, 1.5);
            EXPECT_GT(deadline, now);
            EXPECT_LE(deadline, now + std::int64_t(std::ceil(1e9 / rate)));
            const long double periods = (static_cast<long double>(deadline) - 1.5e6L) * rate / 1e9L;
            EXPECT_NEAR(static_cast<double>(periods - std::round(periods)), 0, 1e-6) << rate << " Hz at " << now;
        }
        const long double apart = samples::first_deadline_at_phase(now, 60, 0) - samples::first_deadline_at_phase(now, 50, 0);
        const long double grids = apart / (1e7L / 3);
        EXPECT_NEAR(static_cast<double>(grids - std::round(grids)), 0, 1e-6) << now;
    }
    // Exactly at the phase: the next one, a period on.
    EXPECT_EQ(samples::first_deadline_at_phase(20'000'000, 50, 0), 40'000'000);
}

TEST(NodeOptions, ParsesAMeshNodeWithDefaultsForItsRole) {
    const auto o = samples::parse_node_options(
        {"physics", "--listen", "127.0.0.1:4001", "--accept", "1", "--connect", "127.0.0.1:4002"});
    EXPECT_EQ(o.role, msg::NodeId::physics);
    ASSERT_TRUE(o.listen.has_value());
    EXPECT_EQ(o.listen->port, 4001);
    EXPECT_EQ(o.accept, 1);
    ASSERT_EQ(o.connect.size(), 1u);
    EXPECT_EQ(o.connect[0].text(), "127.0.0.1:4002");
    EXPECT_EQ(o.rate_hz, 250);
    EXPECT_FALSE(o.bug);
    EXPECT_EQ(samples::parse_node_options({"haptics", "--connect", "h:1"}).rate_hz, 1000);
    EXPECT_EQ(samples::parse_node_options({"render", "--connect", "h:1"}).rate_hz, 60);
}

TEST(NodeOptions, RejectsMistakesWithTheReason) {
    EXPECT_NE(usage_error({}).find("missing ROLE"), std::string::npos);
    EXPECT_NE(usage_error({"graphics"}).find("unknown ROLE 'graphics'"), std::string::npos);
    EXPECT_NE(usage_error({"render"}).find("no peers"), std::string::npos);
    EXPECT_NE(usage_error({"render", "--listen", "0.0.0.0:1"}).find("--accept N"), std::string::npos);
    EXPECT_NE(usage_error({"render", "--connect", "nocolon"}).find("expected host:port"), std::string::npos);
    EXPECT_NE(usage_error({"physics", "--connect", "h:1", "--bug"}).find("haptics node only"), std::string::npos);
    EXPECT_NE(usage_error({"router", "--connect", "h:1"}).find("only listens"), std::string::npos);
    EXPECT_NE(usage_error({"render", "--connect", "h:1", "--rate", "0"}).find("--rate"), std::string::npos);
    EXPECT_NE(usage_error({"render", "--connect", "h:1", "--frobnicate"}).find("--frobnicate"), std::string::npos);
}

TEST(Scene, UpdatesApplyToTheirObjectAndUnknownObjectsAreIgnored) {
    samples::SceneGraph scene(3);
    samples::SceneObject moved;
    moved.position = {4, 5, 6};
    msg::SceneMessage t = samples::make_transform(2, moved);
    EXPECT_TRUE(samples::apply_update(scene, t));
    EXPECT_EQ(scene.objects[2].position.y, 5);
    t.object = 3;
    EXPECT_FALSE(samples::apply_update(scene, t));
    msg::SceneMessage hello;
    EXPECT_FALSE(samples::apply_update(scene, hello));
}

TEST(Scene, PhysicsFallsUnderGravityAndBouncesOffTheFloor) {
    samples::SceneGraph scene(1);
    const float start = scene.objects[0].position.y;
    samples::step_physics(scene, 0.01f);
    EXPECT_LT(scene.objects[0].position.y, start);
    float lowest = start;
    for (int i = 0; i < 2000; ++i) {
        samples::step_physics(scene, 0.004f);
        lowest = std::min(lowest, scene.objects[0].position.y);
    }
    EXPECT_GE(lowest, 0.3f - 1e-6f);  // never through the floor
    const auto& q = scene.objects[0].orientation;
    EXPECT_NEAR(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3], 1.0f, 1e-4f);
}

TEST(Scene, HapticForcePushesTheNearestObjectOnlyWhenTouching) {
    samples::SceneGraph scene(2);
    scene.objects[0].position = {0, 1, 0};
    scene.objects[1].position = {5, 1, 0};
    const auto touching = samples::compute_force(scene, {0.1f, 1, 0});
    EXPECT_EQ(touching.object, 0);
    EXPECT_LT(touching.force.x, 0);  // cursor on the +x side pushes the object towards -x
    const auto apart = samples::compute_force(scene, {2.5f, 1, 0});
    EXPECT_EQ(apart.force.x, 0);
    const auto near_second = samples::compute_force(scene, {4.9f, 1, 0});
    EXPECT_EQ(near_second.object, 1);
    const msg::SceneMessage m = samples::make_force(touching);
    EXPECT_EQ(m.kind, msg::Kind::force);
    EXPECT_EQ(m.values[0], touching.force.x);
    EXPECT_EQ(m.values[3], 0.1f);  // the cursor travels with the force
}

TEST(Scene, WorldMatricesHoldPositionAndRotation) {
    samples::SceneGraph scene(1);
    scene.objects[0].position = {1, 2, 3};
    std::vector<std::array<float, 16>> m;
    samples::compute_world_matrices(scene, m);
    ASSERT_EQ(m.size(), 1u);
    EXPECT_EQ(m[0][12], 1);
    EXPECT_EQ(m[0][13], 2);
    EXPECT_EQ(m[0][14], 3);
    EXPECT_EQ(m[0][0], 1);  // identity rotation
}

TEST(RunStats, SummaryUsesPopulationSdAndNearestRank) {
    const auto s = samples::summarize_values({4, 1, 3, 2});
    EXPECT_EQ(s.count, 4u);
    EXPECT_DOUBLE_EQ(s.mean, 2.5);
    EXPECT_DOUBLE_EQ(s.sd, std::sqrt(1.25));
    EXPECT_EQ(s.p50, 2);  // rank ceil(0.5 * 4) = 2
    EXPECT_EQ(s.p99, 4);
    EXPECT_EQ(s.max, 4);
    EXPECT_EQ(samples::summarize_values({}).count, 0u);
}

TEST(RunStats, JsonNamesTheNodeRateAndLatencyPerOrigin) {
    samples::RunStats stats("Render");
    stats.loop_period(16.0);
    stats.loop_period(17.0);
    stats.loop_iterations(120, 2.0);
    stats.message_applied(msg::NodeId::haptics, 3.0);
    const std::string text = stats.to_json(60);
    ASSERT_EQ(text.back(), '\n');
    const auto json = nlohmann::ordered_json::parse(text);
    EXPECT_EQ(json["node"], "Render");
    EXPECT_EQ(json["rate_hz"], 60.0);
    EXPECT_EQ(json["period_ms"]["count"], 2u);
    EXPECT_EQ(json["period_ms"]["mean"], 16.5);
    EXPECT_EQ(json["latency_ms"]["Haptics"]["count"], 1u);
    EXPECT_EQ(json["latency_ms"]["Haptics"]["max"], 3.0);
    EXPECT_EQ(json.begin().key(), "node");  // keys in the order written
    // Six significant digits, as printed before.
    stats.loop_iterations(1, 3.0);
    EXPECT_EQ(nlohmann::json::parse(stats.to_json(60))["rate_hz"], 0.333333);
    EXPECT_THROW(stats.write("/nonexistent-dir/x.json", 60), std::runtime_error);
}
