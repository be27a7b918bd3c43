// A full disk: the traced program keeps running, the writer counts what it
// could not save and keeps trying, and once it can write again the log
// records the loss (which tracepoints, how many, when), which the reader
// reports. The disk is a small tmpfs mounted in the test's own mount
// namespace; where namespaces are not allowed the test says so and skips.
#include "test_support.hpp"

#include <hashtrace/logio/reader.hpp>

#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

using hashtrace::testing::fresh_dir;
using hashtrace::testing::test_config;
namespace fs = std::filesystem;

namespace {

constexpr int kCannotMount = 77;
constexpr std::uint64_t kBefore = 2000, kDuring = 5000, kAfter = 1000;

void write_file(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }
std::string read_file(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// In a child: a mount namespace of its own with a 256 KiB tmpfs at `dir`.
bool mount_small_disk(const fs::path& dir, std::string& why) {
    const uid_t uid = getuid();
    const gid_t gid = getgid();
    if (unshare(CLONE_NEWNS) != 0) {
        if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) {
            why = std::string("unshare: ") + std::strerror(errno);
            return false;
        }
        write_file("/proc/self/setgroups", "deny");
        write_file("/proc/self/uid_map", "0 " + std::to_string(uid) + " 1");
        write_file("/proc/self/gid_map", "0 " + std::to_string(gid) + " 1");
    }
    if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
        mount("tmpfs", dir.c_str(), "tmpfs", 0, "size=256k") != 0) {
        why = std::string("mount tmpfs: ") + std::strerror(errno);
        return false;
    }
    return true;
}

// Fills the disk: writes until there is no room left.
void fill(const fs::path& file) {
    const int fd = open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    char block[4096] = {};
    while (write(fd, block, sizeof block) > 0) {}
    close(fd);
}

template <class Condition>
bool wait_for(Condition c) {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!c()) {
        if (std::chrono::steady_clock::now() > give_up) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return true;
}

// The traced program, in a child process: it records before, while and after
// the disk is full, and leaves its findings in `out` (key=value lines) and its
// log next to it.
[[noreturn]] void traced_program(const fs::path& out) {
    const fs::path disk = out / "disk";
    std::string why;
    if (!mount_small_disk(disk, why)) {
        write_file(out / "skipped", why);
        _exit(kCannotMount);
    }
    if (!std::freopen((out / "stderr.txt").c_str(), "w", stderr)) _exit(3);
    std::setvbuf(stderr, nullptr, _IONBF, 0);
    std::ostringstream found;
    {
        auto config = test_config(disk);
        config.flush_interval = std::chrono::milliseconds(5);
        config.when_full = hashtrace::FullPolicy::block;  // nothing dropped: every hole is the disk's
        hashtrace::Session session(config);
        for (std::uint64_t i = 0; i < kBefore; ++i) TRACEPOINT("Before", hashtrace::inout("i", i));
        found << "before_saved=" << wait_for([] { return hashtrace::stats().written == kBefore; }) << '\n';
        fill(disk / "filler");
        const auto full_from = hashtrace::detail::now_ns();
        for (std::uint64_t i = 0; i < kDuring; ++i) TRACEPOINT("During", hashtrace::inout("i", i));
        const auto full_until = hashtrace::detail::now_ns();
        found << "during_handled="
              << wait_for([] { return hashtrace::stats().written + hashtrace::stats().lost == kBefore + kDuring; }) << '\n';
        found << "reported_at_once=" << (read_file(out / "stderr.txt").find("counted as lost") != std::string::npos) << '\n';
        found << "full_from=" << full_from << "\nfull_until=" << full_until << '\n';
        fs::remove(disk / "filler");  // room again
        for (std::uint64_t i = 0; i < kAfter; ++i) TRACEPOINT("After", hashtrace::inout("i", i));
    }
    const auto st = hashtrace::stats();
    found << "written=" << st.written << "\nlost=" << st.lost << "\ndropped=" << st.dropped << '\n';
    fs::copy_file(hashtrace::logio::find_logs({disk}).at(0), out / "saved.htlog");
    write_file(out / "found", found.str());
    _exit(0);
}

std::map<std::string, std::int64_t> parse(const std::string& text) {
    std::map<std::string, std::int64_t> m;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        const auto eq = line.find('=');
        m[line.substr(0, eq)] = std::stoll(line.substr(eq + 1));
    }
    return m;
}

}  // namespace

TEST(DiskFull, LossIsCountedRecordedAndReportedAndTheProgramGoesOn) {
    const fs::path out = fresh_dir("disk");
    fs::create_directories(out / "disk");
    const pid_t pid = fork();
    if (pid == 0) traced_program(out);
    int status = 0;
    waitpid(pid, &status, 0);
    if (WIFEXITED(status) && WEXITSTATUS(status) == kCannotMount)
        GTEST_SKIP() << "cannot mount a small tmpfs in a mount namespace of the test's own: " << read_file(out / "skipped");
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the traced program was harmed: status " << status
                                                                << "\n" << read_file(out / "stderr.txt");
    const std::string findings = read_file(out / "found");
    std::printf("the traced program found:\n%s", findings.c_str());  // the figures, for the test's log
    auto found = parse(findings);
    EXPECT_EQ(found["before_saved"], 1);
    EXPECT_EQ(found["during_handled"], 1) << "the writer neither saved nor counted some samples";
    EXPECT_EQ(found["reported_at_once"], 1) << "the first failure was not reported while the disk was full";
    EXPECT_GT(found["lost"], 0) << "the disk never filled";
    EXPECT_EQ(found["written"] + found["lost"], std::int64_t(kBefore + kDuring + kAfter));
    EXPECT_EQ(found["dropped"], 0);

    const auto log = hashtrace::logio::load_log(out / "saved.htlog");
    EXPECT_TRUE(log.report.clean_close);
    EXPECT_FALSE(log.report.torn) << "a failed write left a torn block";
    EXPECT_EQ(log.samples.size(), std::size_t(found["written"])) << "Stats.written is what the file holds";
    EXPECT_EQ(log.report.lost_samples, std::uint64_t(found["lost"]));
    std::map<std::string, std::uint64_t> saved, lost;
    for (const auto& s : log.samples) ++saved[log.tracepoints.at(s.tracepoint).tracepoint_name];
    for (const auto& l : log.losses) {
        lost[log.tracepoints.at(l.tracepoint).tracepoint_name] += l.count;
        EXPECT_LE(l.first_time_ns, l.last_time_ns);
        EXPECT_GE(l.first_time_ns, found["full_from"] - 1'000'000) << "a loss dated before the disk was full";
        EXPECT_LE(l.last_time_ns, found["full_until"] + 1'000'000);
    }
    EXPECT_EQ(saved["Before"], kBefore);
    EXPECT_EQ(saved["After"], kAfter) << "the writer did not take up writing again";
    EXPECT_EQ(saved["During"] + lost["During"], kDuring);
    EXPECT_EQ(lost.size(), 1u) << "only samples taken while the disk was full are lost";
    EXPECT_NE(read_file(out / "stderr.txt").find("again"), std::string::npos) << "the recovery was not reported";
}
