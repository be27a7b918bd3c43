// The "done when": simulator footage -> `hashtrace collect video`
// -> `hashtrace analyze` joins the Camera samples with the software logs into
// the paper's Table 6, within a frame of the simulation's truth.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
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
