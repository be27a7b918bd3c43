#include "slots.hpp"

#include "hashtrace/graph/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <unordered_map>
#include <unordered_set>

namespace hashtrace::critpath {

Slots::Slots(const DependenceModel& model, const ChangeTable& table, unsigned threads)
    : model_(model) {
    const auto& s = model.samples();
    const auto& g = model.graph();
    const std::size_t n = s.size();
    const std::size_t words = (n + 63) / 64;
    slot_bits_.assign(words, 0);
    feeds_bits_.assign(words, 0);
    // Found in chunks of whole words on all cores, each numbering the queues
    // it meets in order; then numbered across the chunks in their order.
    struct ChunkQueues {
        std::unordered_map<std::uint64_t, std::uint32_t> id_of_key;
        std::vector<std::uint64_t> key;
        std::vector<SampleIndex> first_slot;
        std::vector<std::uint64_t> slots;
        std::vector<std::uint32_t> queue_of_slot;  // the chunk's numbering
        std::vector<SampleIndex> input_of_slot;
        std::unordered_map<std::uint64_t, SampleIndex> first_polling_take;  // per thread
        std::vector<std::pair<std::uint64_t, SampleIndex>> polling_threads;    // as met
    };
    const std::size_t chunks = 4 * std::size_t{threads};
    std::vector<ChunkQueues> found(chunks);
    const auto samples_of_chunk = [&](std::size_t c) {
        const auto [first_word, end_word] = parallel::chunk(words, c, chunks);
        return std::pair{SampleIndex(first_word * 64), SampleIndex(std::min(end_word * 64, n))};
    };
    parallel::for_each(chunks, threads, [&](std::size_t c, unsigned) {
        ChunkQueues& q = found[c];
        for (auto [x, end] = samples_of_chunk(c); x < end; ++x) {
            SampleIndex taken = kNone;
            int queue_inputs = 0;
            for (std::uint32_t i = g.in_offset[x]; i < g.in_offset[x + 1]; ++i) {
                const std::uint32_t e = g.in_edges[i];
                if (g.edges[e].from < x && model.kind_of_edge(e) == SegmentKind::queue) {
                    taken = g.edges[e].from;
                    ++queue_inputs;
                }
            }
            if (queue_inputs != 1 || !table.of(taken, x, SegmentKind::queue).empty()) continue;
            const std::uint64_t key = (std::uint64_t{s.tracepoint[x]} << 32) | s.thread[x];
            auto [it, added] = q.id_of_key.try_emplace(key, std::uint32_t(q.key.size()));
            if (added) {
                q.key.push_back(key);
                q.first_slot.push_back(x);
                q.slots.push_back(0);
            }
            slot_bits_[x / 64] |= std::uint64_t{1} << (x % 64);  // the chunk's own word
            q.queue_of_slot.push_back(it->second);
            q.input_of_slot.push_back(taken);
            // `taken` may be in another chunk's word.
            std::atomic_ref(feeds_bits_[taken / 64]).fetch_or(std::uint64_t{1} << (taken % 64), std::memory_order_relaxed);
            ++q.slots[it->second];
            if (model.external(x))
                if (const std::uint64_t thread = model.thread_key(x); q.first_polling_take.try_emplace(thread, x).second)
                    q.polling_threads.emplace_back(thread, x);
        }
    });
    std::unordered_map<std::uint64_t, std::uint32_t> queue_ids;
    std::vector<std::vector<std::uint32_t>> id_in_run(chunks);
    std::vector<std::size_t> first_slot_of_chunk(chunks + 1, 0);
    for (std::size_t c = 0; c < chunks; ++c) {
        for (std::size_t k = 0; k < found[c].key.size(); ++k) {
            auto [it, added] = queue_ids.try_emplace(found[c].key[k], std::uint32_t(queues_.size()));
            if (added) queues_.push_back({model.labels()[model.label_of(found[c].first_slot[k])], 0, 0, 0, 0, 0});
            queues_[it->second].slots += found[c].slots[k];
            id_in_run[c].push_back(it->second);
        }
        first_slot_of_chunk[c + 1] = first_slot_of_chunk[c] + found[c].queue_of_slot.size();
    }
    queue_of_slot_.resize(first_slot_of_chunk[chunks]);  // every entry is written below
    input_of_slot_.resize(first_slot_of_chunk[chunks]);
    slots_before_word_.resize(words);
    parallel::for_each(chunks, threads, [&](std::size_t c, unsigned) {
        const auto& local = found[c].queue_of_slot;
        for (std::size_t k = 0; k < local.size(); ++k) queue_of_slot_[first_slot_of_chunk[c] + k] = id_in_run[c][local[k]];
        std::copy(found[c].input_of_slot.begin(), found[c].input_of_slot.end(), input_of_slot_.begin() + std::ptrdiff_t(first_slot_of_chunk[c]));
        auto before = std::uint32_t(first_slot_of_chunk[c]);
        for (auto [w, end] = parallel::chunk(words, c, chunks); w < end; ++w) {
            slots_before_word_[w] = before;
            before += std::uint32_t(std::popcount(slot_bits_[w]));
        }
    });
    std::unordered_set<std::uint64_t> polling_threads;
    for (const ChunkQueues& q : found)
        for (const auto& [thread, take] : q.polling_threads)
            if (polling_threads.insert(thread).second) first_polling_takes_.push_back(take);
}

}  // namespace hashtrace::critpath
