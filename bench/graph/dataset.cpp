#include "dataset.hpp"

#include "hashtrace/logio/writer.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <random>
#include <vector>

namespace hashtrace::bench {
namespace {

// Hash values only need to be equal where the hashed state is equal; a
// splitmix of (kind, value) is uniform like MD5 and 50x cheaper to make.
Hash128 state_hash(std::uint64_t kind, std::uint64_t value) {
    auto mix = [](std::uint64_t z) {
        z += 0x9E3779B97F4A7C15ull;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    };
    Hash128 h;
    const std::uint64_t a = mix(kind * 0x100000001B3ull ^ value), b = mix(a ^ kind);
    std::memcpy(h.bytes.data(), &a, 8);
    std::memcpy(h.bytes.data() + 8, &b, 8);
    return h;
}

enum Kind : std::uint64_t { kLoop = 1, kMessage, kScene, kSimLoop, kFrame };

struct Event {
    std::int64_t time;
    std::uint32_t tracepoint;
    std::uint32_t thread;
    bool has_in, has_out;
    Hash128 in, out;
};

class Node {
public:
    Node(std::string name, std::string instance) : name_(std::move(name)), instance_(std::move(instance)) {}
    std::uint32_t tracepoint(const std::string& tp, const std::string& in_type, const std::string& out_type) {
        auto [it, inserted] = ids_.try_emplace(tp, static_cast<std::uint32_t>(defs_.size()));
        if (inserted) defs_.push_back({name_, instance_, tp, in_type, out_type, HashFunction::md5});
        return it->second;
    }
    void add(std::int64_t time, std::uint32_t tp, std::uint32_t thread, const Hash128* in, const Hash128* out) {
        events_.push_back({time, tp, thread, in != nullptr, out != nullptr, in ? *in : Hash128{}, out ? *out : Hash128{}});
    }
    std::uint64_t write(const std::filesystem::path& dir, LogFormat format) {
        std::stable_sort(events_.begin(), events_.end(), [](const Event& a, const Event& b) { return a.time < b.time; });
        auto writer = logio::open_writer(dir / (name_ + "-" + instance_ + file_suffix(format)), format,
                                         {{"node", name_}, {"instance", instance_}, {"clock_source", "synthetic"}});
        for (const auto& d : defs_) writer->add_tracepoint(d);
        std::vector<std::uint64_t> seq(8, 0);
        for (const Event& e : events_) {
            logio::SampleRecord r;
            r.time_ns = e.time;
            r.tracepoint = e.tracepoint;
            r.thread = e.thread;
            r.seq = seq[e.thread]++;
            r.input_hash = e.in;
            r.output_hash = e.out;
            r.flags = logio::SampleRecord::kHasThread | logio::SampleRecord::kHasSeq | (e.has_in ? logio::SampleRecord::kHasInput : 0) |
                      (e.has_out ? logio::SampleRecord::kHasOutput : 0);
            writer->write(r);
        }
        writer->close();
        const auto n = events_.size();
        events_ = {};
        return n;
    }
    std::size_t size() const { return events_.size(); }

private:
    std::string name_, instance_;
    std::map<std::string, std::uint32_t> ids_;
    std::vector<logio::TracepointInfo> defs_;
    std::vector<Event> events_;
};

}  // namespace

DatasetSize generate_dataset(const std::filesystem::path& dir, std::uint64_t target_samples, LogFormat format, std::uint64_t seed) {
    std::filesystem::create_directories(dir);
    std::mt19937_64 rng(seed);
    std::exponential_distribution<double> queueing(1.0 / 300e3);  // mean 0.3 ms of waiting per hop
    auto delay = [&](double base_ns) { return static_cast<std::int64_t>(base_ns + queueing(rng)); };
    Node chai("Chai", "4108243516105288"), router("Router", "77001"), bullet("Bullet", "3391"), unity("Unity", "90210"),
        display("Display", "camera0");
    const auto chai_loop = chai.tracepoint("HapticLoop", "loop", "loop"), chai_force = chai.tracepoint("ForceComputed", "loop", "messageid"),
               chai_send = chai.tracepoint("MessageSent", "messageid", "messageid"),
               chai_receipt = chai.tracepoint("MessageReceipt", "messageid", "");
    const auto router_in = router.tracepoint("Receive", "messageid", "messageid"), router_out = router.tracepoint("Forward", "messageid", "messageid");
    const auto bullet_receipt = bullet.tracepoint("MessageReceipt", "messageid", "messageid"),
               bullet_processed = bullet.tracepoint("MessageProcessed", "messageid", ""),
               bullet_sim = bullet.tracepoint("Simulation", "loop", "loop"), bullet_send = bullet.tracepoint("MessageTransmission", "loop", "messageid");
    const auto unity_receipt = unity.tracepoint("MessageReceipt", "messageid", "messageid"),
               unity_processed = unity.tracepoint("MessageProcessed", "messageid", "scene"),
               unity_update = unity.tracepoint("SceneGraphUpdate", "scene", "frame");
    const auto display_frame = display.tracepoint("QrFrame", "frame", "");

    // Per haptic tick ~14 samples, per physics step ~12: ticks at 4 kHz and
    // physics at 1 kHz make ~68k samples per simulated second.
    constexpr std::int64_t kHapticPeriod = 250'000, kPhysicsPeriod = 1'000'000;
    const std::int64_t start = 1'700'000'000'000'000'000;
    std::uint64_t message = 0, written = 0;
    auto total = [&] { return chai.size() + router.size() + bullet.size() + unity.size() + display.size(); };
    // Router fan-out: every message goes to the two nodes it did not come from.
    auto route = [&](std::int64_t t, const Hash128& id, Node& to_a, std::uint32_t receipt_a, Node& to_b, std::uint32_t receipt_b) {
        const std::int64_t r = t + delay(80e3);
        router.add(r, router_in, 1, &id, &id);
        const std::int64_t fa = r + delay(20e3), fb = r + delay(25e3);
        router.add(fa, router_out, 2, &id, &id);
        router.add(fb, router_out, 3, &id, &id);
        const std::int64_t ra = fa + delay(90e3), rb = fb + delay(90e3);
        to_a.add(ra, receipt_a, 2, &id, &id);
        to_b.add(rb, receipt_b, 2, &id, &id);
        return std::pair(ra, rb);
    };
    for (std::int64_t tick = 0; total() < target_samples; ++tick) {
        const std::int64_t t = start + tick * kHapticPeriod;
        // Haptics: loop counter wraps at 256 (hash reuse), force -> message.
        const Hash128 loop_in = state_hash(kLoop, tick % 256), loop_out = state_hash(kLoop, (tick + 1) % 256);
        chai.add(t, chai_loop, 1, &loop_in, &loop_out);
        const Hash128 id = state_hash(kMessage, message++);
        const std::int64_t force = t + delay(40e3);
        chai.add(force, chai_force, 1, &loop_out, &id);
        const std::int64_t sent = force + delay(30e3);
        chai.add(sent, chai_send, 3, &id, &id);
        const auto [unity_at, bullet_at] = route(sent, id, unity, unity_receipt, bullet, bullet_receipt);
        bullet.add(bullet_at + delay(60e3), bullet_processed, 1, &id, nullptr);
        const Hash128 scene = state_hash(kScene, tick);
        const std::int64_t processed = unity_at + delay(200e3);
        unity.add(processed, unity_processed, 1, &id, &scene);
        // Graphics runs every 4th tick; the display shows each frame once or twice (persistence).
        if (tick % 4 == 0) {
            const Hash128 frame = state_hash(kFrame, tick);
            const std::int64_t update = processed + delay(500e3);
            unity.add(update, unity_update, 1, &scene, &frame);
            display.add(update + 8'000'000 + delay(0), display_frame, 0, &frame, nullptr);
            if (tick % 3 == 0) display.add(update + 16'000'000 + delay(0), display_frame, 0, &frame, nullptr);
        }
        // Physics: its own wrapping loop, and a transmitted state message to Chai and Unity.
        if (tick * kHapticPeriod % kPhysicsPeriod == 0) {
            const std::int64_t step = tick * kHapticPeriod / kPhysicsPeriod;
            const Hash128 sim_in = state_hash(kSimLoop, step % 1000), sim_out = state_hash(kSimLoop, (step + 1) % 1000);
            const std::int64_t sim = t + delay(10e3);
            bullet.add(sim, bullet_sim, 1, &sim_in, &sim_out);
            const Hash128 state = state_hash(kMessage, message++);
            const std::int64_t tx = sim + delay(150e3);
            bullet.add(tx, bullet_send, 3, &sim_out, &state);
            const auto [chai_at, unity_state_at] = route(tx, state, chai, chai_receipt, unity, unity_receipt);
            unity.add(unity_state_at + delay(200e3), unity_processed, 1, &state, &scene);
            (void)chai_at;
        }
    }
    written += chai.write(dir, format) + router.write(dir, format) + bullet.write(dir, format) + unity.write(dir, format) +
               display.write(dir, format);
    return {written, 5};
}

namespace {

// The spec as text, where a reader of the run looks for it (a listing, not logic).
constexpr const char* kBenchSpec = R"(# Allowed pairs of the synthetic Case Study 2 run (bench/graph/dataset.cpp).
[[pair]]
from = "Chai/HapticLoop"
to = "Chai/HapticLoop"
scope = "instance"
[[pair]]
from = "Chai/HapticLoop"
to = "Chai/ForceComputed"
scope = "instance"
[[pair]]
from = "Chai/ForceComputed"
to = "Chai/MessageSent"
[[pair]]
from = "*/MessageSent"
to = "Router/Receive"
[[pair]]
from = "*/MessageTransmission"
to = "Router/Receive"
[[pair]]
from = "Router/Receive"
to = "Router/Forward"
[[pair]]
from = "Router/Forward"
to = "*/MessageReceipt"
[[pair]]
from = "*/MessageReceipt"
to = "*/MessageProcessed"
scope = "instance"
[[pair]]
from = "Bullet/Simulation"
to = "Bullet/Simulation"
[[pair]]
from = "Bullet/Simulation"
to = "Bullet/MessageTransmission"
[[pair]]
from = "Unity/MessageProcessed"
to = "Unity/SceneGraphUpdate"
[[pair]]
from = "Unity/SceneGraphUpdate"
to = "Display/QrFrame"

[[interval]]
name = "M4.1 Bullet receipt to processed"
from = "Bullet/MessageReceipt"
to = "Bullet/MessageProcessed"
[[interval]]
name = "M4.2 Bullet simulation to transmission"
from = "Bullet/Simulation"
to = "Bullet/MessageTransmission"
[[interval]]
name = "M4.3 Chai force to send"
from = "Chai/ForceComputed"
to = "Chai/MessageSent"
[[interval]]
name = "M4.4 Unity receipt to processed"
from = "Unity/MessageReceipt"
to = "Unity/MessageProcessed"
[[interval]]
name = "M4.5 Router receive to forward"
from = "Router/Receive"
to = "Router/Forward"
[[interval]]
name = "M5.1 Chai force to Unity processed"
from = "Chai/ForceComputed"
to = "Unity/MessageProcessed"
kind = "end_to_end"
[[interval]]
name = "M5.2 Chai force to Bullet processed"
from = "Chai/ForceComputed"
to = "Bullet/MessageProcessed"
kind = "end_to_end"
[[interval]]
name = "M5.3 Bullet simulation to Chai receipt"
from = "Bullet/Simulation"
to = "Chai/MessageReceipt"
kind = "end_to_end"
[[interval]]
name = "M5.4 Bullet simulation to Unity processed"
from = "Bullet/Simulation"
to = "Unity/MessageProcessed"
kind = "end_to_end"
[[interval]]
name = "M5.5 Chai force to display"
from = "Chai/ForceComputed"
to = "Display/QrFrame"
kind = "end_to_end"
)";

}  // namespace

std::string bench_spec() { return kBenchSpec; }

}  // namespace hashtrace::bench
