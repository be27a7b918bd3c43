// recent_hashes.hpp - a small direct-mapped cache of the ids of recent
// hashes, in front of HashInterner for logs that carry no ring of recent
// hashes (CSV): a message id recurs in the next few samples of a log (its
// input and output, the receive and forward of a router), and a hit here
// saves the table's two cache misses. 24 KiB: stays in L1/L2.
#pragma once

#include "hashtrace/hash128.hpp"

#include <cstdint>
#include <vector>

namespace hashtrace::graph::detail {

class RecentHashes {
public:
    static constexpr std::uint32_t kNotFound = 0xFFFFFFFFu;

    // `mixed` is HashInterner::mix(h, f).
    std::uint32_t find(const Hash128& h, HashFunction f, std::uint64_t mixed) const noexcept {
        const Entry& e = entries_[mixed >> (64 - kBits)];
        return e.id != kNotFound && e.function == f && e.hash == h ? e.id : kNotFound;
    }
    void remember(const Hash128& h, HashFunction f, std::uint64_t mixed, std::uint32_t id) noexcept {
        entries_[mixed >> (64 - kBits)] = Entry{h, f, id};
    }

private:
    static constexpr int kBits = 10;
    struct Entry {
        Hash128 hash;
        HashFunction function = HashFunction::md5;
        std::uint32_t id = kNotFound;
    };
    std::vector<Entry> entries_ = std::vector<Entry>(std::size_t{1} << kBits);
};

}  // namespace hashtrace::graph::detail
