// hashtrace/detail/call_site.hpp - what a tracepoint's call site is (the
// paper's Table 1: name, hash types, hash function), constant once built, and
// the registry that numbers call sites and counts their drops. The writer's
// own state about a call site (its index in the current log, the drops it has
// logged) lives in the writer, in tables indexed by CallSite::id.
#pragma once

#include "hashtrace/hash128.hpp"

#include <array>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <utility>

#pragma GCC visibility push(default)  // one runtime per process: see runtime.hpp

namespace hashtrace::detail {

struct CallSite;

struct HashTypes {
    const char* input;
    const char* output;
    bool typed = false;  // hashtrace::typed: each label's canonical bytes prefix its state's
};

// Call sites in the order they were first reached, each with the count of
// samples a full queue dropped there (the only thing tracepoints write).
// Entries are allocated in chunks that never move, so a tracepoint and the
// writer reach an entry without a lock; only adding one takes the mutex.
class CallSiteRegistry {
public:
    static constexpr std::uint32_t kChunk = 1024;
    static constexpr std::uint32_t kMaxCallSites = 1024 * kChunk;

    // Once per call site, on its first execution.
    std::uint32_t add(const CallSite* site) noexcept {
        std::lock_guard<std::mutex> lock(mutex_);
        const std::uint32_t id = size_.load(std::memory_order_relaxed);
        if (id == kMaxCallSites) {
            std::fprintf(stderr, "hashtrace: more than %u tracepoint call sites\n", unsigned{kMaxCallSites});
            std::abort();
        }
        Entry* chunk = chunks_[id / kChunk].load(std::memory_order_relaxed);
        if (!chunk) {
            chunk = new Entry[kChunk];  // never freed: call sites are statics that may outlive the registry's users
            chunks_[id / kChunk].store(chunk, std::memory_order_release);
        }
        chunk[id % kChunk].site = site;
        size_.store(id + 1, std::memory_order_release);
        return id;
    }

    // Call sites 0 .. size() - 1 are complete.
    std::uint32_t size() const noexcept { return size_.load(std::memory_order_acquire); }
    const CallSite& site(std::uint32_t id) const noexcept { return *entry(id).site; }
    std::atomic<std::uint64_t>& dropped(std::uint32_t id) noexcept { return entry(id).dropped; }

private:
    struct Entry {
        const CallSite* site = nullptr;
        std::atomic<std::uint64_t> dropped{0};
    };
    Entry& entry(std::uint32_t id) const noexcept {
        return chunks_[id / kChunk].load(std::memory_order_acquire)[id % kChunk];
    }

    std::mutex mutex_;
    std::atomic<std::uint32_t> size_{0};
    std::array<std::atomic<Entry*>, kMaxCallSites / kChunk> chunks_{};
};

inline CallSiteRegistry& call_sites() noexcept {
    static CallSiteRegistry* r = new CallSiteRegistry;  // never destroyed: tracepoints may run during exit
    return *r;
}

// One per call site, a function-local static const: built on its first
// execution, never written after.
struct CallSite {
    CallSite(std::string name_, HashTypes types, HashFunction fn, bool deferred_)
        : name(std::move(name_)), input_type(types.input), output_type(types.output), hash_function(fn),
          deferred(deferred_), typed(types.typed), id(call_sites().add(this)) {}
    CallSite(const CallSite&) = delete;
    CallSite& operator=(const CallSite&) = delete;

    const std::string name;
    const std::string input_type;
    const std::string output_type;
    const HashFunction hash_function;
    const bool deferred;
    const bool typed;  // typed hashing (hashtrace::typed)
    const std::uint32_t id;  // the registry's number: last, so the rest is built when it is registered
};

}  // namespace hashtrace::detail

#pragma GCC visibility pop
