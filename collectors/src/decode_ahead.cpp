#include "hashtrace/collectors/decode_ahead.hpp"

namespace hashtrace::collectors {

DecodeAhead::DecodeAhead(FrameSource& source, unsigned decoders) : source_(source) {
    if (decoders == 0) return;
    if (!source_.has_packets()) decoders = 1;
    for (unsigned i = 0; i < decoders; ++i)
        workers_.emplace_back([this] { source_.has_packets() ? decode_packets() : decode_frames(); });
}

DecodeAhead::~DecodeAhead() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    changed_.notify_all();
    for (auto& w : workers_) w.join();
}

bool DecodeAhead::next(cv::Mat& frame) {
    if (workers_.empty()) return source_.next(frame);
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [this] { return ready_.count(next_out_) || error_ || (total_ && next_out_ >= *total_); });
    auto it = ready_.find(next_out_);
    if (it == ready_.end()) {
        if (error_) std::rethrow_exception(error_);
        return false;
    }
    frame = std::move(it->second);
    ready_.erase(it);
    ++next_out_;
    changed_.notify_all();
    return true;
}

bool DecodeAhead::wait_for_room(std::unique_lock<std::mutex>& lock, std::size_t frame) {
    changed_.wait(lock, [&] { return frame < next_out_ + kDepth || stopping_ || error_; });
    return !stopping_ && !error_;
}

void DecodeAhead::finish_with(std::exception_ptr error) {
    std::lock_guard lock(mutex_);
    if (error && !error_) error_ = error;
    changed_.notify_all();
}

void DecodeAhead::decode_packets() {
    try {
        cv::Mat packet;
        for (;;) {
            std::size_t frame;
            {
                std::lock_guard read_lock(read_mutex_);
                if (source_done_) return;
                if (!source_.next_packet(packet)) {
                    source_done_ = true;
                    std::lock_guard lock(mutex_);
                    total_ = next_read_;
                    changed_.notify_all();
                    return;
                }
                frame = next_read_++;
            }
            cv::Mat grey = source_.decode_packet(packet, frame);
            std::unique_lock lock(mutex_);
            if (!wait_for_room(lock, frame)) return;
            ready_.emplace(frame, std::move(grey));
            changed_.notify_all();
        }
    } catch (...) {
        finish_with(std::current_exception());
    }
}

void DecodeAhead::decode_frames() {
    try {
        for (std::size_t frame = 0;; ++frame) {
            cv::Mat grey;
            if (!source_.next(grey)) {
                std::lock_guard lock(mutex_);
                total_ = frame;
                changed_.notify_all();
                return;
            }
            std::unique_lock lock(mutex_);
            if (!wait_for_room(lock, frame)) return;
            ready_.emplace(frame, grey.clone());  // the source may reuse its buffer
            changed_.notify_all();
        }
    } catch (...) {
        finish_with(std::current_exception());
    }
}

}  // namespace hashtrace::collectors
