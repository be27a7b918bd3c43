// report_fixture.hpp - a demo-like ReportData built with the aggregate
// functions from deterministic synthetic observations, so the page can be
// tested without running the whole pipeline.
#pragma once

#include "hashtrace/report/aggregate.hpp"
#include "hashtrace/report/report_data.hpp"

#include <cmath>

namespace hashtrace::report::test {

inline ReportData demo_report_data() {
    ReportData d;
    d.title = "demo run";
    d.generated_by = "report_fixture";
    d.window_s = 12.0;
    d.runs = {{"run A", {{"samples", "", "", 22000}, {"M8 messages per second", "1/s", "higher", 830.5},
                         {"M11 mean", "ms", "lower", 1.25}, {"M12", "", "", std::nullopt}},
               {{"M5 Chai to Unity", "end_to_end", {5000, 2.3, 1.0, 1.0, 2.0, 3.0, 17.0, 18.0}}}},
              {"run B", {{"samples", "", "", 60000}, {"M8 messages per second", "1/s", "higher", 910.0},
                         {"M11 mean", "ms", "lower", 0.95}, {"M12", "", "", 0.4}},
               {{"M5 Chai to Unity", "end_to_end", {4000, 2.1, 0.8, 1.0, 2.0, 2.9, 12.0, 30.0}}}}};
    d.health = {22000, 21000, 8000, 12, 40, 3, 0, 0,
                {{"Chai", "1a2b", "rig1", "CLOCK_REALTIME", 11000, 12, 30, 0.05},
                 {"Unity", "3c4d", "rig2", "CLOCK_REALTIME", 11000, 0, 10, std::nullopt}},
                {"logs/Unity-3c4d.htlog"}};
    std::vector<double> t, ms;
    for (int i = 0; i < 5000; ++i) {
        t.push_back(12.0 * i / 5000);
        ms.push_back(2.0 + std::sin(i * 0.37) + (i % 97 == 0 ? 15.0 : 0.0));
    }
    IntervalChart iv;
    iv.name = "M5 Chai to Unity";
    iv.kind = "end_to_end";
    iv.summary = {5000, 2.3, 1.0, 1.0, 2.0, 3.0, 17.0, 18.0};
    iv.histogram = make_histogram(ms, 40);
    iv.over_time = latency_over_time(t, ms, 12.0, 60, 800);
    d.intervals.push_back(iv);
    d.node_matrix = {{"Chai", "Unity", "Display"},
                     {{"Chai", "Unity", 900, 2.5, 12.0}, {"Unity", "Chai", 880, 18.0, 60.0}, {"Unity", "Display", 500, 30, 45}}};
    auto& st = d.space_time;
    st.duration_s = 12.0;
    st.lanes = {{"Chai 1a2b main", "Chai", "1a2b", 0}, {"Chai 1a2b net", "Chai", "1a2b", 1},
                {"Unity 3c4d main", "Unity", "3c4d", 0}, {"Unity 3c4d net", "Unity", "3c4d", 1}};
    std::vector<std::uint32_t> lane;
    std::vector<std::int64_t> time;
    for (int i = 0; i < 20000; ++i) {
        lane.push_back(std::uint32_t(i % 4));
        time.push_back(std::int64_t(i) * 600'000);  // 12 s
    }
    st.density_bins = 400;
    st.density = density(lane, time, 4, 0, 12'000'000'000, 400);
    for (auto i : even_sample(lane.size(), 4000)) st.ticks.emplace_back(lane[i], double(time[i]) * 1e-9);
    st.ticks_total = lane.size();
    for (int i = 0; i < 300; ++i) st.edges.push_back({1, i * 0.04, 3, i * 0.04 + 0.002});
    st.edges_total = 8000;
    d.routes = {{"Chai/ForceComputed at 1.000000 s",
                 {{"Chai/ForceComputed", "ForceComputed", 0, 1.0}, {"Chai/MessageSent", "MessageSent", 1, 1.0004},
                  {"Unity/MessageReceived", "MessageReceived", 3, 1.002}, {"Unity/Rendered", "Rendered", 2, 1.018}},
                 {{0, 1}, {1, 2}, {2, 3}},
                 0,
                 false}};
    d.slowest = {{"M5 Chai to Unity", "Chai/ForceComputed", "Unity/Rendered", 18.0, 1.0, 0}};
    d.critical_paths = {{"M5 Chai to Unity", 5000, 0, 2, 2.3, 2.0, 3.0, 17.0,
                         {{"Unity/Received", "Unity/Rendered", "local", 1.0, 1.5, 0.652, 1.4, 1.6, 1.5, 0},
                          {"Chai/Sent", "Unity/Received", "message", 1.0, 0.6, 0.261, 0.4, 1.2, 15.2, 0.3},
                          {"Chai/Computed", "Chai/Sent", "queue", 0.97, 0.2, 0.087, 0.2, 0.2, 0.3, 0.05},
                          {"Chai/Computed", "Chai/Computed", "thread", 0, 0, 0, 0, 0, 0, 4.1}}}};
    d.system = SystemDrawing{{{"Chai", {{"Chai/Computed", "Computed", 5000, true, false, 0}, {"Chai/Sent", "Sent", 5000, false, false, 1}}},
                              {"Unity", {{"Unity/Received", "Received", 5000, false, false, 2},
                                         {"Unity/Rendered", "Rendered", 5000, false, true, 3},
                                         {"Unity/Loop", "Loop", 700, false, false, 2}}}},
                             {{"Chai/Computed", "Chai/Sent", 416.7, 0.2, false, "kept", "thread"},
                              {"Chai/Sent", "Unity/Received", 416.7, 0.6, false, "kept", "any"},
                              {"Unity/Received", "Unity/Rendered", 416.7, 1.5, false, "kept", "instance"},
                              {"Unity/Loop", "Unity/Loop", 58, 16.6, false, "kept", "thread"},
                              {"Chai/Sent", "Unity/Loop", 3.1, 7.5, true, "label_mismatch", ""}},
                             4, 1, 1, 4, 21000, 40};
    d.idle_gaps = {100, 2, {{"Chai 1a2b", 3.0, 3.4, 400, 2}, {"Unity 3c4d", 3.1, 3.3, 200, 2}, {"Unity 3c4d", 8, 8.2, 200, 1}}, 3};
    return d;
}

}  // namespace hashtrace::report::test
