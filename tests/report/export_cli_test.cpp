// `hashtrace export` end to end: the real executable on CSV logs on disk.
#include "demo_run.hpp"
#include "perfetto_read.hpp"
#include "run_command.hpp"

#include "hashtrace/critical_path/critical_path.hpp"
#include "hashtrace/critical_path/instances.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <set>
#include <tuple>

namespace hashtrace::report {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class ExportCli : public ::testing::Test {
protected:
    void SetUp() override {
        std::filesystem::create_directory(dir / "logs");
        for (const auto& [name, text] : test::demo_logs()) std::ofstream(dir / "logs" / name) << text;
        std::ofstream(dir / "spec.toml") << test::kDemoSpec;
    }
    test::CommandResult hashtrace(const std::string& arguments) {
        return test::run_command(std::string(HASHTRACE_TEST_CLI) + " export " + arguments + " 2>&1");
    }
    std::string path(const std::string& name) const { return test::shell_quote((dir / name).string()); }

    test::TempDir dir;
};

TEST_F(ExportCli, WritesBothFormatsWithAFlowPerEdge) {
    const auto edges = test::demo_run().graph.edges.size();
    const auto run = hashtrace(path("logs") + " --spec " + path("spec.toml") + " --chrome " + path("trace.json") +
                               " --perfetto " + path("trace.pftrace") + " --quiet");
    ASSERT_EQ(run.status, 0) << run.out;
    EXPECT_THAT(run.out, HasSubstr("exported 781 samples on 2 node instances (3 thread tracks) and " +
                                   std::to_string(edges) + " edges as flows"));

    const auto doc = nlohmann::json::parse(test::read_file(dir / "trace.json"));
    std::size_t starts = 0, finishes = 0, slices = 0;
    for (const auto& e : doc.at("traceEvents")) {  // the causality graph's (the spec's critical paths come beside them)
        const bool edge = e.contains("cat") && e.at("cat") == "hashtrace.edge";
        starts += edge && e.at("ph") == "s";
        finishes += edge && e.at("ph") == "f";
        slices += e.at("ph") == "X" && e.at("cat") == "hashtrace.sample";
    }
    EXPECT_EQ(slices, 781u);
    EXPECT_EQ(starts, edges);
    EXPECT_EQ(finishes, edges);

    // Perfetto: every sample back on its track in time order, every edge a flow between its two samples.
    const auto demo = test::demo_run();
    const auto trace = test::read_perfetto(test::decode_perfetto(dir / "trace.pftrace"));
    EXPECT_THAT(trace.errors, ::testing::IsEmpty());
    ASSERT_EQ(trace.samples.size(), demo.samples.size());
    std::multiset<std::pair<std::int64_t, std::string>> read, written;
    for (const auto& s : trace.samples) read.emplace(std::int64_t(s.timestamp), s.process.substr(0, s.process.find(' ')) + "/" + s.name);
    for (graph::SampleIndex s = 0; s < demo.samples.size(); ++s) written.emplace(demo.samples.time_ns[s], demo.samples.label(s));
    EXPECT_EQ(read, written);
    using Flow = std::pair<std::int64_t, std::int64_t>;  // its samples' times
    std::multiset<Flow> flows, linked;
    for (const auto& [from, to] : trace.flows) flows.emplace(trace.samples[from].timestamp, trace.samples[to].timestamp);
    for (const auto& e : demo.graph.edges) linked.emplace(demo.samples.time_ns[e.from], demo.samples.time_ns[e.to]);
    EXPECT_EQ(flows, linked);
}

// A critical-path step as a viewer shows it: the samples (time, tracepoint) it joins.
using Step = std::tuple<std::int64_t, std::string, std::int64_t, std::string>;

// Per interval, every step of every instance's critical path, as the critical-path library walks them.
std::map<std::string, std::multiset<Step>> library_steps(const test::DemoRun& run, std::size_t& instances) {
    const critical_path::DependenceModel model(run.samples, run.graph);
    critical_path::InstanceFinder finder(run.samples, run.graph);
    critical_path::PathFinder paths(model);
    std::map<std::string, std::multiset<Step>> out;
    std::vector<critical_path::PathStep> path;
    instances = 0;
    for (const auto& interval : run.spec.intervals)
        for (const auto& instance : finder.find(interval).list) {
            if (!paths.critical_path(instance, path)) continue;
            ++instances;
            for (const auto& step : path)
                out[interval.name].insert({run.samples.time_ns[step.from], run.samples.tracepoint_of(step.from).tracepoint_name,
                                           run.samples.time_ns[step.to], run.samples.tracepoint_of(step.to).tracepoint_name});
        }
    return out;
}

// The sample slice (an "X" event on a node instance's thread) a flow event binds to: the one enclosing it.
const nlohmann::json* enclosing_slice(const std::vector<nlohmann::json>& slices, const nlohmann::json& flow) {
    const nlohmann::json* found = nullptr;
    for (const auto& s : slices)
        if (s.at("pid") == flow.at("pid") && s.at("tid") == flow.at("tid") && s.at("ts").get<double>() <= flow.at("ts").get<double>() &&
            flow.at("ts").get<double>() < s.at("ts").get<double>() + s.at("dur").get<double>()) {
            EXPECT_EQ(found, nullptr) << "two slices enclose " << flow.dump();
            found = &s;
        }
    return found;
}

TEST_F(ExportCli, MarksEachInstancesCriticalPathAsTheLibraryFindsIt) {
    const auto demo = test::demo_run();
    std::size_t instances = 0;
    const auto expected = library_steps(demo, instances);
    std::size_t segments = 0;
    for (const auto& [name, steps] : expected) segments += steps.size();
    ASSERT_EQ(expected.size(), 2u);
    ASSERT_GT(instances, 0u);

    const auto run = hashtrace(path("logs") + " --spec " + path("spec.toml") + " --chrome " + path("trace.json") + " --perfetto " +
                               path("trace.pftrace") + " --quiet");
    ASSERT_EQ(run.status, 0) << run.out;
    EXPECT_THAT(run.out, HasSubstr("marked the critical path of " + std::to_string(instances) + " instances of 2 intervals (" +
                                   std::to_string(segments) + " segments)"));

    // Chrome JSON: the flows named critical_path:NAME join exactly the library's steps.
    const auto doc = nlohmann::json::parse(test::read_file(dir / "trace.json"));
    std::map<int, std::string> process_names;
    std::vector<nlohmann::json> slices;
    std::map<std::uint64_t, std::vector<nlohmann::json>> flows;
    for (const auto& e : doc.at("traceEvents")) {
        if (e.at("ph") == "M" && e.at("name") == "process_name") process_names[e.at("pid")] = e.at("args").at("name");
        if (e.at("ph") == "X" && e.at("cat") == "hashtrace.sample") slices.push_back(e);
        if ((e.at("ph") == "s" || e.at("ph") == "f") && e.at("name").get<std::string>().starts_with("critical_path:"))
            flows[e.at("id")].push_back(e);
    }
    std::map<std::string, std::multiset<Step>> marked;
    for (const auto& [id, ends] : flows) {
        ASSERT_EQ(ends.size(), 2u) << id;
        const auto& start = ends[0].at("ph") == "s" ? ends[0] : ends[1];
        const auto& finish = ends[0].at("ph") == "s" ? ends[1] : ends[0];
        ASSERT_EQ(start.at("name"), finish.at("name"));
        EXPECT_EQ(start.at("cat"), start.at("name"));
        const auto* from = enclosing_slice(slices, start);
        const auto* to = enclosing_slice(slices, finish);
        ASSERT_TRUE(from && to) << start.dump() << finish.dump();
        marked[start.at("name").get<std::string>().substr(14)].insert(
            Step{from->at("args").at("time_utc_ns").get<std::int64_t>(), from->at("name").get<std::string>(),
                 to->at("args").at("time_utc_ns").get<std::int64_t>(), to->at("name").get<std::string>()});
    }
    EXPECT_EQ(marked, expected);
    std::set<std::string> tracks;
    for (const auto& [pid, name] : process_names) tracks.insert(name);
    EXPECT_TRUE(tracks.count("critical path: force to render"));
    EXPECT_TRUE(tracks.count("critical path: send"));

    // Perfetto: a track per interval, lanes under it, a slice per instance of
    // more than one segment with its segments inside, or the one segment alone.
    const auto trace = test::read_perfetto(test::decode_perfetto(dir / "trace.pftrace"));
    EXPECT_THAT(trace.errors, ::testing::IsEmpty());
    std::map<std::string, std::multiset<Step>> drawn;
    std::map<std::pair<std::int64_t, std::int64_t>, std::multiset<std::string>> by_span;  // segment slices' spans: "from -> to (kind)"
    for (const auto& slice : trace.slices) {
        const bool segment = slice.depth == 1 || slice.name.find(" -> ") != std::string::npos;
        if (segment) by_span[{std::int64_t(slice.begin), std::int64_t(slice.end)}].insert(slice.interval.substr(15) + ": " + slice.name);
    }
    std::size_t steps = 0, single = 0;
    for (const auto& [name, list] : expected) {
        for (const auto& [from_ns, from, to_ns, to] : list) {
            ++steps;
            // The library's step, drawn from its first sample to its last (no step here runs back in time).
            const auto it = by_span.find({from_ns, to_ns});
            ASSERT_NE(it, by_span.end()) << name << ": " << from << " -> " << to;
            const auto match = std::find_if(it->second.begin(), it->second.end(), [&](const std::string& s) {
                return s.starts_with(name + ": ") && s.find("/" + from + " -> ") != std::string::npos && s.find("/" + to + " (") != std::string::npos;
            });
            ASSERT_NE(match, it->second.end()) << name << ": " << from << " -> " << to;
            it->second.erase(match);
        }
    }
    for (const auto& [span, left] : by_span) EXPECT_THAT(left, ::testing::IsEmpty());
    for (const auto& slice : trace.slices) single += slice.depth == 0 && slice.name.find(" -> ") != std::string::npos;
    EXPECT_EQ(trace.slices.size(), steps + instances - single);  // an instance's slice, where it is not its one segment's
    EXPECT_EQ(trace.lanes.size(), 2u);

    // Off on request: the export is the causality graph alone.
    const auto plain = hashtrace(path("logs") + " --spec " + path("spec.toml") + " --chrome " + path("plain.json") +
                                 " --no-critical-path --quiet");
    ASSERT_EQ(plain.status, 0) << plain.out;
    EXPECT_THAT(plain.out, Not(HasSubstr("marked")));
    EXPECT_THAT(test::read_file(dir / "plain.json"), Not(HasSubstr("critical")));
}

TEST_F(ExportCli, ExportsATimeRangeOfTheRun) {
    const auto run = hashtrace(path("logs") + " --spec " + path("spec.toml") + " --perfetto " + path("t.pftrace") +
                               " --since 0.5 --until 1 --quiet");
    ASSERT_EQ(run.status, 0) << run.out;
    const auto demo = test::demo_run();
    const std::int64_t first = demo.samples.time_ns[0];
    std::size_t inside = 0;
    for (graph::SampleIndex s = 0; s < demo.samples.size(); ++s)
        inside += demo.samples.time_ns[s] >= first + 500'000'000 && demo.samples.time_ns[s] < first + 1'000'000'000;
    ASSERT_GT(inside, 0u);
    EXPECT_THAT(run.out, HasSubstr("exported " + std::to_string(inside) + " samples"));
    const auto trace = test::read_perfetto(test::decode_perfetto(dir / "t.pftrace"));
    EXPECT_THAT(trace.errors, ::testing::IsEmpty());
    ASSERT_EQ(trace.samples.size(), inside);
    for (const auto& sample : trace.samples) {
        EXPECT_GE(std::int64_t(sample.timestamp), first + 500'000'000);
        EXPECT_LT(std::int64_t(sample.timestamp), first + 1'000'000'000);
    }
}

TEST_F(ExportCli, ARangeOutsideTheRunNamesTheRunsSpanAndWritesNothing) {
    const auto run = hashtrace(path("logs") + " --perfetto " + path("t.pftrace") + " --since 50 --until 60");
    EXPECT_EQ(run.status, 2);
    EXPECT_THAT(run.out, HasSubstr("--since 50 --until 60 holds no sample: the run spans 0 to "));
    EXPECT_THAT(run.out, HasSubstr(" s since the epoch)"));
    EXPECT_FALSE(std::filesystem::exists(dir / "t.pftrace"));
    const auto after = hashtrace(path("logs") + " --chrome " + path("t.json") + " --since 1000");
    EXPECT_EQ(after.status, 2);
    EXPECT_THAT(after.out, HasSubstr("--since 1000 holds no sample: the run spans"));
    EXPECT_FALSE(std::filesystem::exists(dir / "t.json"));
}

TEST_F(ExportCli, FromAndToAreTheRangeOptionsUnderOtherNames) {
    const auto since = hashtrace(path("logs") + " --spec " + path("spec.toml") + " --perfetto " + path("a.pftrace") + " --since 0.5 --until 1 --quiet");
    const auto from = hashtrace(path("logs") + " --spec " + path("spec.toml") + " --perfetto " + path("b.pftrace") + " --from 0.5 --to 1 --quiet");
    ASSERT_EQ(since.status, 0) << since.out;
    ASSERT_EQ(from.status, 0) << from.out;
    EXPECT_EQ(test::read_file(dir / "a.pftrace"), test::read_file(dir / "b.pftrace"));
    const auto outside = hashtrace(path("logs") + " --perfetto " + path("c.pftrace") + " --from 50 --to 60");
    EXPECT_EQ(outside.status, 2);
    EXPECT_THAT(outside.out, HasSubstr("--from 50 --to 60 holds no sample: the run spans 0 to "));
    const auto both = hashtrace(path("logs") + " --perfetto " + path("c.pftrace") + " --since 0.5 --from 0.5");
    EXPECT_EQ(both.status, 2);
    EXPECT_THAT(both.out, HasSubstr("--since and --from are one option"));
    const auto backwards = hashtrace(path("logs") + " --perfetto " + path("c.pftrace") + " --from 1 --to 0.5");
    EXPECT_THAT(backwards.out, HasSubstr("--from must come before --to"));
    EXPECT_FALSE(std::filesystem::exists(dir / "c.pftrace"));
}

TEST_F(ExportCli, AnEmptyRangeIsAnError) {
    const auto run = hashtrace(path("logs") + " --perfetto " + path("t.pftrace") + " --since 1 --until 1");
    EXPECT_EQ(run.status, 2);
    EXPECT_THAT(run.out, HasSubstr("--since must come before --until"));
    EXPECT_FALSE(std::filesystem::exists(dir / "t.pftrace"));
}

TEST_F(ExportCli, NeedsAnOutput) {
    const auto run = hashtrace(path("logs"));
    EXPECT_EQ(run.status, 2);
    EXPECT_THAT(run.out, HasSubstr("give --chrome FILE and/or --perfetto FILE"));
}

TEST_F(ExportCli, NamesAMissingInput) {
    const auto run = hashtrace(path("nowhere") + " --chrome " + path("t.json"));
    EXPECT_NE(run.status, 0);
    EXPECT_THAT(run.out, HasSubstr("nowhere"));
    EXPECT_FALSE(std::filesystem::exists(dir / "t.json"));
}

TEST_F(ExportCli, NamesTheFileAndLineOfABadLogRecord) {
    std::ofstream(dir / "logs" / "bad.csv")
        << "node_name,instance,tracepoint_name,input_hash_type,output_hash_type,sample_time,input_hash,output_hash\n"
        << "X,1,T,a,b,not-a-time,,\n";
    const auto run = hashtrace(path("logs") + " --chrome " + path("t.json"));
    EXPECT_EQ(run.status, 1);
    EXPECT_THAT(run.out, HasSubstr("bad.csv"));
    EXPECT_THAT(run.out, HasSubstr(":2"));
}

TEST_F(ExportCli, RejectsANegativeSliceLength) {
    const auto run = hashtrace(path("logs") + " --chrome " + path("t.json") + " --slice-us -1");
    EXPECT_EQ(run.status, 2);
    EXPECT_THAT(run.out, HasSubstr("--slice-us"));
}

}  // namespace
}  // namespace hashtrace::report
