// Every command's output is checked: a write that fails, to standard output
// or to a file it was told to write, is an error naming what could not be
// written, with a nonzero exit. And --help, answered once for all commands.
#include "../graph/test_logs.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using hashtrace::graph::testing::CsvLog;

struct Result {
    int status;
    std::string output;  // stderr, or stdout and stderr when stdout is not redirected
};

// Runs `hashtrace ARGUMENTS`, standard output to `stdout_to` if given.
Result run(const std::string& arguments, const std::string& stdout_to = "") {
    const std::string redirect = stdout_to.empty() ? " 2>&1" : " 2>&1 >" + stdout_to;
    FILE* pipe = popen((std::string(HASHTRACE_BIN) + " " + arguments + redirect).c_str(), "r");
    std::string out;
    std::array<char, 4096> buf;
    while (std::size_t n = fread(buf.data(), 1, buf.size(), pipe)) out.append(buf.data(), n);
    const int status = pclose(pipe);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

class Output : public ::testing::Test {
protected:
    void SetUp() override {
        if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full to write to";
        dir = fs::temp_directory_path() / ("hashtrace-output-" + std::to_string(::getpid()) + "-" +
                                           ::testing::UnitTest::GetInstance()->current_test_info()->name());
        for (const char* run : {"run1", "run2"}) {
            fs::create_directories(dir / run);
            CsvLog chai, unity;
            for (int i = 0; i < 20; ++i) {
                const std::string m = "m" + std::to_string(i);
                chai.row("Chai", "1", "Force", 100 + i * 0.010, "", m);
                unity.row("Unity", "2", "Receive", 100.001 + i * 0.010 + 0.0001 * (i % 3), m, "");
            }
            std::ofstream(dir / run / "chai.csv") << chai.text();
            std::ofstream(dir / run / "unity.csv") << unity.text();
        }
        std::ofstream(dir / "spec.toml") << "[[pair]]\nfrom = \"Chai/Force\"\nto = \"Unity/Receive\"\n\n"
                                            "[[interval]]\nname = \"force to receive\"\nfrom = \"Chai/Force\"\nto = \"Unity/Receive\"\n";
    }
    void TearDown() override {
        if (!dir.empty()) fs::remove_all(dir);
    }
    std::string path(const std::string& name) const { return (dir / name).string(); }
    fs::path dir;
};

TEST_F(Output, AFullStandardOutputFailsEveryCommandThatPrints) {
    const std::string logs = path("run1") + " --spec " + path("spec.toml");
    for (const std::string& arguments : std::vector<std::string>{"--help", "analyze --help", "log --help", "analyze " + logs, "log " + path("run1"),
                                         "route " + logs + " --from Chai/Force", "compare " + path("run1") + " " + path("run2"),
                                         "export " + logs + " --chrome " + path("t.json")}) {
        SCOPED_TRACE(arguments);
        const Result ok = run(arguments, "/dev/null");
        EXPECT_EQ(ok.status, 0) << ok.output;
        const Result full = run(arguments, "/dev/full");
        EXPECT_EQ(full.status, 1) << full.output;
        EXPECT_TRUE(contains(full.output, "standard output: cannot write (No space left on device)")) << full.output;
    }
}

TEST_F(Output, AFileThatCannotBeWrittenIsAnErrorNamingIt) {
    const std::string logs = path("run1") + " --spec " + path("spec.toml");
    for (const std::string option : {" --json ", " --markdown ", " --csv ", " --html "}) {
        SCOPED_TRACE(option);
        const Result full = run("analyze " + logs + option + "/dev/full", "/dev/null");
        EXPECT_EQ(full.status, 1) << full.output;
        EXPECT_TRUE(contains(full.output, "/dev/full: cannot write (No space left on device)")) << full.output;
        const Result missing = run("analyze " + logs + option + path("no-such-dir/out"), "/dev/null");
        EXPECT_EQ(missing.status, 1) << missing.output;
        EXPECT_TRUE(contains(missing.output, path("no-such-dir/out") + ": cannot open for writing (No such file or directory)")) << missing.output;
    }
    for (const std::string& arguments : std::vector<std::string>{"export " + logs + " --perfetto /dev/full", "route " + logs + " --from Chai/Force --dot /dev/full",
                                         "compare " + path("run1") + " " + path("run2") + " --markdown /dev/full"}) {
        SCOPED_TRACE(arguments);
        const Result full = run(arguments, "/dev/null");
        EXPECT_EQ(full.status, 1) << full.output;
        EXPECT_TRUE(contains(full.output, "/dev/full: cannot write")) << full.output;
    }
}

TEST_F(Output, HelpIsEachCommandsUsageWithItsSharedOptions) {
    const Result analyze = run("analyze --help");
    EXPECT_EQ(analyze.status, 0);
    EXPECT_TRUE(analyze.output.starts_with("usage: hashtrace analyze LOGS...")) << analyze.output;
    EXPECT_TRUE(contains(analyze.output, "--html-title TEXT")) << analyze.output;  // html_report_option's
    EXPECT_TRUE(contains(analyze.output, "--tolerance-ms")) << analyze.output;     // the pipeline's
    // Asked for anywhere among the arguments, before anything else is checked.
    const Result route = run("route --bogus -h");
    EXPECT_EQ(route.status, 0) << route.output;
    EXPECT_TRUE(route.output.starts_with("usage: hashtrace route")) << route.output;
    const Result log = run("log --help");
    EXPECT_EQ(log.status, 0);
    EXPECT_TRUE(log.output.starts_with("usage: hashtrace log FILE...")) << log.output;
}

}  // namespace
