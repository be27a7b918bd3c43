// hashtrace/live/page_server.hpp - the page and its data over HTTP
// (cpp-httplib): GET / the page (uPlot embedded at build time, nothing
// fetched from elsewhere), GET /api/state the collector's state, GET
// /api/events the same as Server-Sent Events several times a second, POST
// /api/save?seconds=N the last N seconds as logs into the save folder.
#pragma once

#include "hashtrace/live/collector.hpp"

#include <filesystem>
#include <memory>
#include <string>
#include <thread>

namespace httplib { class Server; }

namespace hashtrace::live {

struct PageOptions {
    std::string host = "127.0.0.1";
    int port = 0;                          // 0: any free port
    int updates_per_s = 5;
    std::filesystem::path save_dir = ".";  // where "save the last N seconds" writes (a new folder each time)
};

class PageServer {
public:
    // Listens at once; throws std::runtime_error when it cannot.
    PageServer(Collector& collector, PageOptions options);
    ~PageServer();  // stops serving, joins its thread
    int port() const noexcept { return port_; }

private:
    void routes();
    Collector& collector_;
    PageOptions options_;
    std::unique_ptr<httplib::Server> server_;
    int port_ = 0;
    std::thread thread_;
};

// The page's HTML with its script, styles and uPlot (generated at build time).
const std::string& page_html();

}  // namespace hashtrace::live
