#include "slots.hpp"

#include "hashtrace/graph/parallel.hpp"

#include <algorithm>
#include <bit>
#include <atomic>
#include <unordered_map>
#include <unordered_set>

namespace hashtrace::critical_path {

// What one chunk of the samples (whole words of the sample bits) found,
// numbering the queues it meets in order.
struct Slots::ChunkQueues {
    std::unordered_map<std::uint64_t, std::uint32_t> id_of_key;
    std::vector<std::uint64_t> key;
    std::vector<SampleIndex> first_slot, last_slot;  // per queue
    std::vector<std::uint64_t> slots;
    std::vector<std::uint32_t> queue_of_slot;  // the chunk's numbering
    std::vector<std::uint32_t> input_edge_of_slot;
    std::unordered_map<std::uint64_t, SampleIndex> first_polling_take;  // per thread
    std::vector<std::pair<std::uint64_t, SampleIndex>> polling_threads;    // as met
};

// The chunks' queues numbered across the run, in the chunks' order.
struct Slots::Numbering {
    std::vector<std::vector<std::uint32_t>> id_in_run;  // per chunk: its queue k's number
    std::vector<std::size_t> first_slot_of_chunk;        // and where its slots start (one past the last at the end)
};

Slots::Slots(const DependenceModel& model, const ChangeTable& table, unsigned threads) : model_(model) {
    const std::size_t n = model.samples().size();
    slot_bits_ = feeds_bits_ = tied_bits_ = emptied_as_recorded_ = SampleBits(n);
    // Found in chunks of whole words on all cores, each numbering the queues
    // it meets in order; then numbered across the chunks in their order.
    const std::size_t chunks = 4 * std::size_t{threads};
    std::vector<ChunkQueues> found = find_slots(table, chunks, threads);
    const Numbering numbering = number_queues(found);
    auto earliest_input = lay_out_slots(found, numbering, threads);
    mark_emptied_as_recorded(std::move(earliest_input), numbering, threads);
    keep_polling_threads(found);
}

// Slot a, then b of its queue: tied at the same recorded time.
void Slots::tie_if_tied(SampleIndex a, SampleIndex b) {
    if (model_.samples().time_ns[a] == model_.samples().time_ns[b]) tied_bits_.set(a);
}

std::pair<SampleIndex, SampleIndex> Slots::samples_of_chunk(std::size_t c, std::size_t chunks) const {
    const auto [first_word, end_word] = graph::parallel::chunk(slot_bits_.words(), c, chunks);
    return {SampleIndex(first_word * 64), SampleIndex(std::min(end_word * 64, model_.samples().size()))};
}

// The slots: samples with one queue input from an earlier sample, on a
// segment no change matches. Each chunk numbers its queues (tracepoint and
// thread of the slot) and notes the first take of a polling thread.
std::vector<Slots::ChunkQueues> Slots::find_slots(const ChangeTable& table, std::size_t chunks, unsigned threads) {
    const auto& s = model_.samples();
    const auto& g = model_.graph();
    std::vector<ChunkQueues> found(chunks);
    graph::parallel::for_each(chunks, threads, [&](std::size_t c, unsigned) {
        ChunkQueues& q = found[c];
        for (auto [x, end] = samples_of_chunk(c, chunks); x < end; ++x) {
            SampleIndex taken = kNone;
            std::uint32_t taken_by = 0;
            int queue_inputs = 0;
            for (std::uint32_t i = g.in_offset[x]; i < g.in_offset[x + 1]; ++i) {
                const std::uint32_t e = g.in_edges[i];
                if (g.edges[e].from < x && model_.kind_of_edge(e) == SegmentKind::queue) {
                    taken = g.edges[e].from;
                    taken_by = e;
                    ++queue_inputs;
                }
            }
            if (queue_inputs != 1 || !table.of(taken, x, SegmentKind::queue).empty()) continue;
            const std::uint64_t key = (std::uint64_t{s.tracepoint[x]} << 32) | s.thread[x];
            auto [it, added] = q.id_of_key.try_emplace(key, std::uint32_t(q.key.size()));
            if (added) {
                q.key.push_back(key);
                q.first_slot.push_back(x);
                q.last_slot.push_back(x);
                q.slots.push_back(0);
            } else {
                tie_if_tied(q.last_slot[it->second], x);  // in this chunk's words
                q.last_slot[it->second] = x;
            }
            slot_bits_.set(x);  // the chunk's own word
            q.queue_of_slot.push_back(it->second);
            q.input_edge_of_slot.push_back(taken_by);
            // `taken` may be in another chunk's word.
            std::atomic_ref(feeds_bits_.word(taken / 64)).fetch_or(SampleBits::bit(taken), std::memory_order_relaxed);
            ++q.slots[it->second];
            if (model_.external(x))
                if (const std::uint64_t thread = model_.thread_key(x); q.first_polling_take.try_emplace(thread, x).second)
                    q.polling_threads.emplace_back(thread, x);
        }
    });
    return found;
}

Slots::Numbering Slots::number_queues(const std::vector<ChunkQueues>& found) {
    const std::size_t chunks = found.size();
    Numbering out{std::vector<std::vector<std::uint32_t>>(chunks), std::vector<std::size_t>(chunks + 1, 0)};
    std::unordered_map<std::uint64_t, std::uint32_t> queue_ids;
    std::vector<SampleIndex> last;  // per queue: its last slot in the chunks so far
    for (std::size_t c = 0; c < chunks; ++c) {
        for (std::size_t k = 0; k < found[c].key.size(); ++k) {
            auto [it, added] = queue_ids.try_emplace(found[c].key[k], std::uint32_t(queues_.size()));
            const std::uint32_t queue = it->second;
            if (added) {
                queues_.push_back({model_.labels()[model_.label_of(found[c].first_slot[k])], 0, 0, 0, 0, 0});
                last.push_back(found[c].first_slot[k]);
            } else {
                tie_if_tied(last[queue], found[c].first_slot[k]);
            }
            queues_[queue].slots += found[c].slots[k];
            last[queue] = found[c].last_slot[k];
            out.id_in_run[c].push_back(queue);
        }
        out.first_slot_of_chunk[c + 1] = out.first_slot_of_chunk[c] + found[c].queue_of_slot.size();
    }
    return out;
}

// Each slot's queue and input edge in sample order, the slots before each
// word (rank()); returned: per chunk and queue, the earliest input its slots take.
std::vector<std::vector<SampleIndex>> Slots::lay_out_slots(const std::vector<ChunkQueues>& found, const Numbering& numbering, unsigned threads) {
    const auto& g = model_.graph();
    const std::size_t chunks = found.size(), words = slot_bits_.words();
    queue_of_slot_.resize(numbering.first_slot_of_chunk[chunks]);  // every entry is written below
    input_edge_of_slot_.resize(numbering.first_slot_of_chunk[chunks]);
    slots_before_word_.resize(words);
    std::vector<std::vector<SampleIndex>> earliest_input(chunks, std::vector<SampleIndex>(queues_.size(), kNone));
    graph::parallel::for_each(chunks, threads, [&](std::size_t c, unsigned) {
        const auto& local = found[c].queue_of_slot;
        const std::size_t first = numbering.first_slot_of_chunk[c];
        for (std::size_t k = 0; k < local.size(); ++k) {
            const std::uint32_t queue = numbering.id_in_run[c][local[k]];
            queue_of_slot_[first + k] = queue;
            input_edge_of_slot_[first + k] = found[c].input_edge_of_slot[k];
            earliest_input[c][queue] = std::min(earliest_input[c][queue], g.edges[found[c].input_edge_of_slot[k]].from);
        }
        auto before = std::uint32_t(first);
        for (auto [w, end] = graph::parallel::chunk(words, c, chunks); w < end; ++w) {
            slots_before_word_[w] = before;
            before += bits_set(slot_bits_.word(w));
        }
    });
    return earliest_input;
}

// Slot x leaves its queue empty when every later slot of it takes an input
// from x on: found backwards, each chunk from the earliest input of the
// chunks after it.
void Slots::mark_emptied_as_recorded(std::vector<std::vector<SampleIndex>> earliest_input, const Numbering& numbering, unsigned threads) {
    const auto& g = model_.graph();
    const std::size_t chunks = earliest_input.size();
    for (std::size_t c = chunks - 1; c > 0; --c)
        for (std::size_t q = 0; q < queues_.size(); ++q) earliest_input[c - 1][q] = std::min(earliest_input[c - 1][q], earliest_input[c][q]);
    graph::parallel::for_each(chunks, threads, [&](std::size_t c, unsigned) {
        std::vector<SampleIndex> earliest_later(queues_.size(), kNone);
        if (c + 1 < chunks) earliest_later = earliest_input[c + 1];
        auto k = std::uint32_t(numbering.first_slot_of_chunk[c + 1]);  // the rank after the slot at hand
        const auto [first_word, end_word] = graph::parallel::chunk(slot_bits_.words(), c, chunks);
        for (std::size_t w = end_word; w-- > first_word;)
            for (std::uint64_t bits = slot_bits_.word(w); bits != 0;) {
                const int b = 63 - std::countl_zero(bits);
                bits &= ~(std::uint64_t{1} << b);
                const auto x = SampleIndex(w * 64 + std::size_t(b));
                const std::uint32_t queue = queue_of_slot_[--k];
                if (earliest_later[queue] >= x) emptied_as_recorded_.set(x);
                earliest_later[queue] = std::min(earliest_later[queue], g.edges[input_edge_of_slot_[k]].from);
            }
    });
}

// Each polling thread's first take, in the order the chunks met them.
void Slots::keep_polling_threads(const std::vector<ChunkQueues>& found) {
    std::unordered_set<std::uint64_t> polling_threads;
    for (const ChunkQueues& q : found)
        for (const auto& [thread, take] : q.polling_threads)
            if (polling_threads.insert(thread).second) first_polling_takes_.push_back(take);
}

}  // namespace hashtrace::critical_path
