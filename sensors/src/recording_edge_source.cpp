// Records the edges a source delivers, in the replay format.
#include "hashtrace/sensors/edge_source.hpp"

#include <fstream>

namespace hashtrace::sensors {
namespace {

class RecordingEdgeSource final : public EdgeSource {
public:
    RecordingEdgeSource(std::unique_ptr<EdgeSource> inner, const std::filesystem::path& file)
        : inner_(std::move(inner)), file_(file), out_(file, std::ios::binary | std::ios::trunc) {
        out_ << format_edge_replay({});  // the header
        if (!out_.flush()) throw SensorError(file.string() + ": cannot write the edge recording");
    }

    std::optional<Edge> next(std::chrono::nanoseconds timeout) override {
        auto edge = inner_->next(timeout);
        if (edge) {
            const std::string text = format_edge_replay({*edge});
            out_ << text.substr(text.find('\n') + 1);  // without the header
            if (!out_.flush()) throw SensorError(file_.string() + ": cannot append to the edge recording");
        }
        return edge;
    }
    bool finished() const override { return inner_->finished(); }
    std::string describe() const override { return inner_->describe(); }

private:
    std::unique_ptr<EdgeSource> inner_;
    std::filesystem::path file_;
    std::ofstream out_;
};

}  // namespace

std::unique_ptr<EdgeSource> make_recording_edges(std::unique_ptr<EdgeSource> inner, const std::filesystem::path& file) {
    return std::make_unique<RecordingEdgeSource>(std::move(inner), file);
}

}  // namespace hashtrace::sensors
