// hashtrace/detail/stream.hpp - the stream of a node's blocks to a collector
// (Config::stream_to). Everything here runs on the writer thread.
//
// The bytes of one connection are a version-3 log as the node writes it: the
// file header, then whole blocks. The socket is non-blocking and the bytes it
// has not taken wait in a bounded backlog; a block that does not fit is
// dropped from the stream (never from the disk log) and its samples counted.
// The next block sent after such a gap, or after a reconnect (a fresh file
// header first), is preceded by one block holding what later records need
// (tracepoint definitions, thread names), the drop records of the dropped
// blocks and a loss record per tracepoint - the records the disk path writes
// after lost flushes - so any log reader reads a stream like a log with losses.
#pragma once

#include "hashtrace/config.hpp"
#include "hashtrace/detail/clock.hpp"
#include "hashtrace/detail/log_file.hpp"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <deque>
#include <map>
#include <string>
#include <vector>

namespace hashtrace::detail {

class Stream final : public BlockCopy {
public:
    static constexpr std::size_t kBacklogLimit = 4u << 20;  // bytes the socket has not taken yet

    // Resolves the address once, here (a name lookup may block; the writer thread must not).
    explicit Stream(const std::string& host_port) : where_(host_port) {
        const auto [host, port] = parse_stream_address(host_port);
        addrinfo hints{};
        hints.ai_socktype = SOCK_STREAM;
        addrinfo* found = nullptr;
        if (::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found) != 0 || !found)
            throw std::invalid_argument("hashtrace: stream_to '" + host_port + "': cannot resolve " + host);
        std::memcpy(&address_, found->ai_addr, found->ai_addrlen);
        address_len_ = found->ai_addrlen;
        family_ = found->ai_family;
        ::freeaddrinfo(found);
    }
    ~Stream() override { disconnect(); }

    std::uint64_t dropped() const noexcept { return dropped_; }
    std::uint64_t connects() const noexcept { return connects_; }

    // Connects, or goes on connecting, and sends what waits. Never blocks.
    void pump(std::int64_t now) {
        if (fd_ < 0 && now >= next_attempt_) start_connect(now);
        if (connecting_) finish_connect(now);
        if (fd_ >= 0 && !connecting_) send_backlog(now);
    }

    // At the session's end: gives the collector up to `patience_ns` to take
    // what waits; the connection stays open for the log's last block.
    void drain(std::int64_t patience_ns) {
        const std::int64_t give_up = now_ns() + patience_ns;
        // A connection still being made is waited for too: a short session's blocks may all come before it.
        for (pump(now_ns()); fd_ >= 0 && (connecting_ || !backlog_.empty()) && now_ns() < give_up; pump(now_ns())) {
            pollfd p{fd_, POLLOUT, 0};
            ::poll(&p, 1, 10);
        }
    }

    // Then the last block (the end record) goes the same way and the
    // connection closes; whatever is left is counted.
    void finish(std::int64_t patience_ns) {
        drain(patience_ns);
        disconnect();
        next_attempt_ = INT64_MAX;  // no new connection for what remains
    }

    void block(const LogFile& log, const char* bytes, std::size_t n) override {
        const std::int64_t now = now_ns();
        pump(now);
        if (fd_ < 0 || connecting_ || backlog_.size() + n > kBacklogLimit) {
            skip(log);
            return;
        }
        if (need_header_) {
            backlog_ += log.header_bytes();
            need_header_ = false;
            definitions_sent_ = 0;
            catch_up_ = true;
        }
        if (catch_up_) encode_catch_up(log);
        backlog_.append(bytes, n);
        unsent_.push_back({appended_ + backlog_.size(), log.block_samples()});
        definitions_sent_ = log.definitions();
        send_backlog(now);
    }

private:
    // The block goes no further: its samples are counted, its definitions and
    // drop records kept for the block that follows the gap.
    void skip(const LogFile& log) {
        count_lost(log.block_samples());
        carried_drops_.insert(carried_drops_.end(), log.block_drops().begin(), log.block_drops().end());
        catch_up_ = true;
    }

    void count_lost(const std::vector<LogFile::Tally>& samples) {
        for (std::uint32_t tp = 0; tp < samples.size(); ++tp) {
            if (!samples[tp].count) continue;
            lost_[tp].add(samples[tp]);
            dropped_ += samples[tp].count;
        }
    }

    void encode_catch_up(const LogFile& log) {
        ByteBuffer out;
        BinaryEncoder e(out);
        e.begin_block(log.last_time());
        log.encode_definitions(e, definitions_sent_, log.definitions_before_block());
        log.encode_threads(e);
        for (const auto& d : carried_drops_) e.drop(d.tracepoint, d.time_ns, d.count);
        for (const auto& [tp, t] : lost_) e.loss(tp, t.first, t.last, t.count);
        e.end_block();
        backlog_.append(out.data(), out.size());
        lost_.clear();
        carried_drops_.clear();
        catch_up_ = false;
    }

    void start_connect(std::int64_t now) {
        fd_ = ::socket(family_, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd_ < 0) return retry_later(now, std::strerror(errno));
        const int one = 1;
        ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        if (::connect(fd_, reinterpret_cast<const sockaddr*>(&address_), address_len_) == 0) return connected();
        if (errno != EINPROGRESS) return retry_later(now, std::strerror(errno));
        connecting_ = true;
    }

    void finish_connect(std::int64_t now) {
        pollfd p{fd_, POLLOUT, 0};
        if (::poll(&p, 1, 0) == 0) return;  // still connecting
        int error = 0;
        socklen_t len = sizeof error;
        if (::getsockopt(fd_, SOL_SOCKET, SO_ERROR, &error, &len) != 0) error = errno;
        connecting_ = false;
        if (error != 0) return retry_later(now, std::strerror(error));
        connected();
    }

    void connected() {
        connecting_ = false;
        need_header_ = true;
        backoff_ns_ = kFirstBackoff;
        ++connects_;
        if (reported_) std::fprintf(stderr, "hashtrace: streaming to %s again\n", where_.c_str());
        reported_ = false;
    }

    // The collector is absent or gone: try again later, each time waiting
    // twice as long up to a few seconds; said once, not at every attempt.
    void retry_later(std::int64_t now, const char* why) {
        disconnect();
        if (!reported_)
            std::fprintf(stderr, "hashtrace: cannot stream to %s (%s); samples are counted as stream drops until it can\n",
                         where_.c_str(), why);
        reported_ = true;
        next_attempt_ = now + backoff_ns_;
        backoff_ns_ = backoff_ns_ * 2 > kLastBackoff ? kLastBackoff : backoff_ns_ * 2;
    }

    void send_backlog(std::int64_t now) {
        while (sent_ < backlog_.size()) {
            const ssize_t w = ::send(fd_, backlog_.data() + sent_, backlog_.size() - sent_, MSG_NOSIGNAL | MSG_DONTWAIT);
            if (w < 0) {
                if (errno == EINTR) continue;
                if (errno == EAGAIN || errno == EWOULDBLOCK) break;
                return retry_later(now, std::strerror(errno));
            }
            sent_ += static_cast<std::size_t>(w);
        }
        while (!unsent_.empty() && unsent_.front().end <= appended_ + sent_) unsent_.pop_front();
        if (sent_ == backlog_.size() || sent_ > kBacklogLimit / 2) {
            backlog_.erase(0, sent_);
            appended_ += sent_;
            sent_ = 0;
        }
    }

    // The blocks the backlog held, whole or in part, are gone with the
    // connection: counted. The next one starts with a file header and
    // everything later records need.
    void disconnect() {
        if (fd_ >= 0) ::close(fd_);
        fd_ = -1;
        connecting_ = false;
        for (const Unsent& u : unsent_) count_lost(u.samples);
        unsent_.clear();
        appended_ += backlog_.size();
        backlog_.clear();
        sent_ = 0;
    }

    static constexpr std::int64_t kFirstBackoff = 100'000'000, kLastBackoff = 5'000'000'000;
    const std::string where_;
    sockaddr_storage address_{};
    socklen_t address_len_ = 0;
    int family_ = AF_INET;
    int fd_ = -1;
    bool connecting_ = false, need_header_ = true, catch_up_ = false, reported_ = false;
    std::int64_t next_attempt_ = 0, backoff_ns_ = kFirstBackoff;
    std::string backlog_;
    std::size_t sent_ = 0;      // bytes of the backlog the socket took
    // The blocks in the backlog not yet sent in full, by where they end
    // (counted from the connection's first byte, as `appended_` is).
    struct Unsent {
        std::uint64_t end;
        std::vector<LogFile::Tally> samples;
    };
    std::deque<Unsent> unsent_;
    std::uint64_t appended_ = 0;  // bytes removed from the front of the backlog
    std::size_t definitions_sent_ = 0;
    std::map<std::uint32_t, LogFile::Tally> lost_;
    std::vector<LogFile::Drop> carried_drops_;
    std::uint64_t dropped_ = 0, connects_ = 0;
};

}  // namespace hashtrace::detail
