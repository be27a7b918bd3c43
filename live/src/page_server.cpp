#include "hashtrace/live/page_server.hpp"

#include <httplib.h>

#include <chrono>
#include <stdexcept>

namespace hashtrace::live {
namespace {

// One save folder per request, named by the time, so that saves never overwrite each other.
std::filesystem::path save_folder(const std::filesystem::path& base) {
    const auto now = std::chrono::system_clock::now().time_since_epoch();
    return base / ("live-save-" + std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(now).count()));
}

}  // namespace

PageServer::PageServer(Collector& collector, PageOptions options)
    : collector_(collector), options_(std::move(options)), server_(std::make_unique<httplib::Server>()) {
    routes();
    port_ = options_.port == 0 ? server_->bind_to_any_port(options_.host) : (server_->bind_to_port(options_.host, options_.port) ? options_.port : -1);
    if (port_ <= 0) throw std::runtime_error("cannot serve the page on " + options_.host + ":" + std::to_string(options_.port));
    thread_ = std::thread([this] { server_->listen_after_bind(); });
}

PageServer::~PageServer() {
    server_->stop();
    thread_.join();
}

void PageServer::routes() {
    server_->Get("/", [](const httplib::Request&, httplib::Response& res) { res.set_content(page_html(), "text/html; charset=utf-8"); });
    server_->Get("/api/state", [this](const httplib::Request&, httplib::Response& res) {
        res.set_content(collector_.state().dump(), "application/json");
    });
    server_->Get("/api/events", [this](const httplib::Request&, httplib::Response& res) {
        res.set_header("Cache-Control", "no-cache");
        const auto period = std::chrono::milliseconds(1000 / std::max(options_.updates_per_s, 1));
        res.set_chunked_content_provider("text/event-stream", [this, period](std::size_t, httplib::DataSink& sink) {
            const std::string event = "data: " + collector_.state().dump() + "\n\n";
            if (!sink.write(event.data(), event.size())) return false;
            std::this_thread::sleep_for(period);
            return server_->is_running();
        });
    });
    server_->Post("/api/save", [this](const httplib::Request& req, httplib::Response& res) {
        const double seconds = req.has_param("seconds") ? std::atof(req.get_param_value("seconds").c_str()) : 10.0;
        if (!(seconds > 0)) {
            res.status = 400;
            res.set_content("seconds must be a positive number", "text/plain");
            return;
        }
        const auto dir = save_folder(options_.save_dir);
        nlohmann::ordered_json files = nlohmann::ordered_json::array();
        for (const auto& f : collector_.save_recent(dir, seconds)) files.push_back(f.string());
        res.set_content(nlohmann::ordered_json{{"folder", dir.string()}, {"files", files}}.dump(), "application/json");
    });
}

}  // namespace hashtrace::live
