// `hashtrace export` end to end: the real executable on CSV logs on disk.
#include "demo_run.hpp"
#include "proto_text.hpp"
#include "run_command.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

namespace hashtrace::report {
namespace {

using ::testing::HasSubstr;

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
    for (const auto& e : doc.at("traceEvents")) {
        starts += e.at("ph") == "s";
        finishes += e.at("ph") == "f";
        slices += e.at("ph") == "X";
    }
    EXPECT_EQ(slices, 781u);
    EXPECT_EQ(starts, edges);
    EXPECT_EQ(finishes, edges);

    const std::filesystem::path proto = HASHTRACE_TEST_PERFETTO_PROTO;
    const auto decoded = test::run_command(std::string(HASHTRACE_TEST_PROTOC) + " --decode=perfetto.protos.Trace -I" +
                                           test::shell_quote(proto.parent_path().string()) + " " +
                                           proto.filename().string() + " < " + path("trace.pftrace"));
    ASSERT_EQ(decoded.status, 0);
    const auto trace = test::parse_proto_text(decoded.out);
    std::size_t flow_ids = 0, terminating = 0;
    for (const auto* packet : trace.children("packet"))
        for (const auto* event : packet->children("track_event")) {
            flow_ids += event->all("flow_ids").size();
            terminating += event->all("terminating_flow_ids").size();
        }
    EXPECT_EQ(flow_ids, edges);
    EXPECT_EQ(terminating, edges);
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
