// The haptics node (the paper's Chai): a 1 kHz loop that computes the force
// between the device's cursor and the nearest object and sends it to the
// others. Physics' transform updates keep its copy of the scene current.
#include "loop_body.hpp"
#include "tracepoints.hpp"

namespace hashtrace::samples {

namespace {

class Haptics final : public LoopBody {
public:
    using LoopBody::LoopBody;

    void iterate(std::uint64_t step, bool producing) override {
        if (ctx_.options.bug) {
            // Case study 1's bug, planted on purpose: one message per
            // iteration, however many are waiting. Physics sends more than
            // one per millisecond, so a backlog grows in the inbox.
            if (auto m = take_message()) apply(*m);
        } else {
            while (auto m = take_message()) apply(*m);
        }
        if (!producing) return;
        const HapticForce force = compute_force(scene_, cursor_at(static_cast<double>(realtime_ns()) / 1e9));
        TRACEPOINT("ForceComputed", hashtrace::inout("loop", step));
        publish(make_force(force), step);
    }

private:
    void apply(const msg::SceneMessage& m) {
        apply_update(scene_, m);
        TRACEPOINT("SceneGraphUpdated", SAMPLES_PAYLOAD_OF(m), hashtrace::none);
        applied(m);
    }
};

}  // namespace

std::unique_ptr<LoopBody> make_haptics(NodeContext context) { return std::make_unique<Haptics>(context); }

}  // namespace hashtrace::samples
