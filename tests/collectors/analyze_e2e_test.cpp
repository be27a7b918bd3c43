// The "done when": simulator footage -> `hashtrace collect video`
// -> `hashtrace analyze` joins the Camera samples with the software logs into
// the paper's Table 6, within a frame of the simulation's truth.
#include "hashtrace/collectors/frame_observer.hpp"
#include "hashtrace/logio/reader.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;

namespace {

int run(const std::string& command) { return std::system((command + " 2>&1").c_str()); }

struct TruthLatencies {
    std::vector<double> created_to_display_ms;
};

// truth-messages.csv: message_id,created_ns,received_ns,processed_ns,displayed_ns,double_frame
TruthLatencies read_truth(const fs::path& messages, const fs::path& frames) {
    std::int64_t first_frame = 0, last_frame = 0;
    {
        std::ifstream in(frames);
        std::string line;
        std::getline(in, line);
        bool first = true;
        while (std::getline(in, line)) {
            std::stringstream row(line);
            std::string frame, start;
            std::getline(row, frame, ',');
            std::getline(row, start, ',');
            (first ? first_frame : last_frame) = std::stoll(start);
            if (first) last_frame = first_frame;
            first = false;
        }
    }
    TruthLatencies truth;
    std::ifstream in(messages);
    std::string line;
    std::getline(in, line);
    while (std::getline(in, line)) {
        std::vector<std::string> f;
        std::stringstream row(line);
        for (std::string cell; std::getline(row, cell, ',');) f.push_back(cell);
        if (f.size() < 5 || f[4].empty()) continue;
        const std::int64_t shown = std::stoll(f[4]);
        if (shown <= first_frame || shown >= last_frame) continue;  // appeared outside the footage
        truth.created_to_display_ms.push_back(static_cast<double>(shown - std::stoll(f[1])) / 1e6);
    }
    return truth;
}

}  // namespace

TEST(AnalyzeEndToEnd, CollectedCameraSamplesGiveThePapersTable6) {
    const fs::path dir = fs::temp_directory_path() / ("hashtrace-analyze-e2e-" + std::to_string(::getpid()));
    const std::string cli = HASHTRACE_CLI;
    ASSERT_EQ(run(cli + " collect simulate " + dir.string() + " --seconds 2.2 --seed 7"), 0);
    ASSERT_EQ(run(cli + " collect video " + (dir / "footage.avi").string() + " --logs " + (dir / "logs").string() +
                  " --payload int:32 --max-deviation-ms 0.15 --led-rise-ms 1.5 -o " + (dir / "logs/Camera.csv").string()),
              0);
    ASSERT_EQ(run(cli + " analyze " + (dir / "logs").string() + " --spec " + COLLECTORS_SPEC + " --json " +
                  (dir / "analysis.json").string() + " > /dev/null"),
              0);

    std::ifstream json_file(dir / "analysis.json");
    const auto analysis = nlohmann::json::parse(json_file);
    const auto truth = read_truth(dir / "truth-messages.csv", dir / "truth-frames.csv");
    ASSERT_GT(truth.created_to_display_ms.size(), 100u);
    const auto& t = truth.created_to_display_ms;
    double mean = 0;
    for (double v : t) mean += v;
    mean /= static_cast<double>(t.size());
    const double frame_ms = 1.0;

    const nlohmann::json* interval = nullptr;
    for (const auto& i : analysis.at("intervals"))
        if (i.at("name") == "Message Created (Chai) - QR Display") interval = &i;
    ASSERT_NE(interval, nullptr) << analysis.dump(2);
    // Every code that appeared on the display in the footage is joined, once.
    EXPECT_EQ(interval->at("count").get<std::size_t>(), t.size());
    EXPECT_NEAR(interval->at("mean_ms").get<double>(), mean, frame_ms);
    EXPECT_NEAR(interval->at("min_ms").get<double>(), *std::min_element(t.begin(), t.end()), frame_ms);
    EXPECT_NEAR(interval->at("max_ms").get<double>(), *std::max_element(t.begin(), t.end()), frame_ms);

    // A wrong payload mapping joins nothing: the check above is not vacuous.
    ASSERT_EQ(run(cli + " collect video " + (dir / "footage.avi").string() + " --start-time 1700000000.43725" +
                  " --payload text -o " + (dir / "logs/Camera.csv").string()),
              0);
    ASSERT_EQ(run(cli + " analyze " + (dir / "logs").string() + " --spec " + COLLECTORS_SPEC + " --json " +
                  (dir / "analysis.json").string() + " > /dev/null"),
              0);
    std::ifstream again(dir / "analysis.json");
    const auto unjoined = nlohmann::json::parse(again);
    for (const auto& i : unjoined.at("intervals")) {
        if (i.at("name") == "Message Created (Chai) - QR Display") {
            EXPECT_EQ(i.at("count").get<int>(), 0);
        }
    }
    fs::remove_all(dir);
}

// The camera-less path: the display node flips its patch for each message it
// shows; a photodiode (here a replay of the edges it would see, 7 ms after
// each flip) is collected and joined through the flash number.
TEST(AnalyzeEndToEnd, DisplayNodeAndPhotodiodeJoinThroughTheFlashNumber) {
    const fs::path dir = fs::temp_directory_path() / ("hashtrace-photodiode-e2e-" + std::to_string(::getpid()));
    fs::create_directories(dir / "logs");
    // Ids arrive 500 ms apart, so the display (100 Hz) shows each one; it runs
    // until its input ends and the last id is on the screen. The first waits
    // 2 s: under AddressSanitizer the display takes over a second to start,
    // and ids that arrive before it reads are shown as one.
    ASSERT_EQ(run("(sleep 2; echo 5; sleep 0.5; echo 6; sleep 0.5; echo 7) | HASHTRACE_LOG_DIR=" + (dir / "logs").string() +
                  " HASHTRACE_FORMAT=csv HASHTRACE_NODE=Display " + HASHTRACE_QR_DISPLAY + " --offscreen " +
                  (dir / "frames").string() + " --fps 100"),
              0);

    // What the display showed last is the last id, readable by the collector.
    std::vector<fs::path> frames;
    for (const auto& entry : fs::directory_iterator(dir / "frames")) frames.push_back(entry.path());
    ASSERT_FALSE(frames.empty());
    std::sort(frames.begin(), frames.end());
    const cv::Mat last = cv::imread(frames.back().string(), cv::IMREAD_GRAYSCALE);
    ASSERT_FALSE(last.empty());
    hashtrace::collectors::FrameObserver observer(std::nullopt, std::nullopt);
    EXPECT_EQ(observer.observe(last).payload, "7");

    // The photodiode's view of the PatchFlashed samples.
    std::vector<std::int64_t> flashes;
    for (const auto& file : hashtrace::logio::find_logs({dir / "logs"})) {
        const auto log = hashtrace::logio::load_log(file);
        for (const auto& s : log.samples)
            if (log.tracepoints[s.tracepoint].tracepoint_name == "PatchFlashed") flashes.push_back(s.time_ns);
    }
    ASSERT_GE(flashes.size(), 1u);
    ASSERT_LE(flashes.size(), 3u);
    {
        std::ofstream edges(dir / "edges.txt");
        edges << "time_ns,edge,sequence\n";
        for (std::size_t n = 1; n <= flashes.size(); ++n)
            edges << flashes[n - 1] + 7'000'000 << ',' << (n % 2 ? "rising" : "falling") << ',' << n << '\n';
    }
    ASSERT_EQ(run(std::string(HASHTRACE_CLI) + " collect photodiode --replay " + (dir / "edges.txt").string() + " -o " +
                  (dir / "logs/Photodiode.csv").string()),
              0);
    {
        std::ofstream spec(dir / "spec.toml");
        spec << "[[pair]]\nfrom = \"Display/MessageProcessed\"\nto = \"Display/PatchFlashed\"\n"
                "[[pair]]\nfrom = \"Display/PatchFlashed\"\nto = \"Photodiode/Display*\"\n"
                "[[interval]]\nname = \"flip to photons\"\nfrom = \"Display/PatchFlashed\"\nto = \"Photodiode/Display*\"\n"
                "kind = \"end_to_end\"\n";
    }
    ASSERT_EQ(run(std::string(HASHTRACE_CLI) + " analyze " + (dir / "logs").string() + " --spec " +
                  (dir / "spec.toml").string() + " --json " + (dir / "analysis.json").string() + " > /dev/null"),
              0);
    std::ifstream json_file(dir / "analysis.json");
    const auto analysis = nlohmann::json::parse(json_file);
    bool found = false;
    for (const auto& i : analysis.at("intervals")) {
        if (i.at("name") != "flip to photons") continue;
        found = true;
        EXPECT_EQ(i.at("count").get<std::size_t>(), flashes.size());
        EXPECT_NEAR(i.at("mean_ms").get<double>(), 7.0, 1e-6);
    }
    EXPECT_TRUE(found) << analysis.dump(2);
    fs::remove_all(dir);
}

namespace {
// Exit status and combined output of a command.
std::pair<int, std::string> run_capture(const std::string& command) {
    std::string output;
    FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
    if (!pipe) return {-1, ""};
    char buffer[512];
    while (std::fgets(buffer, sizeof buffer, pipe)) output += buffer;
    const int status = ::pclose(pipe);
    return {status, output};
}
}  // namespace

TEST(CollectCommands, BadArgumentsFailWithTheReason) {
    const std::string cli = HASHTRACE_CLI;
    const std::vector<std::pair<std::string, std::string>> cases{
        {" collect video x.avi -o out.csv --payload int:12", "int:12"},
        {" collect video x.avi -o out.csv --roi-qr 1,2,3", "region '1,2,3'"},
        {" collect video x.avi -o out.txt", "must end in .csv or .htlog"},
        {" collect video -o out.csv", "give one video FILE or --camera N"},
        {" collect video /nonexistent/x.avi -o /tmp/out.csv --roi-qr 0,0,9,9 --roi-led 0,0,9,9", "/nonexistent/x.avi: no such file"},
        {" collect video x.avi -o out.csv --start-time yesterday", "--start-time 'yesterday'"},
        {" collect photodiode -o out.csv", "give --replay FILE or --chip CHIP --line N"},
        {" collect photodiode --replay /nonexistent/edges.txt -o /tmp/out.csv", "/nonexistent/edges.txt"},
        {" collect simulate", "expected one output DIR"},
    };
    for (const auto& [args, reason] : cases) {
        const auto [status, output] = run_capture(cli + args);
        EXPECT_NE(status, 0) << args;
        EXPECT_NE(output.find(reason), std::string::npos) << args << "\n" << output;
    }
}
