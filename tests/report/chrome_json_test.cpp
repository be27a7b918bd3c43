// Loads the Chrome JSON export back and checks that every edge became a flow
// whose two ends bind (by the "enclosing slice" rule Chrome and Perfetto's
// importer apply) to the producer's and the consumer's slices.
#include "sample_trace.hpp"

#include "hashtrace/report/json_writer.hpp"
#include "hashtrace/report/trace_export.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <map>
#include <sstream>

namespace hashtrace::report {
namespace {

using nlohmann::json;
using test::sample_trace;

json export_json(const TraceModel& m) {
    std::ostringstream out;
    write_chrome_json(m, out);
    return json::parse(out.str());  // throws on malformed output
}

// What a viewer would show for one sample: its process, thread, name and time.
struct Shown {
    std::string process, thread, name;
    double ts_us;
    bool operator==(const Shown&) const = default;
};

struct LoadedTrace {
    std::map<int, std::string> process_names;
    std::map<std::pair<int, int>, std::string> thread_names;
    std::vector<json> slices;
    std::map<std::uint64_t, std::vector<json>> flow_events;

    explicit LoadedTrace(const json& doc) {
        for (const auto& e : doc.at("traceEvents")) {
            const auto ph = e.at("ph").get<std::string>();
            if (ph == "M" && e.at("name") == "process_name") process_names[e.at("pid")] = e.at("args").at("name");
            if (ph == "M" && e.at("name") == "thread_name")
                thread_names[{e.at("pid"), e.at("tid")}] = e.at("args").at("name");
            if (ph == "X") slices.push_back(e);
            if (ph == "s" || ph == "f") flow_events[e.at("id").get<std::uint64_t>()].push_back(e);
        }
    }

    // The slice on the flow event's thread that encloses its timestamp; fails
    // the test unless there is exactly one.
    Shown bound_slice(const json& flow) const {
        const json* found = nullptr;
        int matches = 0;
        for (const auto& s : slices) {
            if (s.at("pid") != flow.at("pid") || s.at("tid") != flow.at("tid")) continue;
            const double ts = s.at("ts"), dur = s.at("dur"), t = flow.at("ts");
            if (ts <= t && t < ts + dur) {
                found = &s;
                ++matches;
            }
        }
        EXPECT_EQ(matches, 1) << flow.dump();
        if (!found) return {};
        return {process_names.at(found->at("pid")), thread_names.at({found->at("pid"), found->at("tid")}),
                found->at("name"), found->at("ts")};
    }
};

Shown expected(const TraceModel& m, std::uint32_t event) {
    const auto& e = m.events[event];
    const auto& p = m.processes[m.threads[e.thread].process];
    return {p.node + " " + p.instance, m.threads[e.thread].name, m.names[e.name],
            double(e.time_ns - m.events.front().time_ns) / 1000.0};
}

TEST(ChromeJson, OneProcessPerInstanceAndOneThreadTrackPerThread) {
    const auto m = sample_trace();
    LoadedTrace t(export_json(m));
    EXPECT_EQ(t.process_names.size(), 2u);
    EXPECT_EQ(t.process_names.at(1), "Chai 1a2b");
    EXPECT_EQ(t.process_names.at(2), "Unity 3c4d");
    ASSERT_EQ(t.thread_names.size(), 3u);
    EXPECT_EQ((t.thread_names.at({1, 2})), "net");
    EXPECT_EQ((t.thread_names.at({2, 3})), "render");
}

TEST(ChromeJson, EverySampleIsASliceWithItsHashes) {
    const auto m = sample_trace();
    LoadedTrace t(export_json(m));
    ASSERT_EQ(t.slices.size(), m.events.size());
    const auto& second = t.slices[1];
    EXPECT_EQ(second.at("name"), "MessageSent");
    EXPECT_DOUBLE_EQ(second.at("ts").get<double>(), 0.4);
    EXPECT_DOUBLE_EQ(second.at("dur").get<double>(), 0.3);  // cut short by the thread's next sample
    EXPECT_EQ(second.at("args").at("input_hash"), "01010101010101010101010101010101");
    EXPECT_EQ(second.at("args").at("output_hash"), "02020202020202020202020202020202");
    EXPECT_FALSE(t.slices[0].at("args").contains("input_hash"));  // the sample had no input
    EXPECT_EQ(second.at("args").at("time_utc_ns"), m.events[1].time_ns);
}

TEST(ChromeJson, EveryEdgeIsAFlowFromProducerSliceToConsumerSlice) {
    const auto m = sample_trace();
    LoadedTrace t(export_json(m));
    ASSERT_EQ(t.flow_events.size(), m.flows.size());
    for (std::size_t i = 0; i < m.flows.size(); ++i) {
        SCOPED_TRACE("flow " + std::to_string(i));
        const auto& ends = t.flow_events.at(flow_id(i));
        ASSERT_EQ(ends.size(), 2u);
        const auto& start = ends[0].at("ph") == "s" ? ends[0] : ends[1];
        const auto& finish = ends[0].at("ph") == "s" ? ends[1] : ends[0];
        EXPECT_EQ(start.at("ph"), "s");
        EXPECT_EQ(finish.at("ph"), "f");
        EXPECT_EQ(finish.at("bp"), "e");  // bind to the enclosing slice, not the next one
        EXPECT_EQ(start.at("cat"), finish.at("cat"));
        EXPECT_EQ(start.at("name"), finish.at("name"));
        EXPECT_EQ(t.bound_slice(start), expected(m, m.flows[i].from));
        EXPECT_EQ(t.bound_slice(finish), expected(m, m.flows[i].to));
    }
}

TEST(ChromeJson, CriticalPathsAreSlicesOnLanesOfTheirIntervalAndNamedFlowsBetweenSamples) {
    const auto m = test::sample_trace_with_critical_paths();
    LoadedTrace t(export_json(m));
    EXPECT_EQ(t.process_names.at(3), "critical path: end to end");
    EXPECT_EQ(t.process_names.at(4), "critical path: send");
    EXPECT_EQ((t.thread_names.at({3, 4})), "lane 1");
    EXPECT_EQ((t.thread_names.at({3, 5})), "lane 2");
    EXPECT_EQ((t.thread_names.at({4, 7})), "lane 2");
    // Per lane: each instance a slice, its segments inside it, back to back.
    std::map<std::pair<int, int>, std::vector<json>> on_lane;
    for (const auto& s : t.slices)
        if (s.at("pid") > 2) on_lane[{s.at("pid"), s.at("tid")}].push_back(s);
    ASSERT_EQ(on_lane.size(), 4u);
    const auto& first = on_lane.at({3, 4});
    ASSERT_EQ(first.size(), 4u);
    EXPECT_EQ(first[0].at("name"), "end to end");
    EXPECT_DOUBLE_EQ(first[0].at("dur").get<double>(), 90.0);
    EXPECT_DOUBLE_EQ(first[0].at("args").at("latency_ms").get<double>(), 0.09);
    EXPECT_EQ(first[2].at("name"), "Chai/MessageSent -> Unity/MessageReceived (message)");
    EXPECT_DOUBLE_EQ(first[2].at("ts").get<double>(), 0.4);
    EXPECT_DOUBLE_EQ(first[2].at("dur").get<double>(), 2.1);
    const auto& backwards = on_lane.at({4, 7});  // "send"'s second instance, its last segment recorded backwards
    ASSERT_EQ(backwards.size(), 3u);
    EXPECT_DOUBLE_EQ(backwards[2].at("ts").get<double>(), 2.5);
    EXPECT_DOUBLE_EQ(backwards[2].at("dur").get<double>(), 0.0);
    EXPECT_EQ(on_lane.at({4, 6}).size(), 4u);  // two instances, one after the other

    // Every segment a flow of its interval's name between the two samples' slices.
    std::size_t marked = 0;
    for (std::size_t k = 0; k < m.critical_segments.size(); ++k) {
        SCOPED_TRACE("segment " + std::to_string(k));
        const auto& ends = t.flow_events.at(critical_path_flow_id(m, k));
        ASSERT_EQ(ends.size(), 2u);
        const auto interval = k < 4 ? "end to end" : "send";
        for (const auto& end : ends) {
            EXPECT_EQ(end.at("name"), std::string("critical_path:") + interval);
            EXPECT_EQ(end.at("cat"), end.at("name"));
        }
        const auto& start = ends[0].at("ph") == "s" ? ends[0] : ends[1];
        const auto& finish = ends[0].at("ph") == "s" ? ends[1] : ends[0];
        EXPECT_EQ(t.bound_slice(start), expected(m, m.critical_segments[k].from));
        EXPECT_EQ(t.bound_slice(finish), expected(m, m.critical_segments[k].to));
        ++marked;
    }
    EXPECT_EQ(t.flow_events.size(), m.flows.size() + marked);
}

TEST(ChromeJson, KeepsNanosecondsByWritingTimesRelativeToTheFirstSample) {
    const auto m = sample_trace();
    const auto doc = export_json(m);
    EXPECT_EQ(doc.at("otherData").at("time_origin_utc_ns"), m.events.front().time_ns);
    LoadedTrace t(doc);
    EXPECT_DOUBLE_EQ(t.slices.back().at("ts").get<double>(), 90.0);
}

TEST(ChromeJson, EmptyModelIsAValidEmptyTrace) {
    const auto doc = export_json(TraceModel{});
    EXPECT_TRUE(doc.at("traceEvents").empty());
}

TEST(ChromeJson, RejectsABrokenModel) {
    auto m = sample_trace();
    m.flows.push_back({1, 42});
    std::ostringstream out;
    EXPECT_THROW(write_chrome_json(m, out), std::invalid_argument);
}

TEST(JsonWriter, EscapesControlAndHtmlCharacters) {
    std::ostringstream out;
    JsonWriter w(out);
    w.begin_object().field("a\"b", "x</script>\n\x01").key("n").begin_array().value(1.5).value(-2).null().end_array();
    w.field("inf", 1.0 / 0.0).end_object();
    w.flush();
    EXPECT_EQ(out.str(), R"({"a\"b":"x\u003c/script\u003e\n\u0001","n":[1.5,-2,null],"inf":null})");
    EXPECT_EQ(json::parse(out.str()).at("a\"b"), "x</script>\n\x01");
}

TEST(JsonWriter, LongOutputReachesTheStreamWhole) {
    std::ostringstream out;
    {
        JsonWriter w(out);
        w.begin_array();
        for (int i = 0; i < 100'000; ++i) w.value("x<y");  // ~1 MB: many chunk flushes
        w.end_array();
    }
    const auto doc = json::parse(out.str());
    ASSERT_EQ(doc.size(), 100'000u);
    EXPECT_EQ(doc.back(), "x<y");
}

TEST(JsonWriter, WritesNanosecondsAsExactMicroseconds) {
    std::ostringstream out;
    JsonWriter w(out);
    w.begin_array().microseconds(1'234'567).microseconds(-1'500).microseconds(7).microseconds(INT64_MIN).end_array();
    w.flush();
    EXPECT_EQ(out.str(), "[1234.567,-1.500,0.007,-9223372036854775.808]");
}

}  // namespace
}  // namespace hashtrace::report
