// Kernel PPS devices (/dev/ppsN) through the RFC 2783 ioctls. The kernel stamps
// assert and clear events with CLOCK_REALTIME itself, so no mapping is needed.
#include "hashtrace/sensors/edge_source.hpp"

#include <fcntl.h>
#include <linux/pps.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <deque>

namespace hashtrace::sensors {
namespace {

std::int64_t to_ns(const pps_ktime& t) { return t.sec * 1'000'000'000 + t.nsec; }

class PpsEdgeSource final : public EdgeSource {
public:
    PpsEdgeSource(const std::filesystem::path& device, EdgeFilter filter) : name_(device.string()), filter_(filter) {
        fd_ = ::open(device.c_str(), O_RDWR);
        if (fd_ < 0) fail("cannot open PPS device (present? readable and writable?)");
        try {
            configure_capture();
            pps_fdata data{};
            data.timeout.flags = 0;  // zero timeout: return the latest events now
            fetch(data);
            // Events captured before we opened the device are history, not edges to report.
            last_assert_ = data.info.assert_sequence;
            last_clear_ = data.info.clear_sequence;
        } catch (...) {
            ::close(fd_);
            throw;
        }
    }
    ~PpsEdgeSource() override { ::close(fd_); }
    PpsEdgeSource(const PpsEdgeSource&) = delete;
    PpsEdgeSource& operator=(const PpsEdgeSource&) = delete;

    std::optional<Edge> next(std::chrono::nanoseconds timeout) override {
        if (pending_.empty()) wait_for_events(timeout);
        if (pending_.empty()) return std::nullopt;
        const Edge edge = pending_.front();
        pending_.pop_front();
        return edge;
    }
    std::string describe() const override { return name_; }

private:
    [[noreturn]] void fail(const std::string& what) const { throw SensorError(name_ + ": " + what + ": " + std::strerror(errno)); }

    int wanted_mode() const {
        switch (filter_) {
            case EdgeFilter::rising: return PPS_CAPTUREASSERT;
            case EdgeFilter::falling: return PPS_CAPTURECLEAR;
            case EdgeFilter::both: return PPS_CAPTUREBOTH;
        }
        return PPS_CAPTUREBOTH;
    }

    void configure_capture() {
        int capabilities = 0;
        if (::ioctl(fd_, PPS_GETCAP, &capabilities) < 0) fail("PPS_GETCAP failed (not a PPS device?)");
        if ((capabilities & wanted_mode()) != wanted_mode()) {
            errno = ENOTSUP;
            fail("the device cannot capture the requested edge(s)");
        }
        if (!(capabilities & PPS_CANWAIT)) {
            errno = ENOTSUP;
            fail("the device cannot wait for events");
        }
        pps_kparams params{};
        if (::ioctl(fd_, PPS_GETPARAMS, &params) < 0) fail("PPS_GETPARAMS failed");
        if ((params.mode & wanted_mode()) == wanted_mode()) return;
        params.mode |= wanted_mode() | PPS_TSFMT_TSPEC;
        if (::ioctl(fd_, PPS_SETPARAMS, &params) < 0) fail("PPS_SETPARAMS failed (capture mode needs write access)");
    }

    // Returns false on timeout.
    bool fetch(pps_fdata& data) {
        while (::ioctl(fd_, PPS_FETCH, &data) < 0) {
            if (errno == ETIMEDOUT) return false;
            if (errno != EINTR) fail("PPS_FETCH failed");
        }
        return true;
    }

    void wait_for_events(std::chrono::nanoseconds timeout) {
        const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(timeout);
        pps_fdata data{};
        data.timeout.sec = seconds.count();
        data.timeout.nsec = static_cast<std::int32_t>((timeout - seconds).count());
        if (!fetch(data)) return;
        // The kernel keeps only the latest assert and clear; a jump of more
        // than one in a sequence number shows lost edges, which the sequence reports.
        Edge assert_edge{to_ns(data.info.assert_tu), EdgeKind::rising, data.info.assert_sequence};
        Edge clear_edge{to_ns(data.info.clear_tu), EdgeKind::falling, data.info.clear_sequence};
        const bool new_assert = data.info.assert_sequence != last_assert_ && filter_ != EdgeFilter::falling;
        const bool new_clear = data.info.clear_sequence != last_clear_ && filter_ != EdgeFilter::rising;
        last_assert_ = data.info.assert_sequence;
        last_clear_ = data.info.clear_sequence;
        if (new_assert && new_clear && clear_edge.realtime_ns < assert_edge.realtime_ns) std::swap(assert_edge, clear_edge);
        if (new_assert) pending_.push_back(assert_edge);
        if (new_clear) pending_.push_back(clear_edge);
    }

    std::string name_;
    EdgeFilter filter_;
    int fd_ = -1;
    std::uint32_t last_assert_ = 0;
    std::uint32_t last_clear_ = 0;
    std::deque<Edge> pending_;
};

}  // namespace

std::unique_ptr<EdgeSource> open_pps_edges(const std::filesystem::path& device, EdgeFilter filter) {
    return std::make_unique<PpsEdgeSource>(device, filter);
}

}  // namespace hashtrace::sensors
