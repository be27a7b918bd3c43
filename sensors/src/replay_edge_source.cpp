// Replay of recorded edges: the test double for every edge consumer, and a way
// to re-run an analysis on edges captured from real hardware.
#include "hashtrace/sensors/edge_source.hpp"

#include "hashtrace/fileio/read_file.hpp"
#include "hashtrace/text/text.hpp"

#include <charconv>

namespace hashtrace::sensors {
namespace {

constexpr std::string_view kHeader = "time_ns,edge";
constexpr std::string_view kHeaderWithSequence = "time_ns,edge,sequence";

bool passes(EdgeFilter filter, EdgeKind kind) noexcept {
    return filter == EdgeFilter::both || (filter == EdgeFilter::rising) == (kind == EdgeKind::rising);
}

[[noreturn]] void fail(const std::string& name, std::size_t line, const std::string& reason) {
    throw SensorError(name + ":" + std::to_string(line) + ": " + reason);
}

template <typename Int>
bool parse_int(std::string_view text, Int& out) {
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
    return ec == std::errc{} && end == text.data() + text.size();
}

class ReplayEdgeSource final : public EdgeSource {
public:
    ReplayEdgeSource(std::vector<Edge> edges, EdgeFilter filter, std::string name)
        : edges_(std::move(edges)), filter_(filter), name_(std::move(name)) {
        skip_filtered();
    }

    std::optional<Edge> next(std::chrono::nanoseconds) override {
        if (finished()) return std::nullopt;
        const Edge edge = edges_[position_++];
        skip_filtered();
        return edge;
    }
    bool finished() const override { return position_ >= edges_.size(); }
    std::string describe() const override { return name_; }

private:
    void skip_filtered() {
        while (position_ < edges_.size() && !passes(filter_, edges_[position_].kind)) ++position_;
    }

    std::vector<Edge> edges_;
    EdgeFilter filter_;
    std::string name_;
    std::size_t position_ = 0;
};

}  // namespace

std::vector<Edge> parse_edge_replay(std::string_view text, const std::string& name) {
    std::vector<Edge> edges;
    text::for_each_record(text, [&](std::string_view line, std::size_t line_number) {
        if (line_number == 1 && (line == kHeader || line == kHeaderWithSequence)) return;
        std::string_view fields[3];
        const std::size_t count = text::split(line, ',', fields);
        if (count > 3) fail(name, line_number, "too many fields (expected time_ns,edge[,sequence])");
        if (count < 2) fail(name, line_number, "expected time_ns,edge[,sequence]");

        Edge edge;
        if (!parse_int(fields[0], edge.realtime_ns) || edge.realtime_ns < 0)
            fail(name, line_number, "time_ns '" + std::string(fields[0]) + "' is not a non-negative integer");
        if (fields[1] == "rising") edge.kind = EdgeKind::rising;
        else if (fields[1] == "falling") edge.kind = EdgeKind::falling;
        else fail(name, line_number, "edge '" + std::string(fields[1]) + "' is neither rising nor falling");
        edge.sequence = edges.empty() ? 1 : edges.back().sequence + 1;
        if (count == 3 && !parse_int(fields[2], edge.sequence))
            fail(name, line_number, "sequence '" + std::string(fields[2]) + "' is not an unsigned integer");
        if (!edges.empty() && edge.realtime_ns < edges.back().realtime_ns)
            fail(name, line_number, "time goes backwards");
        edges.push_back(edge);
    });
    return edges;
}

std::string format_edge_replay(const std::vector<Edge>& edges) {
    std::string out(kHeaderWithSequence);
    out += '\n';
    for (const Edge& e : edges) {
        out += std::to_string(e.realtime_ns);
        out += e.kind == EdgeKind::rising ? ",rising," : ",falling,";
        out += std::to_string(e.sequence);
        out += '\n';
    }
    return out;
}

std::vector<Edge> load_edge_replay(const std::filesystem::path& file) {
    const auto text = fileio::read_file(file);
    if (!text) throw SensorError(file.string() + ": cannot open edge replay file");
    return parse_edge_replay(*text, file.string());
}

std::unique_ptr<EdgeSource> make_replay_edges(std::vector<Edge> edges, EdgeFilter filter, std::string name) {
    return std::make_unique<ReplayEdgeSource>(std::move(edges), filter, std::move(name));
}

}  // namespace hashtrace::sensors
