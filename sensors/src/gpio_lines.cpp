// GPIO lines through libgpiod 1.6: edge events in, a level out (the PPS LED).
#include "hashtrace/sensors/clock_mapping.hpp"
#include "hashtrace/sensors/edge_source.hpp"

#include <gpiod.h>

#include <cerrno>
#include <cstring>
#include <deque>

namespace hashtrace::sensors {
namespace {

std::string line_name(const std::string& chip, unsigned line) { return chip + ":" + std::to_string(line); }

[[noreturn]] void fail_errno(const std::string& what, const std::string& device) {
    throw SensorError(device + ": " + what + ": " + std::strerror(errno));
}

// Owns a chip and one requested line of it.
class RequestedLine {
public:
    RequestedLine(const std::string& chip_descr, unsigned offset, int request_type, int flags,
                  const std::string& consumer, int default_value = 0)
        : name_(line_name(chip_descr, offset)) {
        chip_ = gpiod_chip_open_lookup(chip_descr.c_str());
        if (chip_ == nullptr) fail_errno("cannot open GPIO chip (is it present and readable?)", name_);
        line_ = gpiod_chip_get_line(chip_, offset);
        if (line_ == nullptr) {
            gpiod_chip_close(chip_);
            fail_errno("no such line on this chip", name_);
        }
        const gpiod_line_request_config config{consumer.c_str(), request_type, flags};
        if (gpiod_line_request(line_, &config, default_value) != 0) {
            gpiod_chip_close(chip_);
            fail_errno("cannot request the line (in use by another consumer?)", name_);
        }
    }
    ~RequestedLine() {
        gpiod_line_release(line_);
        gpiod_chip_close(chip_);
    }
    RequestedLine(const RequestedLine&) = delete;
    RequestedLine& operator=(const RequestedLine&) = delete;

    gpiod_line* line() const noexcept { return line_; }
    const std::string& name() const noexcept { return name_; }

private:
    std::string name_;
    gpiod_chip* chip_ = nullptr;
    gpiod_line* line_ = nullptr;
};

int event_request_type(EdgeFilter filter) {
    switch (filter) {
        case EdgeFilter::rising: return GPIOD_LINE_REQUEST_EVENT_RISING_EDGE;
        case EdgeFilter::falling: return GPIOD_LINE_REQUEST_EVENT_FALLING_EDGE;
        case EdgeFilter::both: return GPIOD_LINE_REQUEST_EVENT_BOTH_EDGES;
    }
    return GPIOD_LINE_REQUEST_EVENT_BOTH_EDGES;
}

class GpioEdgeSource final : public EdgeSource {
public:
    explicit GpioEdgeSource(const GpioLineSpec& spec)
        : line_(spec.chip, spec.line, event_request_type(spec.edges),
                spec.active_low ? GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW : 0, spec.consumer) {}

    std::optional<Edge> next(std::chrono::nanoseconds timeout) override {
        if (pending_.empty()) read_events(timeout);
        if (pending_.empty()) return std::nullopt;
        const Edge edge = pending_.front();
        pending_.pop_front();
        return edge;
    }
    std::string describe() const override { return line_.name(); }

private:
    void read_events(std::chrono::nanoseconds timeout) {
        const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(timeout);
        const timespec wait{static_cast<time_t>(seconds.count()), static_cast<long>((timeout - seconds).count())};
        const int ready = gpiod_line_event_wait(line_.line(), &wait);
        if (ready < 0) fail_errno("waiting for edge events failed", line_.name());
        if (ready == 0) return;
        // The kernel queues up to 16 events per line; drain them in one read.
        gpiod_line_event events[16];
        const int count = gpiod_line_event_read_multiple(line_.line(), events, 16);
        if (count < 0) fail_errno("reading edge events failed", line_.name());
        // Read the clocks once, right after the events, to place them on CLOCK_REALTIME.
        const ClockOffsetReading offset = read_clock_offset();
        for (int i = 0; i < count; ++i) {
            const std::int64_t stamp = static_cast<std::int64_t>(events[i].ts.tv_sec) * 1'000'000'000 + events[i].ts.tv_nsec;
            const EventClock clock = classify_event_clock(stamp, offset.realtime_now_ns, offset.monotonic_now_ns);
            pending_.push_back({event_to_realtime(stamp, clock, offset),
                                events[i].event_type == GPIOD_LINE_EVENT_RISING_EDGE ? EdgeKind::rising : EdgeKind::falling,
                                ++sequence_});
        }
    }

    RequestedLine line_;
    std::deque<Edge> pending_;
    std::uint64_t sequence_ = 0;
};

class GpiodOutput final : public GpioOutput {
public:
    explicit GpiodOutput(const GpioOutputSpec& spec)
        : line_(spec.chip, spec.line, GPIOD_LINE_REQUEST_DIRECTION_OUTPUT,
                spec.active_low ? GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW : 0, spec.consumer, 0) {}

    void set(bool high) override {
        if (gpiod_line_set_value(line_.line(), high ? 1 : 0) != 0) fail_errno("cannot set the line", line_.name());
    }
    std::string describe() const override { return line_.name(); }

private:
    RequestedLine line_;
};

}  // namespace

std::unique_ptr<EdgeSource> open_gpio_edges(const GpioLineSpec& spec) { return std::make_unique<GpioEdgeSource>(spec); }

std::unique_ptr<GpioOutput> open_gpio_output(const GpioOutputSpec& spec) { return std::make_unique<GpiodOutput>(spec); }

}  // namespace hashtrace::sensors
