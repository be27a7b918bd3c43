// slots.hpp - the samples that take exactly one input from a queue: the
// slots the replay serves each queue's inputs to, in their new arrival order
// (whatif.hpp). A queue is (consumer tracepoint, consumer thread). Samples
// whose queue input a change matches are not slots: their wait is set.
//
// A bit per sample says which are slots (and which feed one); a slot's input
// (its one queue edge from an earlier sample) and its queue are kept per
// slot, found by the slot's rank among them. So the replay's tables take 8
// bytes per slot, not 8 per sample: fresh memory is much of what a replay of
// a large run spends its time on.
//
// The recorded run's service: a queue's inputs are served to their slots in
// the order of the slots' recorded times (whatif.cpp), so with every time as
// recorded each slot takes its own input, unless the next slot of its queue
// took its own at the same recorded time (the slot is `tied`: the order
// between them is their producers'). Said too: after which slots their
// queue is then empty.
#pragma once

#include "change_table.hpp"
#include "hashtrace/critical_path/model.hpp"
#include "hashtrace/critical_path/whatif.hpp"
#include "hashtrace/graph/column.hpp"
#include "sample_bits.hpp"

#include <cstdint>
#include <vector>

namespace hashtrace::critical_path {

class Slots {
public:
    // Found on `threads` threads.
    Slots(const DependenceModel& model, const ChangeTable& table, unsigned threads);

    bool is_slot(SampleIndex x) const { return slot_bits_.test(x); }
    // The same for samples 64 w .. 64 w + 63, a bit each; and whether some
    // slot takes each one's output (the other samples have none to queue).
    std::uint64_t slot_word(std::size_t w) const { return slot_bits_.word(w); }
    std::uint64_t feeds_word(std::size_t w) const { return feeds_bits_.word(w); }
    std::size_t count() const { return queue_of_slot_.size(); }
    // Slot x's place among the slots, in sample order: in [0, count()).
    std::uint32_t rank(SampleIndex x) const {
        const std::uint64_t before = slot_bits_.word(x / 64) & (SampleBits::bit(x) - 1);
        return slots_before_word_[x / 64] + bits_set(before);
    }
    // Slot x's queue: an index into queues().
    std::uint32_t queue_of(SampleIndex x) const { return queue_of_slot_[rank(x)]; }
    // The input slot x takes.
    SampleIndex input_of(SampleIndex x) const { return model_.graph().edges[input_edge_of_slot_[rank(x)]].from; }
    // Per slot (by rank): the edge it takes its input by (an index into the graph's edges).
    const graph::Column<std::uint32_t>& input_edges() const { return input_edge_of_slot_; }
    // Edge e (an index into the graph's edges) is the one a slot takes its input by.
    bool is_slot_input_edge(std::uint32_t e) const {
        const graph::Edge& edge = model_.graph().edges[e];
        return edge.from < edge.to && model_.kind_of_edge(e) == SegmentKind::queue && is_slot(edge.to);
    }

    // In the order of their first slots, with their slot counts.
    const std::vector<QueueNote>& queues() const { return queues_; }
    // The first slot started by its tick (a polling take) of each thread
    // that has one, in sample order: the threads that may poll (polling_loops.hpp).
    const std::vector<SampleIndex>& first_polling_takes() const { return first_polling_takes_; }

    // Slot x took its input at the recorded time the next slot of its queue took its own.
    bool tied(SampleIndex x) const { return tied_bits_.test(x); }
    std::uint64_t tied_word(std::size_t w) const { return tied_bits_.word(w); }
    // With every slot taking its own input, slot x leaves its queue empty: no
    // later slot of it takes an input from before x.
    const SampleBits& emptied_as_recorded() const { return emptied_as_recorded_; }

private:
    // std::popcount, inline: built for x86-64's baseline (no popcount
    // instruction) std::popcount calls into the compiler's runtime, and
    // rank() is on the replay's path for every slot.
    static std::uint32_t bits_set(std::uint64_t v) {
        v = v - ((v >> 1) & 0x5555555555555555u);
        v = (v & 0x3333333333333333u) + ((v >> 2) & 0x3333333333333333u);
        v = (v + (v >> 4)) & 0x0F0F0F0F0F0F0F0Fu;
        return std::uint32_t((v * 0x0101010101010101u) >> 56);
    }

    // The constructor's steps, in order.
    struct ChunkQueues;
    struct Numbering;
    std::pair<SampleIndex, SampleIndex> samples_of_chunk(std::size_t c, std::size_t chunks) const;
    void tie_if_tied(SampleIndex a, SampleIndex b);
    std::vector<ChunkQueues> find_slots(const ChangeTable& table, std::size_t chunks, unsigned threads);
    Numbering number_queues(const std::vector<ChunkQueues>& found);
    std::vector<std::vector<SampleIndex>> lay_out_slots(const std::vector<ChunkQueues>& found, const Numbering& numbering, unsigned threads);
    void mark_emptied_as_recorded(std::vector<std::vector<SampleIndex>> earliest_input, const Numbering& numbering, unsigned threads);
    void keep_polling_threads(const std::vector<ChunkQueues>& found);

    const DependenceModel& model_;
    SampleBits slot_bits_, feeds_bits_;
    std::vector<std::uint32_t> slots_before_word_;  // per 64 samples: the slots before them
    graph::Column<std::uint32_t> queue_of_slot_;    // per slot, in sample order
    graph::Column<std::uint32_t> input_edge_of_slot_;  // per slot, in sample order
    std::vector<QueueNote> queues_;
    SampleBits tied_bits_, emptied_as_recorded_;
    std::vector<SampleIndex> first_polling_takes_;
};

}  // namespace hashtrace::critical_path
