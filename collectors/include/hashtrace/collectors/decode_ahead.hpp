// hashtrace/collectors/decode_ahead.hpp - decoding video frames on other
// threads while the caller reads codes.
//
// Decoding a 640x480 Motion-JPEG frame costs more CPU than reading its code
// (docs/benchmarks.md, "Video collector"), so the collector decodes ahead on
// `decoders` threads. Motion-JPEG frames are independent images: the
// compressed packets are read in order (cheap) and decoded in parallel, then
// handed over in frame order. Other codecs decode inside VideoCapture, so they
// get one decoding thread. At most kDepth frames wait decoded: memory stays a
// few frames however long the video.
#pragma once

#include "hashtrace/collectors/frame_source.hpp"

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace hashtrace::collectors {

class DecodeAhead {
public:
    // decoders == 0: decode on the caller's thread.
    DecodeAhead(FrameSource& source, unsigned decoders);
    ~DecodeAhead();
    DecodeAhead(const DecodeAhead&) = delete;
    DecodeAhead& operator=(const DecodeAhead&) = delete;

    // The next frame in order, or false at the end; rethrows a decoder's error.
    bool next(cv::Mat& frame);

private:
    static constexpr std::size_t kDepth = 8;

    void decode_packets();  // a worker of a Motion-JPEG source
    void decode_frames();   // the single worker of any other source
    bool wait_for_room(std::unique_lock<std::mutex>& lock, std::size_t frame);
    void finish_with(std::exception_ptr error);

    FrameSource& source_;
    std::mutex read_mutex_;  // packets are read in order, one worker at a time
    std::size_t next_read_ = 0;
    bool source_done_ = false;

    std::mutex mutex_;
    std::condition_variable changed_;
    std::map<std::size_t, cv::Mat> ready_;  // decoded frames by number
    std::size_t next_out_ = 0;
    std::optional<std::size_t> total_;      // known once the source is exhausted
    bool stopping_ = false;
    std::exception_ptr error_;
    std::vector<std::thread> workers_;
};

}  // namespace hashtrace::collectors
