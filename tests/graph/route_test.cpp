#include "hashtrace/graph/route.hpp"
#include "test_logs.hpp"

#include <gtest/gtest.h>

namespace hashtrace::graph {
namespace {

using testing::CsvLog;

class RouteTest : public ::testing::Test {
protected:
    // Two messages through Chai -> Router -> {Unity, Bullet}; Unity also gets
    // an unrelated message n1 that must not appear in m1's route.
    void SetUp() override {
        CsvLog chai, router, unity, bullet;
        for (int i = 0; i < 2; ++i) {
            const double t = 100 + i * 0.010;
            const std::string m = "m" + std::to_string(i);
            chai.row("Chai", "1", "Send", t, "", m);
            router.row("Router", "9", "Forward", t + 0.001, m, m);
            unity.row("Unity", "2", "Receive", t + 0.003, m, "");
            bullet.row("Bullet", "3", "Receive", t + 0.004, m, "");
        }
        unity.row("Unity", "2", "Receive", 100.005, "n1", "");
        samples = testing::load({{"chai.csv", chai.text()}, {"router.csv", router.text()}, {"unity.csv", unity.text()}, {"bullet.csv", bullet.text()}});
        graph = link(samples, parse_spec("[[pair]]\nfrom = \"Chai/*\"\nto = \"Router/*\"\n[[pair]]\nfrom = \"Router/*\"\nto = \"*/Receive\"\n", "r.toml"));
    }
    SampleSet samples;
    Graph graph;
};

TEST_F(RouteTest, FindSampleAfterTime) {
    const auto first = find_sample(samples, Selector::parse("Router/*"), 0);
    ASSERT_TRUE(first);
    EXPECT_EQ(samples.time_ns[*first], 100'001'000'000);
    const auto second = find_sample(samples, Selector::parse("Router/*"), 100'001'000'001);
    ASSERT_TRUE(second);
    EXPECT_EQ(samples.time_ns[*second], 100'011'000'000);
    EXPECT_FALSE(find_sample(samples, Selector::parse("Nobody/*"), 0));
}

TEST_F(RouteTest, RouteThroughRouterHasUpAndDownstream) {
    const auto origin = *find_sample(samples, Selector::parse("Router/Forward"), 0);
    const auto route = trace_route(samples, graph, origin);
    ASSERT_EQ(route.samples.size(), 4u);  // Chai/Send, Router/Forward, Unity/Receive, Bullet/Receive of m0
    EXPECT_EQ(route.edges.size(), 3u);
    EXPECT_FALSE(route.truncated);
    const auto text = render_route_text(samples, route);
    EXPECT_NE(text.find("Chai[1]/Send"), std::string::npos);
    EXPECT_NE(text.find("-1.000 ms"), std::string::npos) << text;  // times are relative to the origin: Chai sent 1 ms before
    EXPECT_NE(text.find("+3.000 ms"), std::string::npos) << text;  // Bullet received 3 ms after
    EXPECT_EQ(text.find("100.005"), std::string::npos) << "unrelated message in route:\n" << text;
    const auto dot = render_route_dot(samples, route);
    EXPECT_NE(dot.find("digraph route"), std::string::npos);
    EXPECT_NE(dot.find("subgraph cluster_"), std::string::npos);
    EXPECT_EQ(std::count(dot.begin(), dot.end(), '>'), 3) << dot;  // three "->" edges
}

TEST_F(RouteTest, HopLimitTruncates) {
    const auto origin = *find_sample(samples, Selector::parse("Chai/Send"), 0);
    RouteOptions one_hop;
    one_hop.max_hops = 1;
    const auto route = trace_route(samples, graph, origin, one_hop);
    EXPECT_EQ(route.samples.size(), 2u);
    EXPECT_TRUE(route.truncated);
    EXPECT_NE(render_route_text(samples, route).find("truncated"), std::string::npos);
}

}  // namespace
}  // namespace hashtrace::graph
