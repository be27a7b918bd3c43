// hashtrace/sensors/edge_source.hpp - timestamped signal edges from a sensor.
//
// A PPS input, a photodiode comparator or a recorded file all deliver the same
// thing: edges of a digital signal, each with the CLOCK_REALTIME time at which
// the kernel (or the recording) saw it. Consumers (the PPS servo, the
// photodiode collector) are written against EdgeSource and tested with the
// replay implementation; the hardware ones differ only in where edges come from.
//
//   auto edges = hashtrace::sensors::open_gpio_edges({.chip = "gpiochip0", .line = 17});
//   while (auto e = edges->next(std::chrono::seconds(2))) use(e->realtime_ns);
//
// Every implementation reports times on CLOCK_REALTIME (UTC ns since the Unix
// epoch): the GPIO one maps the kernel's CLOCK_MONOTONIC event stamps itself
// (see clock_mapping.hpp), the /dev/pps one gets CLOCK_REALTIME from the kernel.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace hashtrace::sensors {

enum class EdgeKind : std::uint8_t { rising, falling };

// Which edges a source reports.
enum class EdgeFilter : std::uint8_t { rising, falling, both };

struct Edge {
    std::int64_t realtime_ns = 0;  // CLOCK_REALTIME, UTC ns since the Unix epoch
    EdgeKind kind = EdgeKind::rising;
    // Counts edges as the source saw them (kernel count for /dev/pps, our own
    // count for GPIO, the file's for replay). A gap means edges were lost.
    std::uint64_t sequence = 0;

    friend bool operator==(const Edge&, const Edge&) = default;
};

// A device that cannot be opened or read; the message names the device and the reason.
class SensorError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class EdgeSource {
public:
    virtual ~EdgeSource() = default;
    // Waits up to `timeout` for the next edge passing the filter. Returns
    // nullopt on timeout or, for a finite source, once finished() is true.
    // Throws SensorError when the device fails.
    virtual std::optional<Edge> next(std::chrono::nanoseconds timeout) = 0;
    // True when a finite source (a replay) has delivered its last edge.
    virtual bool finished() const { return false; }
    // Human-readable name of the source, for logs and errors ("gpiochip0:17").
    virtual std::string describe() const = 0;
};

// --- GPIO line through libgpiod 1.6 (v1 character-device uAPI) -------------
struct GpioLineSpec {
    std::string chip = "gpiochip0";  // name ("gpiochip0"), number ("0"), path or label
    unsigned line = 0;               // line offset on that chip
    EdgeFilter edges = EdgeFilter::rising;
    bool active_low = false;         // invert: an inverting level shifter or opto-coupler
    std::string consumer = "hashtrace";
};
std::unique_ptr<EdgeSource> open_gpio_edges(const GpioLineSpec& spec);

// --- Kernel PPS device (/dev/ppsN, RFC 2783 via the ioctl interface) --------
// "assert" is reported as rising and "clear" as falling (as the PPS client
// driver is configured; pps-gpio's assert-falling-edge inverts this).
std::unique_ptr<EdgeSource> open_pps_edges(const std::filesystem::path& device,
                                           EdgeFilter edges = EdgeFilter::rising);

// --- Replay of recorded edges ----------------------------------------------
// File format (text, one edge per line, '#' starts a comment line):
//   time_ns,edge[,sequence]          <- optional header line, exactly this text
//   1700000000000012345,rising,1
// time_ns is CLOCK_REALTIME integer nanoseconds; edge is "rising" or "falling";
// sequence defaults to the running count. Times must not decrease.
std::vector<Edge> parse_edge_replay(std::string_view text, const std::string& name);  // throws SensorError("name:line: reason")
std::string format_edge_replay(const std::vector<Edge>& edges);
std::vector<Edge> load_edge_replay(const std::filesystem::path& file);

// Delivers the edges in order without waiting (time is the edges' own).
std::unique_ptr<EdgeSource> make_replay_edges(std::vector<Edge> edges, EdgeFilter filter = EdgeFilter::both,
                                              std::string name = "replay");

// Passes edges through from `inner` and appends each to `file` in the replay
// format (header first, one flushed line per edge), so a hardware run can be
// replayed later. Throws SensorError if the file cannot be written.
std::unique_ptr<EdgeSource> make_recording_edges(std::unique_ptr<EdgeSource> inner, const std::filesystem::path& file);

// --- GPIO output (the PPS LED) ----------------------------------------------
class GpioOutput {
public:
    virtual ~GpioOutput() = default;
    virtual void set(bool high) = 0;  // throws SensorError
    virtual std::string describe() const = 0;
};
struct GpioOutputSpec {
    std::string chip = "gpiochip0";
    unsigned line = 0;
    bool active_low = false;
    std::string consumer = "hashtrace";
};
std::unique_ptr<GpioOutput> open_gpio_output(const GpioOutputSpec& spec);

}  // namespace hashtrace::sensors
