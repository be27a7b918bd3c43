// hash_interner.hpp - (hash function, 128-bit hash) -> dense 32-bit id.
//
// Open addressing over 8-byte slots {tag, id}; the keys (hash and function
// together, one cache line to verify a hit) live once in a separate vector,
// so a distinct hash costs 17 bytes + ~12 bytes of table. The tag (32 more
// bits of the hash) makes a probe almost never touch the keys on a mismatch.
//
// A lookup costs two cache misses (slot, key), hidden by prefetching: a
// caller announces the hashes it will intern a few records ahead
// (prefetch_slot, then prefetch_key), see ChunkFiller in load.cpp. A hash's
// mix (its table position) is computed once by the caller and passed to all
// three calls. Repeats of a hash a few samples apart are the caller's to
// catch before the table (recent_hashes.hpp, the binary reader's ring).
#pragma once

#include "hashtrace/graph/column.hpp"
#include "hashtrace/hash128.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <vector>

namespace hashtrace::graph::detail {

class HashInterner {
public:
    HashInterner() { slots_.assign(1024, Slot{0, kEmpty}); }

    // Spreads (hash, function) over 64 bits: digests are uniform already;
    // mixing in the second half and the function keeps crafted or
    // non-cryptographic inputs (fuzzers, xxh3 of counters) spread.
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

    // `mixed` is mix(h, f). The lookup is inlined into the callers' loops
    // (a call would cost as much as the probe); adding a new hash, with its
    // growing, is not.
    std::uint32_t intern(const Hash128& h, HashFunction f, std::uint64_t mixed) {
        Slot& s = slots_[probe(h, f, mixed)];
        if (s.id != kEmpty) return s.id;
        return add(s, h, f, mixed);
    }
    std::uint32_t intern(const Hash128& h, HashFunction f) { return intern(h, f, mix(h, f)); }

    // The id of (h, f), or kNotFound; reads only, so threads may share it
    // (load's merge looks the other workers' hashes up in the first one's).
    static constexpr std::uint32_t kNotFound = 0xFFFFFFFFu;
    std::uint32_t find(const Hash128& h, HashFunction f, std::uint64_t mixed) const noexcept {
        return slots_[probe(h, f, mixed)].id;
    }

    // How many hashes ahead of the one being interned its callers announce
    // the slot and then the key: far enough to cover a miss, near enough that
    // the lines are still cached.
    static constexpr std::size_t kSlotAhead = 16, kKeyAhead = 8;

    // Stage 1, well ahead: start loading the table slot of h.
    void prefetch_slot(std::uint64_t mixed) const noexcept {
        __builtin_prefetch(&slots_[static_cast<std::size_t>(mixed) & (slots_.size() - 1)]);
    }
    // Stage 2, closer: the slot is in cache now; start loading the key it points to.
    void prefetch_key(std::uint64_t mixed) const noexcept {
        const Slot& s = slots_[static_cast<std::size_t>(mixed) & (slots_.size() - 1)];
        if (s.id != kEmpty && s.tag == static_cast<std::uint32_t>(mixed >> 32)) __builtin_prefetch(&keys_[s.id]);
    }

    struct Key {
        Hash128 hash;
        HashFunction function;
    };

    // Prepares for at most `more` new hashes (a loose bound, such as a
    // binary log's size over the bytes a hash written out in full takes),
    // so that the table is sized once before interning instead of doubling
    // (and re-inserting every key) a dozen times on the way. Sized for half
    // the bound, since logs repeat hashes beyond their ring too: the table then
    // costs at most ~half a byte a byte of binary log, and still doubles
    // once half full. The keys get room for the whole bound: pages they never
    // reach are never touched.
    void reserve(std::size_t more) {
        const std::size_t bound = keys_.size() + more;
        if (bound / kBoundPerSlot > slots_.size()) rehash(std::bit_ceil(bound / kBoundPerSlot));
        keys_.reserve(bound);
    }

    std::size_t size() const noexcept { return keys_.size(); }
    const Column<Key>& keys() const noexcept { return keys_; }

private:
    static constexpr std::uint32_t kEmpty = kNotFound;
    static constexpr std::size_t kBoundPerSlot = 2;  // hashes of reserve()'s bound a slot
    struct Slot {
        std::uint32_t tag;
        std::uint32_t id;
    };

    // Puts (h, f) in its empty slot `s`.
    [[gnu::noinline]] std::uint32_t add(Slot& s, const Hash128& h, HashFunction f, std::uint64_t mixed) {
        const auto id = static_cast<std::uint32_t>(keys_.size());
        s = Slot{static_cast<std::uint32_t>(mixed >> 32), id};
        keys_.push_back({h, f});
        if (keys_.size() * 2 > slots_.size()) grow();
        return id;
    }

    // The slot holding (h, f), or the empty slot where it would go.
    std::size_t probe(const Hash128& h, HashFunction f, std::uint64_t mixed) const noexcept {
        const std::uint32_t tag = static_cast<std::uint32_t>(mixed >> 32);
        const std::size_t mask = slots_.size() - 1;
        for (std::size_t i = static_cast<std::size_t>(mixed) & mask;; i = (i + 1) & mask) {
            const Slot& s = slots_[i];
            if (s.id == kEmpty || (s.tag == tag && keys_[s.id].function == f && keys_[s.id].hash == h)) return i;
        }
    }

    // Re-inserts the keys in id order: a sequential read of keys_ instead of
    // one random read per old slot, each key's slot prefetched kSlotAhead
    // keys before (the writes miss the cache as lookups do). `slots` is a
    // power of two.
    void grow() { rehash(slots_.size() * 2); }
    void rehash(std::size_t slots) {
        Column<Slot>().swap(slots_);  // freed first, so that the new table may take its pages (`slots_ = {}` keeps them)
        slots_.assign(slots, Slot{0, kEmpty});
        const std::size_t mask = slots_.size() - 1;
        const std::size_t n = keys_.size();
        static_assert((kSlotAhead & (kSlotAhead - 1)) == 0, "a ring of kSlotAhead mixes");
        std::array<std::uint64_t, kSlotAhead> ahead;  // the mixes of keys id .. id + kSlotAhead - 1
        auto announce = [&](std::size_t id) {
            ahead[id % kSlotAhead] = mix(keys_[id].hash, keys_[id].function);
            prefetch_slot(ahead[id % kSlotAhead]);
        };
        for (std::size_t id = 0; id < std::min(n, kSlotAhead); ++id) announce(id);
        for (std::size_t id = 0; id < n; ++id) {
            const std::uint64_t mixed = ahead[id % kSlotAhead];
            if (id + kSlotAhead < n) announce(id + kSlotAhead);
            std::size_t i = static_cast<std::size_t>(mixed) & mask;
            while (slots_[i].id != kEmpty) i = (i + 1) & mask;
            slots_[i] = Slot{static_cast<std::uint32_t>(mixed >> 32), static_cast<std::uint32_t>(id)};
        }
    }

    Column<Slot> slots_;
    Column<Key> keys_;
};

}  // namespace hashtrace::graph::detail
