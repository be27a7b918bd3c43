#include "browser.hpp"

#include "run_command.hpp"

#include <regex>
#include <sstream>

namespace hashtrace::report::test {

namespace {

std::string chromium_command(const TempDir& profile, const std::string& extra, const std::filesystem::path& page) {
    // Flags from Debian's headless use: no sandbox (tests may run as root), no
    // GPU, and nothing that reaches the network on its own.
    return std::string(HASHTRACE_TEST_CHROMIUM) +
           " --headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update"
           " --disable-sync --no-first-run --disable-default-apps --hide-scrollbars"
           " --user-data-dir=" + shell_quote(profile.path().string()) +
           " --enable-logging=stderr --v=0 " + extra + " " + shell_quote("file://" + page.string());
}

}  // namespace

BrowserRun open_in_chromium(const std::filesystem::path& page, const std::optional<std::filesystem::path>& screenshot,
                            int height) {
    BrowserRun run;
    TempDir profile;
    const auto log_file = profile / "stderr.txt";
    const auto dom = run_command("timeout 120 " + chromium_command(profile, "--dump-dom --window-size=1400," + std::to_string(height), page) +
                                 " 2>" + shell_quote(log_file.string()));
    run.status = dom.status;
    run.dom = dom.out;
    run.log = read_file(log_file);
    if (screenshot) {
        TempDir shot_profile;
        const auto shot = run_command("timeout 120 " +
                                      chromium_command(shot_profile, "--screenshot=" + shell_quote(screenshot->string()) +
                                                                         " --window-size=1400," + std::to_string(height),
                                                       page) +
                                      " 2>/dev/null");
        if (shot.status != 0) run.status = shot.status;
    }
    // Chromium logs each console message (any level) and each uncaught
    // exception as "...:INFO:CONSOLE(line)] "message", source: ...".
    std::istringstream lines(run.log);
    for (std::string line; std::getline(lines, line);)
        if (line.find(":CONSOLE") != std::string::npos) run.console.push_back(line);
    return run;
}

std::map<std::string, std::string> element_attributes(const std::string& dom, const std::string& id) {
    std::map<std::string, std::string> attrs;
    const auto at = dom.find("id=\"" + id + "\"");
    if (at == std::string::npos) return attrs;
    const auto open = dom.rfind('<', at);
    const auto close = dom.find('>', at);
    const std::string tag = dom.substr(open, close - open);
    static const std::regex attribute(R"re(([\w-]+)="([^"]*)")re");
    for (std::sregex_iterator it(tag.begin(), tag.end(), attribute), end; it != end; ++it)
        attrs[(*it)[1]] = (*it)[2];
    return attrs;
}

}  // namespace hashtrace::report::test
