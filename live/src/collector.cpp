#include "hashtrace/live/collector.hpp"

#include "connection.hpp"

#include <algorithm>

namespace hashtrace::live {
namespace {

constexpr std::size_t kMessagesKept = 20;

std::string label(const std::string& node, const std::string& instance) { return node + " (" + instance + ")"; }

// A connection's log name: its node, instance and connection number (a node that reconnects writes a second log).
std::string stem(const std::string& node, const std::string& instance, std::size_t id) {
    std::string name = node + "-" + instance + "-" + std::to_string(id);
    std::replace_if(name.begin(), name.end(), [](char c) { return c == '/' || c == '\\' || c == ':'; }, '_');
    return name;
}

}  // namespace

Collector::Collector(graph::AnalysisSpec spec, CollectorOptions options)
    : spec_(std::move(spec)), options_(std::move(options)), intervals_(critical_path::select_intervals(spec_, {})) {}
Collector::~Collector() = default;

std::optional<std::size_t> Collector::open(const std::string& peer) {
    std::lock_guard lock(mutex_);
    const auto open_now = std::count_if(connections_.begin(), connections_.end(), [](const auto& c) { return c.second->open; });
    if (static_cast<std::size_t>(open_now) >= options_.max_streams) {
        ++refused_;
        say(peer + ": refused, " + std::to_string(open_now) + " streams are open already (the most taken at once)");
        return std::nullopt;
    }
    const std::size_t id = next_id_++;
    connections_.emplace(id, std::make_unique<Connection>(id, peer));
    return id;
}

void Collector::say(const std::string& message) {
    messages_.push_back(message);
    while (messages_.size() > kMessagesKept) messages_.pop_front();
}

void Collector::refuse(Connection& c, const std::string& why) {
    ++refused_;
    c.open = false;
    say(why);
}

void Collector::accept_header(Connection& c) {
    const logio::LogHeader& h = c.stream.header();
    c.node = h.contains("node") ? h.at("node") : "?";
    c.instance = h.contains("instance") ? h.at("instance") : "?";
    for (const auto& [id, other] : connections_)
        if (id != c.id && other->open && other->accepted && other->node == c.node && other->instance == c.instance)
            return refuse(c, c.peer + ": node " + label(c.node, c.instance) + " is already connected from " + other->peer + ": refused");
    c.accepted = true;
    if (!options_.save_dir.empty()) {
        c.save.open(options_.save_dir / (stem(c.node, c.instance, c.id) + ".htlog"), std::ios::binary);
        c.save.write(c.stream.header_bytes().data(), static_cast<std::streamsize>(c.stream.header_bytes().size()));
    }
}

void Collector::take_block(Connection& c, logio::StreamBlock block) {
    if (c.save.is_open()) {
        c.save.write(block.bytes.data(), static_cast<std::streamsize>(block.bytes.size()));
        c.save.flush();
    }
    // Samples older than what is settled are never owned by a summary: counted, not silently lost.
    if (block.samples > 0 && block.min_ns < std::max(settled_ns_, settling_to_)) late_samples_ += block.samples;
    if (block.samples > 0 && origin_ns_ == INT64_MIN) origin_ns_ = block.min_ns;
    if (block.samples > 0) origin_ns_ = std::min(origin_ns_, block.min_ns);
    if (block.samples > 0) c.newest_ns = std::max(c.newest_ns, block.max_ns);
    window_.add(c.id, stem(c.node, c.instance, c.id), c.stream.header_bytes(), std::move(block));
}

bool Collector::receive(std::size_t connection, std::string_view bytes, bool more_waiting) {
    std::lock_guard lock(mutex_);
    const auto found = connections_.find(connection);
    if (found == connections_.end() || !found->second->open) return false;
    Connection& c = *found->second;
    // More waiting starts (or prolongs) catching up; nothing waiting does not
    // end it: the socket runs dry between the node's sends of its backlog.
    if (more_waiting) c.catching_up_until_ns = std::max(c.catching_up_until_ns, steady_now_ns() + options_.catch_up_limit_ns);
    try {
        auto blocks = c.stream.feed(bytes);
        if (c.stream.has_header() && !c.accepted) accept_header(c);
        if (!c.open) return false;
        for (auto& b : blocks) take_block(c, std::move(b));
    } catch (const std::exception& e) {  // a damaged or foreign stream: this connection only
        refuse(c, c.peer + (c.accepted ? " (" + label(c.node, c.instance) + ")" : "") + ": " + e.what());
        return false;
    }
    return true;
}

void Collector::caught_up(std::size_t connection) {
    std::lock_guard lock(mutex_);
    if (const auto found = connections_.find(connection); found != connections_.end()) found->second->catching_up_until_ns = INT64_MIN;
}

void Collector::close(std::size_t connection) {
    std::lock_guard lock(mutex_);
    const auto found = connections_.find(connection);
    if (found == connections_.end()) return;
    Connection& c = *found->second;
    if (c.accepted && c.open && c.stream.pending_bytes() > 0)
        say(c.peer + " (" + label(c.node, c.instance) + "): closed inside a block; its " + std::to_string(c.stream.pending_bytes()) +
            " bytes are not read");
    c.open = false;
    if (c.save.is_open()) c.save.close();
}

}  // namespace hashtrace::live
