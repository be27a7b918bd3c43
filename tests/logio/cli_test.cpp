// `hashtrace convert` and `hashtrace log` as a user runs them, and what
// `log` and `analyze` say of logs and inputs that are not what they seem.
#include <hashtrace/hashtrace.hpp>
#include <hashtrace/logio/reader.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>

namespace fs = std::filesystem;

namespace {

struct Result {
    int status;
    std::string output;
};

// `streams`: where the command's output goes ("2>&1": both, captured; "2>/dev/null": stdout only).
Result run(const std::string& args, const std::string& streams = "2>&1") {
    Result r{0, {}};
    FILE* p = popen((std::string(HASHTRACE_CLI) + " " + args + " " + streams).c_str(), "r");
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

namespace {

std::string slurp(const fs::path& p) {
    std::stringstream ss;
    ss << std::ifstream(p, std::ios::binary).rdbuf();
    return ss.str();
}

// A traced process of a few threads that is SIGKILLed after its samples were
// flushed: most kills land between blocks, so its log has no torn tail, only
// no end marker.
void write_log_of_a_killed_process(const fs::path& dir) {
    const pid_t pid = fork();
    if (pid == 0) {
        hashtrace::Config config;
        config.node_name = "Killed";
        config.log_dir = dir.string();
        config.install_signal_handlers = false;
        config.flush_interval = std::chrono::milliseconds(10);
        hashtrace::start(config);
        std::thread other([] {
            for (int i = 0; i < 1000; ++i) TRACEPOINT("Work", hashtrace::inout("i", i));
        });
        for (int i = 0; i < 1000; ++i) TRACEPOINT("Send", hashtrace::inout("i", i));
        other.join();
        std::this_thread::sleep_for(std::chrono::milliseconds(300));  // many flush intervals: all on disk
        kill(getpid(), SIGKILL);
        _exit(3);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
}

}  // namespace

// Issue 19, item 1: a killed process's log looked like a clean end to every command.
TEST(Cli, LogsNotClosedCleanlyAreNamedByLogAndAnalyze) {
    const auto d = temp_dir() / "killed";
    fs::remove_all(d);
    fs::create_directories(d / "logs");
    write_log_of_a_killed_process(d / "logs");
    const auto killed = hashtrace::logio::find_logs({d / "logs"});
    ASSERT_EQ(killed.size(), 1u);
    const auto report = hashtrace::logio::load_log(killed[0]).report;
    ASSERT_FALSE(report.torn) << "the kill tore a block: " << report.torn_tail.reason;
    ASSERT_EQ(hashtrace::logio::load_log(killed[0]).samples.size(), 2000u);
    // A log closed normally, next to it.
    std::ofstream(d / "in.csv")
        << "node_name,instance,tracepoint_name,input_hash_type,output_hash_type,sample_time,input_hash,output_hash\n"
           "Chai,7,Send,messageid,messageid,1763814333.000000001,0123456789abcdef0123456789abcdef,\n";
    ASSERT_EQ(run("convert " + (d / "in.csv").string() + " " + (d / "logs" / "closed.htlog").string()).status, 0);

    auto r = run("log " + (d / "logs").string());
    ASSERT_EQ(r.status, 0) << r.output;
    const auto killed_at = r.output.find("== " + killed[0].string()), closed_at = r.output.find("closed.htlog");
    ASSERT_NE(killed_at, std::string::npos) << r.output;
    ASSERT_NE(closed_at, std::string::npos) << r.output;
    const std::string killed_part = closed_at < killed_at ? r.output.substr(killed_at) : r.output.substr(killed_at, closed_at - killed_at);
    const std::string closed_part = closed_at < killed_at ? r.output.substr(closed_at, killed_at - closed_at) : r.output.substr(closed_at);
    EXPECT_NE(killed_part.find(std::string("NOT CLOSED CLEANLY: ") + hashtrace::logio::kUncleanCloseMeaning), std::string::npos) << r.output;
    EXPECT_NE(closed_part.find("closed cleanly (end marker found)"), std::string::npos) << r.output;
    EXPECT_EQ(closed_part.find("NOT CLOSED CLEANLY"), std::string::npos) << r.output;

    r = run("analyze " + (d / "logs").string() + " --quiet --json " + (d / "a.json").string() + " --html " + (d / "a.html").string());
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("warning: " + killed[0].string() + ": not closed cleanly: " + hashtrace::logio::kUncleanCloseMeaning),
              std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("1 of 2 logs not closed cleanly"), std::string::npos) << r.output;
    const auto json = nlohmann::json::parse(slurp(d / "a.json"));
    EXPECT_EQ(json.at("unclean_files"), nlohmann::json::array({killed[0].string()}));
    EXPECT_EQ(json.at("torn_files"), 0);  // the keys before it are all still there
    const std::string page = slurp(d / "a.html");
    EXPECT_NE(page.find("\"unclean_files\":[\"" + killed[0].string() + "\"]"), std::string::npos);
    fs::remove_all(d);
}

// Issue 19, item 5: a directory given as --spec was read as an empty spec.
TEST(Cli, ASpecPathThatIsNotAFileIsAnErrorNamingIt) {
    const auto d = temp_dir() / "spec-dir";
    fs::remove_all(d);
    fs::create_directories(d / "spec.toml");
    std::ofstream(d / "log.csv")
        << "node_name,instance,tracepoint_name,input_hash_type,output_hash_type,sample_time,input_hash,output_hash\n"
           "Chai,7,Send,messageid,messageid,1763814333.000000001,,0123456789abcdef0123456789abcdef\n";
    auto r = run("analyze " + (d / "log.csv").string() + " --quiet --spec " + (d / "spec.toml").string());
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_NE(r.output.find((d / "spec.toml").string() + ": is a directory, not a spec file"), std::string::npos) << r.output;
    r = run("analyze " + (d / "log.csv").string() + " --quiet --spec /dev/null");
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_NE(r.output.find("/dev/null: is not a regular file, not a spec file"), std::string::npos) << r.output;
    fs::remove_all(d);
}

// Issue 19, item 9: an empty folder printed nothing and exited 0; "no logs
// found" did not say where; an empty spec file linked everything unsaid.
TEST(Cli, EmptyInputsAndAnEmptySpecAreSaid) {
    const auto d = temp_dir() / "empty";
    fs::remove_all(d);
    fs::create_directories(d / "run");
    auto r = run("log " + (d / "run").string());
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_NE(r.output.find((d / "run").string() + ": no sample logs found"), std::string::npos) << r.output;
    r = run("analyze " + (d / "run").string() + " --quiet");
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_NE(r.output.find((d / "run").string() + ": no sample logs found"), std::string::npos) << r.output;

    std::ofstream(d / "run" / "log.csv")
        << "node_name,instance,tracepoint_name,input_hash_type,output_hash_type,sample_time,input_hash,output_hash\n"
           "Chai,7,Send,messageid,messageid,1763814333.000000001,,0123456789abcdef0123456789abcdef\n";
    std::ofstream(d / "spec.toml") << "# intervals to come\n";
    r = run("analyze " + (d / "run").string() + " --quiet --spec " + (d / "spec.toml").string() + " --json " + (d / "a.json").string());
    EXPECT_EQ(r.status, 0) << r.output;
    const std::string warning = (d / "spec.toml").string() + ": the spec has no [[pair]] and no [[interval]]: nothing will be linked by rule";
    EXPECT_NE(r.output.find("warning: " + warning), std::string::npos) << r.output;
    const auto warnings = nlohmann::json::parse(slurp(d / "a.json")).at("warnings");
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_EQ(warnings[0].get<std::string>().rfind(warning, 0), 0u);
    fs::remove_all(d);
}
