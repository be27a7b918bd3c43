// The physics node (the paper's Bullet): a few hundred Hz rigid-body step,
// applying the haptic forces it receives and sending every object's new pose.
#include "loop_body.hpp"
#include "tracepoints.hpp"

namespace hashtrace::samples {

namespace {

class Physics final : public LoopBody {
public:
    using LoopBody::LoopBody;

    void iterate(std::uint64_t step, bool producing) override {
        while (auto m = take_message()) {
            apply_update(scene_, *m);
            TRACEPOINT("SceneGraphUpdated", SAMPLES_PAYLOAD_OF(*m), hashtrace::none);
            applied(*m);
        }
        if (!producing) return;
        step_physics(scene_, static_cast<float>(1.0 / ctx_.options.rate_hz));
        TRACEPOINT("SimulationStepped", hashtrace::inout("loop", step));
        for (std::size_t i = 0; i < scene_.objects.size(); ++i) {
            publish(make_transform(static_cast<std::uint16_t>(i), scene_.objects[i]), step);
        }
    }
};

}  // namespace

std::unique_ptr<LoopBody> make_physics(NodeContext context) { return std::make_unique<Physics>(context); }

}  // namespace hashtrace::samples
