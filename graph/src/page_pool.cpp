#include "hashtrace/graph/detail/page_pool.hpp"

#include "hashtrace/graph/detail/huge_pages.hpp"

#include <algorithm>
#include <cstring>
#include <new>

#include <sys/mman.h>

namespace hashtrace::graph::detail {
namespace {

// Free regions kept at most; a region given back beyond them is unmapped.
constexpr std::size_t kMaxFreeRegions = 256;

std::size_t round_up(std::size_t bytes) { return (bytes + kHugePage - 1) & ~(kHugePage - 1); }

// A new mapping of `bytes` (a multiple of kHugePage) on a 2 MiB boundary,
// advised before anything touches it.
std::uintptr_t map_fresh(std::size_t bytes) {
    void* p = mmap(nullptr, bytes + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    const auto raw = reinterpret_cast<std::uintptr_t>(p);
    const std::uintptr_t begin = (raw + kHugePage - 1) & ~std::uintptr_t{kHugePage - 1};
    if (begin > raw) munmap(p, begin - raw);
    if (const std::uintptr_t tail = raw + bytes + kHugePage - (begin + bytes); tail > 0)
        munmap(reinterpret_cast<void*>(begin + bytes), tail);
    advise_huge_pages(reinterpret_cast<void*>(begin), bytes);
    return begin;
}

void unmap(std::uintptr_t begin, std::size_t bytes) noexcept { munmap(reinterpret_cast<void*>(begin), bytes); }

}  // namespace

PagePool& PagePool::shared() {
    static PagePool pool;
    return pool;
}

PagePool::PagePool() { free_.reserve(kMaxFreeRegions); }

PagePool::~PagePool() { release_free(); }

void* PagePool::take(std::size_t bytes) { return take(bytes, false); }

void* PagePool::take_zeroed(std::size_t bytes) { return take(bytes, true); }

void* PagePool::take(std::size_t bytes, bool zeroed) {
    const std::size_t size = round_up(std::max<std::size_t>(bytes, 1));
    std::unique_lock lock(mutex_);
    auto best = free_.end();
    for (auto it = free_.begin(); it != free_.end(); ++it)
        if (it->bytes >= size && (best == free_.end() || it->bytes < best->bytes)) best = it;
    if (best != free_.end()) {
        in_use_ += size;
        const Region taken{best->begin, size, best->clean};
        best->begin += size;
        best->bytes -= size;
        if (best->bytes == 0) free_.erase(best);
        lock.unlock();
        if (zeroed && !taken.clean) std::memset(reinterpret_cast<void*>(taken.begin), 0, bytes);
        return reinterpret_cast<void*>(taken.begin);
    }
    // No free region holds it (a stage's freed buffers are often many
    // separate 2 MiB blocks): a new range, into which the free pages that
    // were used before are moved. mremap moves page table entries, huge
    // pages whole: no copying, and no zeroing by the kernel. What they do not
    // fill stays fresh.
    const std::uintptr_t begin = map_fresh(size);
    in_use_ += size;  // (not before: map_fresh may throw)
    std::size_t filled = 0;
    for (std::size_t i = free_.size(); i-- > 0 && filled < size;) {
        Region& r = free_[i];
        if (r.clean) continue;  // never touched: no better than fresh pages
        while (r.bytes > 0 && filled < size) {
            // A free region may span mappings, which one mremap cannot:
            // a huge page at a time is always within one.
            const std::size_t n = std::min({r.bytes, size - filled, kHugePage});
            void* to = reinterpret_cast<void*>(begin + filled);
            if (mremap(reinterpret_cast<void*>(r.begin), n, n, MREMAP_MAYMOVE | MREMAP_FIXED, to) == MAP_FAILED) break;
            if (zeroed) std::memset(to, 0, std::min(n, bytes - std::min(bytes, filled)));
            r.begin += n;
            r.bytes -= n;
            filled += n;
        }
        if (r.bytes == 0) free_.erase(free_.begin() + static_cast<std::ptrdiff_t>(i));
    }
    return reinterpret_cast<void*>(begin);
}

void PagePool::give(void* p, std::size_t bytes) noexcept {
    if (!p) return;
    const std::size_t size = round_up(std::max<std::size_t>(bytes, 1));
    const std::lock_guard lock(mutex_);
    add_free({reinterpret_cast<std::uintptr_t>(p), size, false});
    in_use_ -= size;
    if (in_use_ == 0 && holds_ == 0) release_free_locked();
}

void PagePool::hold() noexcept {
    const std::lock_guard lock(mutex_);
    ++holds_;
}

void PagePool::let_go() noexcept {
    const std::lock_guard lock(mutex_);
    if (holds_ > 0 && --holds_ == 0 && in_use_ == 0) release_free_locked();
}

// Inserts r in address order, merged with the free regions it touches.
void PagePool::add_free(Region r) noexcept {
    auto next = std::lower_bound(free_.begin(), free_.end(), r.begin, [](const Region& a, std::uintptr_t b) { return a.begin < b; });
    if (next != free_.begin() && std::prev(next)->begin + std::prev(next)->bytes == r.begin) {
        auto prev = std::prev(next);
        prev->bytes += r.bytes;
        prev->clean = prev->clean && r.clean;
        if (next != free_.end() && prev->begin + prev->bytes == next->begin) {
            prev->bytes += next->bytes;
            prev->clean = prev->clean && next->clean;
            free_.erase(next);
        }
        return;
    }
    if (next != free_.end() && r.begin + r.bytes == next->begin) {
        next->begin = r.begin;
        next->bytes += r.bytes;
        next->clean = next->clean && r.clean;
        return;
    }
    if (free_.size() == free_.capacity()) {
        unmap(r.begin, r.bytes);
        return;
    }
    free_.insert(next, r);
}

void PagePool::release_free() noexcept {
    const std::lock_guard lock(mutex_);
    release_free_locked();
}

void PagePool::release_free_locked() noexcept {
    for (const Region& r : free_) unmap(r.begin, r.bytes);
    free_.clear();
}

std::size_t PagePool::free_bytes() const {
    const std::lock_guard lock(mutex_);
    std::size_t sum = 0;
    for (const Region& r : free_) sum += r.bytes;
    return sum;
}

}  // namespace hashtrace::graph::detail
