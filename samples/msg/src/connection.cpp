#include "samples/msg/connection.hpp"

#include <cerrno>
#include <cstring>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

namespace hashtrace::samples::msg {

Connection::Connection(Fd socket, NodeId peer, std::string label, MessageHandler& handler)
    : socket_(std::move(socket)),
      wake_fd_(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)),
      peer_(peer),
      label_(std::move(label)),
      handler_(handler),
      reader_(label_) {
    if (!wake_fd_) throw NetError(label_ + ": eventfd: " + std::strerror(errno));
}

Connection::~Connection() { stop(); }

void Connection::start() { thread_ = std::thread([this] { run(); }); }

void Connection::send(const SceneMessage& message) {
    outbox_.enqueue(message);
    wake();
}

void Connection::finish() {
    finishing_.store(true, std::memory_order_release);
    wake();
}

void Connection::stop() {
    stopping_.store(true, std::memory_order_release);
    wake();
    if (thread_.joinable()) thread_.join();
}

std::string Connection::error() const {
    std::lock_guard lock(error_mutex_);
    return error_;
}

void Connection::wake() noexcept {
    const std::uint64_t one = 1;
    // A full eventfd counter (never reached here) would only mean "already awake".
    [[maybe_unused]] ssize_t n = ::write(wake_fd_.get(), &one, sizeof one);
}

void Connection::fail(std::string reason) {
    {
        std::lock_guard lock(error_mutex_);
        if (error_.empty()) error_ = std::move(reason);
    }
    peer_finished_.store(true, std::memory_order_release);
    failed_.store(true, std::memory_order_release);
}

void Connection::run() {
    handler_.on_thread_start(*this);
    pollfd fds[2] = {{socket_.get(), 0, 0}, {wake_fd_.get(), POLLIN, 0}};
    while (!stopping_.load(std::memory_order_acquire) && !done()) {
        // After the peer's end of stream the socket stays readable: stop asking.
        fds[0].events = static_cast<short>((peer_finished() ? 0 : POLLIN) | (written_ < unsent_.size() ? POLLOUT : 0));
        // The timeout only bounds how late a stop() is noticed if a wake-up were lost.
        int rc = ::poll(fds, 2, 200);
        if (rc < 0 && errno != EINTR) {
            fail(label_ + ": poll: " + std::strerror(errno));
            break;
        }
        if (fds[1].revents & POLLIN) {
            std::uint64_t count;
            [[maybe_unused]] ssize_t n = ::read(wake_fd_.get(), &count, sizeof count);
        }
        if (!peer_finished() && (fds[0].revents & (POLLIN | POLLHUP | POLLERR))) {
            if (!read_available()) continue;
        }
        if (!flush_outbox()) break;
    }
}

bool Connection::read_available() {
    std::byte buf[64 * 1024];
    while (true) {
        ssize_t n = ::recv(socket_.get(), buf, sizeof buf, 0);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) return true;
            fail(label_ + ": receive: " + std::strerror(errno));
            return false;
        }
        if (n == 0) {
            if (!peer_finished()) fail(label_ + ": the peer closed the connection without a goodbye");
            return false;
        }
        reader_.append(buf, static_cast<std::size_t>(n));
        try {
            while (auto m = reader_.next()) {
                if (m->kind == Kind::goodbye) {
                    peer_finished_.store(true, std::memory_order_release);
                } else if (m->kind != Kind::hello) {
                    handler_.on_received(*this, *m);
                }
            }
        } catch (const FramingError& e) {
            fail(e.what());
            return false;
        }
    }
}

bool Connection::flush_outbox() {
    if (written_ == unsent_.size()) {
        unsent_.clear();
        written_ = 0;
    }
    // Read the flag before draining: whatever was sent before finish() is then
    // in the outbox and goes out ahead of the goodbye.
    const bool finishing = finishing_.load(std::memory_order_acquire);
    SceneMessage batch[64];
    while (std::size_t n = outbox_.try_dequeue_bulk(batch, 64)) {
        for (std::size_t i = 0; i < n; ++i) {
            const Frame frame = encode(batch[i]);
            unsent_.insert(unsent_.end(), frame.begin(), frame.end());
            // Reported before the write: once the bytes are in the kernel the
            // peer may receive them at once, and a "sent" stamped after the
            // receipt could not be linked to it (happened-before, docs/spec.md section 4).
            handler_.on_sent(*this, batch[i]);
        }
    }
    if (finishing && !goodbye_queued_) {
        SceneMessage goodbye;
        goodbye.kind = Kind::goodbye;
        const Frame frame = encode(goodbye);
        unsent_.insert(unsent_.end(), frame.begin(), frame.end());
        goodbye_queued_ = true;
        goodbye_end_ = unsent_.size();
    }
    while (written_ < unsent_.size()) {
        ssize_t n = ::send(socket_.get(), unsent_.data() + written_, unsent_.size() - written_, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) break;
            fail(label_ + ": send: " + std::strerror(errno));
            return false;
        }
        written_ += static_cast<std::size_t>(n);
    }
    if (goodbye_queued_ && written_ >= goodbye_end_) goodbye_sent_.store(true, std::memory_order_release);
    return true;
}

}  // namespace hashtrace::samples::msg
