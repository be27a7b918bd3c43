// hash_interner.hpp - (hash function, 128-bit hash) -> dense 32-bit id.
//
// Open addressing over 8-byte slots {tag, id}; the keys (hash and function
// together, one cache line to verify a hit) live once in a separate vector,
// so a distinct hash costs 17 bytes + ~12 bytes of table. The tag (32 more
// bits of the hash) makes a probe almost never touch the keys on a mismatch.
#pragma once

#include "hashtrace/hash128.hpp"

#include <cstdint>
#include <cstring>
#include <vector>

namespace hashtrace::graph::detail {

class HashInterner {
public:
    HashInterner() { slots_.assign(1024, Slot{0, kEmpty}); }

    std::uint32_t intern(const Hash128& h, HashFunction f) {
        const std::uint64_t mixed = mix(h, f);
        const std::uint32_t tag = static_cast<std::uint32_t>(mixed >> 32);
        std::size_t mask = slots_.size() - 1;
        for (std::size_t i = static_cast<std::size_t>(mixed) & mask;; i = (i + 1) & mask) {
            Slot& s = slots_[i];
            if (s.id == kEmpty) {
                const auto id = static_cast<std::uint32_t>(keys_.size());
                s = Slot{tag, id};
                keys_.push_back({h, f});
                if (keys_.size() * 2 > slots_.size()) grow();
                return id;
            }
            if (s.tag == tag && keys_[s.id].function == f && keys_[s.id].hash == h) return s.id;
        }
    }

    struct Key {
        Hash128 hash;
        HashFunction function;
    };

    std::size_t size() const noexcept { return keys_.size(); }
    const std::vector<Key>& keys() const noexcept { return keys_; }

private:
    static constexpr std::uint32_t kEmpty = 0xFFFFFFFFu;
    struct Slot {
        std::uint32_t tag;
        std::uint32_t id;
    };

    // Digests are uniform already; mixing in the second half and the function
    // keeps crafted or non-cryptographic inputs (fuzzers, xxh3 of counters) spread.
    static std::uint64_t mix(const Hash128& h, HashFunction f) noexcept {
        std::uint64_t lo, hi;
        std::memcpy(&lo, h.bytes.data(), 8);
        std::memcpy(&hi, h.bytes.data() + 8, 8);
        std::uint64_t x = lo ^ (hi * 0x9E3779B97F4A7C15ull) ^ (static_cast<std::uint64_t>(f) << 61);
        x ^= x >> 33;
        x *= 0xff51afd7ed558ccdull;
        x ^= x >> 33;
        return x;
    }

    void grow() {
        std::vector<Slot> old(slots_.size() * 2, Slot{0, kEmpty});
        old.swap(slots_);
        const std::size_t mask = slots_.size() - 1;
        for (const Slot& s : old) {
            if (s.id == kEmpty) continue;
            std::size_t i = static_cast<std::size_t>(mix(keys_[s.id].hash, keys_[s.id].function)) & mask;
            while (slots_[i].id != kEmpty) i = (i + 1) & mask;
            slots_[i] = s;
        }
    }

    std::vector<Slot> slots_;
    std::vector<Key> keys_;
};

}  // namespace hashtrace::graph::detail
