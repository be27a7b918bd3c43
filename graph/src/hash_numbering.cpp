#include "hash_numbering.hpp"

#include "hashtrace/graph/parallel.hpp"

#include <algorithm>
#include <cstdint>

namespace hashtrace::graph::detail {

// The largest chunk's hash ids become the global ids (its table is kept,
// the others' keys are looked up in it: the fewer the better). Another
// chunk's hash takes that chunk's id if it has one - a lookup that only reads
// the table, so two threads share the work and nothing is inserted or
// rehashed - and else the next new id, in chunk order. Sets out.hash_count
// (and the values when kept); returns each chunk's map from its ids to the
// global ones, indexed by id + 1 so that kNoHash (which wraps to 0) maps to
// itself without a branch.
std::vector<std::vector<HashId>> number_hashes(std::vector<Chunk>& chunks, SampleSet& out, bool keep_hash_values) {
    const auto largest = static_cast<std::size_t>(std::max_element(chunks.begin(), chunks.end(), [](const Chunk& a, const Chunk& b) {
                                                      return a.hashes.size() < b.hashes.size();
                                                  }) - chunks.begin());
    const HashInterner& first = chunks[largest].hashes;
    std::vector<std::vector<HashId>> map(chunks.size());
    auto look_up = [&](std::size_t c, std::size_t from, std::size_t to) {
        const auto& keys = chunks[c].hashes.keys();
        constexpr std::size_t kSlotAhead = HashInterner::kSlotAhead, kKeyAhead = HashInterner::kKeyAhead;
        std::vector<std::uint64_t> mixes(to - from);  // each key mixed once, as there
        for (std::size_t i = from; i < to; ++i) mixes[i - from] = HashInterner::mix(keys[i].hash, keys[i].function);
        for (std::size_t i = from; i < to; ++i) {
            if (i + kSlotAhead < to) first.prefetch_slot(mixes[i + kSlotAhead - from]);
            if (i + kKeyAhead < to) first.prefetch_key(mixes[i + kKeyAhead - from]);
            map[c][i + 1] = first.find(keys[i].hash, keys[i].function, mixes[i - from]);
        }
    };
    for (std::size_t c = 0; c < chunks.size(); ++c) {
        const std::size_t n = chunks[c].hashes.size();
        map[c].resize(n + 1);
        map[c][0] = kNoHash;
        if (c == largest)
            for (std::size_t i = 0; i < n; ++i) map[c][i + 1] = static_cast<HashId>(i);
        else
            graph::parallel::both([&] { look_up(c, 0, n / 2); }, [&] { look_up(c, n / 2, n); });
    }
    // Hashes the largest chunk lacks, in id order after its own. Those of one
    // chunk are distinct; only with three chunks or more can two chunks share one.
    std::vector<HashInterner::Key> added;
    HashInterner seen;
    const bool dedupe = chunks.size() > 2;
    for (std::size_t c = 0; c < chunks.size(); ++c) {
        if (c == largest) continue;
        const auto& keys = chunks[c].hashes.keys();
        for (std::size_t i = 0; i < keys.size(); ++i) {
            if (map[c][i + 1] != HashInterner::kNotFound) continue;
            const auto local = dedupe ? seen.intern(keys[i].hash, keys[i].function) : static_cast<std::uint32_t>(added.size());
            if (local == added.size()) added.push_back(keys[i]);
            map[c][i + 1] = static_cast<HashId>(first.size() + local);
        }
    }
    out.hash_count = first.size() + added.size();
    if (keep_hash_values) {
        out.hash_values.reserve(out.hash_count);
        out.hash_functions.reserve(out.hash_count);
        auto keep = [&](const auto& keys) {
            for (const auto& key : keys) {
                out.hash_values.push_back(key.hash);
                out.hash_functions.push_back(key.function);
            }
        };
        keep(first.keys());
        keep(added);
    }
    for (Chunk& c : chunks) c.hashes = HashInterner{};
    return map;
}

}  // namespace hashtrace::graph::detail
