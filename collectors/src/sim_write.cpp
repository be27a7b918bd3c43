// The camera simulator's outputs: footage, software logs, ground truth.
#include "hashtrace/collectors/camera_sim.hpp"
#include "hashtrace/collectors/sim_camera.hpp"

#include "hashtrace/canonical.hpp"
#include "hashtrace/logio/reader.hpp"
#include "hashtrace/logio/writer.hpp"

#include <opencv2/videoio.hpp>

#include <cmath>
#include <fstream>
#include <numbers>
#include <stdexcept>

namespace hashtrace::collectors {

namespace {

void write_video(const SimulationConfig& c, const SimulationPlan& plan, const std::filesystem::path& file) {
    cv::VideoWriter writer(file.string(), cv::CAP_FFMPEG, cv::VideoWriter::fourcc('M', 'J', 'P', 'G'), c.camera_fps,
                           cv::Size(c.width, c.height), false);
    if (!writer.isOpened()) throw std::runtime_error(file.string() + ": cannot write Motion JPEG video");
    writer.set(cv::VIDEOWRITER_PROP_QUALITY, 90);
    SimulatedCamera camera(c, plan);
    cv::Mat frame;
    for (std::size_t k = 0; k < plan.frame_start_ns.size(); ++k) {
        camera.render(k, frame);
        writer.write(frame);
    }
}

// A software clock disciplined to the PPS, off by at most `amplitude`.
std::int64_t software_clock(std::int64_t t, std::int64_t origin, double amplitude_ns, double phase) {
    const double elapsed_s = static_cast<double>(t - origin) * 1e-9;
    return t + std::llround(amplitude_ns * std::sin(2 * std::numbers::pi * elapsed_s / 7.3 + phase));
}

logio::TracepointInfo tracepoint(const std::string& node, const std::string& instance, const std::string& name,
                                 const std::string& in, const std::string& out) {
    logio::TracepointInfo t;
    t.node_name = node;
    t.instance = instance;
    t.tracepoint_name = name;
    t.input_hash_type = in;
    t.output_hash_type = out;
    return t;
}

void write_software_logs(const SimulationConfig& c, const SimulationPlan& plan, const std::filesystem::path& dir) {
    const double amplitude = c.max_clock_deviation_ms * 1e6;
    logio::SampleLog chai, unity;
    chai.header = {{"node", "Chai"}, {"instance", "c4a1"}};
    unity.header = {{"node", "Unity"}, {"instance", "u7e2"}};
    chai.tracepoints = {tracepoint("Chai", "c4a1", "MessageCreated", "", "messageid")};
    unity.tracepoints = {tracepoint("Unity", "u7e2", "MessageReceived", "messageid", "messageid"),
                         tracepoint("Unity", "u7e2", "MessageProcessed", "messageid", "messageid")};
    using logio::SampleRecord;
    for (const auto& m : plan.messages) {
        // As the SDK hashes TRACEPOINT(..., inout("messageid", std::uint32_t id)).
        const Hash128 h = hash_of(HashFunction::md5, m.id);
        SampleRecord created;
        created.time_ns = software_clock(m.created_ns, c.frame0_start_ns, amplitude, 0.7);
        created.output_hash = h;
        created.flags = SampleRecord::kHasOutput;
        chai.samples.push_back(created);
        for (std::uint32_t tp : {0u, 1u}) {
            SampleRecord s;
            s.time_ns = software_clock(tp == 0 ? m.received_ns : m.processed_ns, c.frame0_start_ns, amplitude, 2.1);
            s.input_hash = s.output_hash = h;
            s.tracepoint = tp;
            s.flags = SampleRecord::kHasInput | SampleRecord::kHasOutput;
            unity.samples.push_back(s);
        }
    }
    std::stable_sort(unity.samples.begin(), unity.samples.end(),
                     [](const auto& a, const auto& b) { return a.time_ns < b.time_ns; });
    std::filesystem::create_directories(dir);
    logio::write_log(dir / "Chai-c4a1.csv", LogFormat::csv, chai);
    logio::write_log(dir / "Unity-u7e2.csv", LogFormat::csv, unity);
}

void write_truth(const SimulationPlan& plan, const SimulationOutputs& out) {
    std::ofstream frames(out.truth_frames);
    frames << "frame,start_ns,center_ns\n";
    for (std::size_t k = 0; k < plan.frame_start_ns.size(); ++k)
        frames << k << ',' << plan.frame_start_ns[k] << ','
               << plan.frame_start_ns[k] + std::llround(plan.frame_period_exact_ns / 2) << '\n';
    std::ofstream messages(out.truth_messages);
    messages << "message_id,created_ns,received_ns,processed_ns,displayed_ns,double_frame\n";
    for (const auto& m : plan.messages) {
        messages << m.id << ',' << m.created_ns << ',' << m.received_ns << ',' << m.processed_ns << ',';
        if (m.displayed_ns) messages << *m.displayed_ns;
        messages << ',' << (m.double_frame ? 1 : 0) << '\n';
    }
    if (!frames || !messages) throw std::runtime_error("cannot write the ground truth files");
}

}  // namespace

SimulationOutputs write_simulation(const SimulationConfig& config, const SimulationPlan& plan,
                                   const std::filesystem::path& dir) {
    std::filesystem::create_directories(dir);
    SimulationOutputs out{dir / "footage.avi", dir / "logs", dir / "truth-frames.csv", dir / "truth-messages.csv"};
    write_video(config, plan, out.video);
    write_software_logs(config, plan, out.logs);
    write_truth(plan, out);
    return out;
}

}  // namespace hashtrace::collectors
