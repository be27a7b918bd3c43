// hashtrace/detail/byte_buffer.hpp - the writer's output buffer. Unlike
// std::string it hands out raw room at its end without zero-filling it, so an
// encoder writes a record in place and then says how much it used.
#pragma once

#include <cstddef>
#include <cstring>
#include <memory>
#include <string_view>

namespace hashtrace::detail {

class ByteBuffer {
public:
    std::size_t size() const noexcept { return size_; }
    bool empty() const noexcept { return size_ == 0; }
    const char* data() const noexcept { return reinterpret_cast<const char*>(buf_.get()); }
    unsigned char* at(std::size_t offset) noexcept { return buf_.get() + offset; }
    void clear() noexcept { size_ = 0; }

    // Room for at least n more bytes at the end; commit() says how many were used.
    unsigned char* room(std::size_t n) {
        if (size_ + n > capacity_) grow(size_ + n);
        return buf_.get() + size_;
    }
    void commit(unsigned char* end) noexcept { size_ = static_cast<std::size_t>(end - buf_.get()); }

    void append(const void* p, std::size_t n) {
        if (!n) return;
        std::memcpy(room(n), p, n);
        size_ += n;
    }
    void append(std::string_view s) { append(s.data(), s.size()); }
    void push_back(char c) {
        *room(1) = static_cast<unsigned char>(c);
        ++size_;
    }
    ByteBuffer& operator+=(std::string_view s) {
        append(s);
        return *this;
    }
    ByteBuffer& operator+=(char c) {
        push_back(c);
        return *this;
    }

private:
    void grow(std::size_t need) {
        std::size_t cap = capacity_ ? capacity_ : 4096;
        while (cap < need) cap *= 2;
        std::unique_ptr<unsigned char[]> bigger(new unsigned char[cap]);
        if (size_) std::memcpy(bigger.get(), buf_.get(), size_);
        buf_ = std::move(bigger);
        capacity_ = cap;
    }

    std::unique_ptr<unsigned char[]> buf_;
    std::size_t size_ = 0;
    std::size_t capacity_ = 0;
};

}  // namespace hashtrace::detail
