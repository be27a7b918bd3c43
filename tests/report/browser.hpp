// browser.hpp - opens a page in headless Chromium and reports what a person
// would have seen: the DOM after its scripts ran, and every console message.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace hashtrace::report::test {

struct BrowserRun {
    int status = -1;
    std::string dom;                    // document after the scripts ran (--dump-dom)
    std::vector<std::string> console;   // console messages and uncaught errors
    std::string log;                    // Chromium's whole stderr, for failure messages
};

// `screenshot`: also writes a PNG of the page at 1400 px width.
BrowserRun open_in_chromium(const std::filesystem::path& page, const std::optional<std::filesystem::path>& screenshot = {},
                            int height = 4000);

// Attributes of the element with the given id in a dumped DOM (empty when absent).
std::map<std::string, std::string> element_attributes(const std::string& dom, const std::string& id);

}  // namespace hashtrace::report::test
