// The render node (the paper's Unity): a 60-90 Hz frame loop that applies
// every update that arrived since the last frame to its scene graph, then
// draws (computes the world matrices a renderer would upload).
#include "loop_body.hpp"
#include "tracepoints.hpp"

#include <array>
#include <vector>

namespace hashtrace::samples {

namespace {

class Render final : public LoopBody {
public:
    using LoopBody::LoopBody;

    void iterate(std::uint64_t frame, bool /*producing: render sends nothing*/) override {
        while (auto m = take_message()) {
            apply_update(scene_, *m);
            TRACEPOINT("SceneGraphUpdated", SAMPLES_PAYLOAD_OF(*m), hashtrace::out("frame", frame));
            applied(*m);
        }
        checksum_ += compute_world_matrices(scene_, matrices_);
        TRACEPOINT("FrameRendered", hashtrace::in("frame", frame), hashtrace::none);
    }

private:
    std::vector<std::array<float, 16>> matrices_;
    float checksum_ = 0;
};

}  // namespace

std::unique_ptr<LoopBody> make_render(NodeContext context) { return std::make_unique<Render>(context); }

}  // namespace hashtrace::samples
