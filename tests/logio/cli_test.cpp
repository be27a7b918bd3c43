// `hashtrace convert` and `hashtrace log` as a user runs them.
#include <hashtrace/logio/reader.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <fstream>

namespace fs = std::filesystem;

namespace {

struct Result {
    int status;
    std::string output;
};

Result run(const std::string& args) {
    Result r{0, {}};
    FILE* p = popen((std::string(HASHTRACE_CLI) + " " + args + " 2>&1").c_str(), "r");
    std::array<char, 4096> buf;
    while (std::size_t n = fread(buf.data(), 1, buf.size(), p)) r.output.append(buf.data(), n);
    r.status = WEXITSTATUS(pclose(p));
    return r;
}

fs::path temp_dir() {
    auto d = fs::temp_directory_path() / ("hashtrace-cli-" + std::to_string(::getpid()));
    fs::create_directories(d);
    return d;
}

}  // namespace

TEST(Cli, ConvertsCsvToBinaryAndBack) {
    const auto d = temp_dir();
    std::ofstream(d / "in.csv")
        << "node_name,instance,tracepoint_name,input_hash_type,output_hash_type,sample_time,input_hash,output_hash\n"
           "Chai,7,Send,messageid,messageid,1763814333.000000001,0123456789abcdef0123456789abcdef,"
           "0123456789abcdef0123456789abcdef\n";
    auto r = run("convert " + (d / "in.csv").string() + " " + (d / "out.htlog").string());
    ASSERT_EQ(r.status, 0) << r.output;
    r = run("convert " + (d / "out.htlog").string() + " " + (d / "back.csv").string());
    ASSERT_EQ(r.status, 0) << r.output;
    const auto log = hashtrace::logio::load_log(d / "back.csv");
    ASSERT_EQ(log.samples.size(), 1u);
    EXPECT_EQ(log.samples[0].time_ns, 1763814333000000001);
    r = run("log " + (d / "out.htlog").string());
    EXPECT_EQ(r.status, 0);
    EXPECT_NE(r.output.find("Send"), std::string::npos) << r.output;
    fs::remove_all(d);
}

TEST(Cli, BadInputAndBadUsageFailWithAReason) {
    const auto d = temp_dir();
    std::ofstream(d / "bad.csv")
        << "node_name,instance,tracepoint_name,input_hash_type,output_hash_type,sample_time,input_hash,output_hash\n"
           "Chai,7,Send,messageid,messageid,later,,\n";
    auto r = run("log " + (d / "bad.csv").string());
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.output.find("bad.csv:2:33: sample_time 'later'"), std::string::npos) << r.output;
    r = run("convert " + (d / "bad.csv").string() + " " + (d / "x.json").string());
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.output.find("--to"), std::string::npos) << r.output;
    r = run("log --no-such-flag x");
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.output.find("unknown option '--no-such-flag'"), std::string::npos) << r.output;
    r = run("no-such-command");
    EXPECT_EQ(r.status, 2);
    fs::remove_all(d);
}
