// The loading workers' visitor: a log's records into the chunk's columns,
// each hash interned to the chunk's id once (binary logs' ring repeats and
// references take their id without a lookup).
#include "chunk_filler.hpp"

#include "recent_hashes.hpp"
#include "hashtrace/detail/binary_format.hpp"

#include <array>
#include <bit>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace hashtrace::graph::detail {
namespace {

// A BlockColumn::append filler that copies from a batch's column.
template <typename From>
auto copy_of(const From& from) {
    return [&from](auto* dst, std::size_t first, std::size_t count) { std::memcpy(dst, &from[first], count * sizeof *dst); };
}

class ChunkFiller final : public logio::LogVisitor {
public:
    // `bytes`: the log's size; `runs` notes the file's times.
    ChunkFiller(Chunk& chunk, std::uint32_t file, std::uintmax_t bytes, SourceFile& meta, RunStarts& runs,
                const std::function<void(std::uint64_t)>& on_batch)
        : chunk_(chunk), file_(file), bytes_(bytes), meta_(meta), runs_(runs), on_batch_(on_batch) {}

    void on_header(const logio::LogHeader& header) override { meta_.header = header; }

    void on_tracepoint(std::uint32_t index, const logio::TracepointInfo& info) override {
        if (index >= local_.size()) local_.resize(index + 1, LocalTracepoint{});
        auto [it, inserted] = ids_.try_emplace(info, static_cast<TracepointId>(chunk_.tracepoints.size()));
        if (inserted) chunk_.tracepoints.emplace_back(info, file_);
        local_[index] = {it->second, info.hash_function};
        functions_used_ |= 1u << static_cast<unsigned>(info.hash_function);
    }

    // In passes over the batch, so that each loop does one thing: the
    // records' tracepoints and hash mixes (each hash mixed once), then the
    // interning (bound by cache misses in the table of all hashes seen, which
    // are hidden by prefetching the slots and then the keys of records a
    // little ahead: a key's address is known only once its slot is loaded),
    // then the columns, a block at a time. A hash the binary reader found in
    // its ring (most of them: a loop counter again, an output equal to the
    // input) takes the id of the hash that filled that ring slot, with no
    // mixing, prefetching or lookup; the others are mostly new, so they go to
    // the table without RecentHashes' random reads, which CSV logs, without
    // a ring, still take.
    void on_samples(std::span<const logio::SampleRecord> batch) override {
        const std::size_t n = batch.size();
        pending_.resize(n);
        for (std::size_t i = 0; i < n; ++i) {
            const logio::SampleRecord& r = batch[i];
            Pending& p = pending_[i];
            const LocalTracepoint& tp = tracepoint_of(r);
            p.tracepoint = tp.id;
            p.function = tp.function;
            p.input_mix = needs_mix(r.has_input(), r.input_ring) ? HashInterner::mix(r.input_hash, tp.function) : 0;
            p.output_mix = needs_mix(r.has_output(), r.output_ring) ? HashInterner::mix(r.output_hash, tp.function) : 0;
        }
        constexpr std::size_t kSlotAhead = HashInterner::kSlotAhead, kKeyAhead = HashInterner::kKeyAhead;
        for (std::size_t i = 0; i < n; ++i) {
            if (i + kSlotAhead < n) prefetch(batch[i + kSlotAhead], pending_[i + kSlotAhead], &HashInterner::prefetch_slot);
            if (i + kKeyAhead < n) prefetch(batch[i + kKeyAhead], pending_[i + kKeyAhead], &HashInterner::prefetch_key);
            const logio::SampleRecord& r = batch[i];
            Pending& p = pending_[i];
            // The input first: an output "same as input" refers to its slot.
            p.input = r.has_input() ? id_of(r.input_hash, r.input_ring, p.function, p.input_mix) : kNoHash;
            p.output = r.has_output() ? id_of(r.output_hash, r.output_ring, p.function, p.output_mix) : kNoHash;
        }
        append_time(n, [&](std::int64_t* dst, std::size_t first, std::size_t count) {
            for (std::size_t i = 0; i < count; ++i) dst[i] = batch[first + i].time_ns;
        });
        chunk_.input.append(n, [&](HashId* dst, std::size_t first, std::size_t count) {
            for (std::size_t i = 0; i < count; ++i) dst[i] = pending_[first + i].input;
        });
        chunk_.output.append(n, [&](HashId* dst, std::size_t first, std::size_t count) {
            for (std::size_t i = 0; i < count; ++i) dst[i] = pending_[first + i].output;
        });
        chunk_.tracepoint.append(n, [&](TracepointId* dst, std::size_t first, std::size_t count) {
            for (std::size_t i = 0; i < count; ++i) dst[i] = pending_[first + i].tracepoint;
        });
        chunk_.thread.append(n, [&](std::uint32_t* dst, std::size_t first, std::size_t count) {
            for (std::size_t i = 0; i < count; ++i) dst[i] = batch[first + i].has_thread() ? batch[first + i].thread : kNoThread;
        });
        if (on_batch_) on_batch_(n);
    }

    // A binary log's samples, straight from the reader's columns: the same
    // ids as on_samples, in fewer and narrower passes. The hashes written out
    // in full (`literals`, in sample order) are mixed in one pass and
    // interned in the next, prefetched a few literals ahead, into the table
    // of what each hash reference of the batch stands for (references_); then
    // each hash is one read of that table. Whether a hash is absent, a repeat
    // or a literal is data no branch predicts: the passes branch only on
    // what is rare. A
    // log whose tracepoints share one hash function (the usual case) needs no
    // function a sample: its ids go straight into the chunk's columns.
    bool wants_columns() const override { return true; }
    void on_sample_columns(const logio::SampleColumns& c) override {
        if (!reserved_) {
            // A hash written out in full takes 16 bytes and, one or two to a
            // sample record, at least one more byte of that record.
            chunk_.hashes.reserve(static_cast<std::size_t>(bytes_ / 17));
            // A sample record with a hash written out in full takes ~20-40
            // bytes, the others fewer.
            const auto samples = static_cast<std::size_t>(bytes_ / 32);
            chunk_.for_each_column([samples](auto& column) { column.expect(samples); });
            references_.assign(logio::SampleColumns::kReferences, RingEntry());
            reserved_ = true;
        }
        const std::size_t n = c.size;
        chunk_.tracepoint.append(n, [&](TracepointId* dst, std::size_t first, std::size_t count) {
            for (std::size_t i = 0; i < count; ++i) dst[i] = tracepoint_of(c.tracepoint[first + i]).id;
        });
        if (std::has_single_bit(functions_used_)) {
            const auto f = static_cast<HashFunction>(std::countr_zero(functions_used_));
            intern_literals(c, [f](std::size_t) { return f; });
            auto ids = [&](const auto& refs) {
                return [&](HashId* dst, std::size_t first, std::size_t count) {
                    for (std::size_t i = 0; i < count; ++i) dst[i] = references_[refs[first + i]].id();
                };
            };
            chunk_.input.append(n, ids(c.input_ref));
            chunk_.output.append(n, ids(c.output_ref));
        } else {
            ids_under_several_functions(c);
        }
        // What each ring slot holds for the next batch.
        for (std::size_t r = 0; r < logio::SampleColumns::kRingSize; ++r) references_[r] = references_[c.ring_end[r]];
        append_time(n, copy_of(c.time_ns));
        chunk_.thread.append(n, copy_of(c.thread));
        if (on_batch_) on_batch_(n);
    }

private:
    static constexpr TracepointId kUndefined = 0xFFFFFFFFu;
    struct LocalTracepoint {
        TracepointId id = kUndefined;
        HashFunction function = HashFunction::md5;
    };
    struct Pending {
        std::uint64_t input_mix, output_mix;
        TracepointId tracepoint;
        HashId input, output;
        HashFunction function;
    };

    // The id and hash function behind a ring slot or hash reference, as one
    // 64-bit word: a slot is often read right after it was written (an output
    // "same as input"), and a load of what two narrower stores wrote is not
    // forwarded from them: it would wait until they retired, behind the
    // interning's cache misses.
    class RingEntry {
    public:
        RingEntry() = default;
        RingEntry(HashId id, HashFunction f) : bits_(id | std::uint64_t{static_cast<std::uint8_t>(f)} << 32) {}
        HashId id() const noexcept { return static_cast<HashId>(bits_); }
        HashFunction function() const noexcept { return static_cast<HashFunction>(bits_ >> 32); }

    private:
        std::uint64_t bits_ = RingEntry(kNoHash, HashFunction::md5).bits_;
    };

    // Whether the hash is mixed: it is not a repeat from the binary reader's ring.
    static bool needs_mix(bool present, std::uint16_t ring) noexcept {
        return present && ring >= logio::SampleRecord::kRingSlot;
    }
    // Whether the hash will be looked up in the table: written out in full
    // in a binary log, or from a log without a ring (CSV) and not a recent hash.
    bool goes_to_table(bool present, std::uint16_t ring, const Hash128& h, HashFunction f, std::uint64_t mixed) const noexcept {
        if (!needs_mix(present, ring)) return false;
        return ring != logio::SampleRecord::kRingNone || recent_.find(h, f, mixed) == RecentHashes::kNotFound;
    }
    // `ring` as SampleRecord::input_ring; `mixed` is the hash's mix when
    // needs_mix. Always inlined into on_samples' loop: with the interner's
    // lookup inlined here, the compiler would call it once a hash.
    [[gnu::always_inline]] HashId id_of(const Hash128& h, std::uint16_t ring, HashFunction f, std::uint64_t mixed) {
        if (ring < logio::SampleRecord::kRingSlot) return ring_repeat(ring, f);
        if (ring == logio::SampleRecord::kRingNone) {
            HashId id = recent_.find(h, f, mixed);
            if (id == RecentHashes::kNotFound) {
                id = chunk_.hashes.intern(h, f, mixed);
                recent_.remember(h, f, mixed, id);
            }
            return id;
        }
        const HashId id = chunk_.hashes.intern(h, f, mixed);
        ring_[ring - logio::SampleRecord::kRingSlot] = RingEntry(id, f);
        return id;
    }

    // A repeat of ring slot `ring`: the id of the hash that filled it, unless
    // that came under another hash function (the same bytes are then another
    // hash). The bytes are copied first: interning may grow the keys.
    HashId ring_repeat(std::uint16_t ring, HashFunction f) {
        const RingEntry e = ring_[ring];
        if (e.function() == f) return e.id();
        return under_other_function(e, f);
    }
    [[gnu::noinline]] HashId under_other_function(RingEntry e, HashFunction f) {
        const Hash128 h = chunk_.hashes.keys()[e.id()].hash;
        return chunk_.hashes.intern(h, f);
    }
    // Interns the batch's literals into references_; `function_of(k)` is
    // literal k's hash function.
    template <typename FunctionOf>
    void intern_literals(const logio::SampleColumns& c, FunctionOf&& function_of) {
        const std::size_t literals = c.literal_count;
        mixes_.resize(literals);
        for (std::size_t k = 0; k < literals; ++k) mixes_[k] = HashInterner::mix(c.literals[k], function_of(k));
        constexpr std::size_t kSlotAhead = HashInterner::kSlotAhead, kKeyAhead = HashInterner::kKeyAhead;
        RingEntry* const literal_entries = &references_[logio::SampleColumns::kFirstLiteral];
        for (std::size_t k = 0; k < literals; ++k) {
            if (k + kSlotAhead < literals) chunk_.hashes.prefetch_slot(mixes_[k + kSlotAhead]);
            if (k + kKeyAhead < literals) chunk_.hashes.prefetch_key(mixes_[k + kKeyAhead]);
            const HashFunction f = function_of(k);
            literal_entries[k] = RingEntry(chunk_.hashes.intern(c.literals[k], f, mixes_[k]), f);
        }
    }

    // The hash columns of a batch from a log whose tracepoints use more than
    // one hash function: a literal's function is its sample's, and a repeat
    // under another function than its slot's literal is another hash.
    void ids_under_several_functions(const logio::SampleColumns& c) {
        const std::size_t n = c.size;
        functions_.resize(n);
        // One entry past the literals: a sample's hash that is not a new
        // literal writes there. Literal k first appears as reference
        // kFirstLiteral + k (an output "same as input" repeats it).
        literal_functions_.resize(c.literal_count + 1);
        for (std::size_t i = 0, k = 0; i < n; ++i) {
            const HashFunction f = tracepoint_of(c.tracepoint[i]).function;
            functions_[i] = f;
            literal_functions_[k] = f;
            k += c.input_ref[i] == logio::SampleColumns::kFirstLiteral + k;
            literal_functions_[k] = f;
            k += c.output_ref[i] == logio::SampleColumns::kFirstLiteral + k;
        }
        intern_literals(c, [&](std::size_t k) { return literal_functions_[k]; });
        inputs_.resize(n);
        outputs_.resize(n);
        // In sample order, the input first: a repeat under another function
        // is interned here, and ids follow first use.
        for (std::size_t i = 0; i < n; ++i) {
            inputs_[i] = id_under(c.input_ref[i], functions_[i]);
            outputs_[i] = id_under(c.output_ref[i], functions_[i]);
        }
        chunk_.input.append(n, copy_of(inputs_));
        chunk_.output.append(n, copy_of(outputs_));
    }
    HashId id_under(std::uint16_t ref, HashFunction f) {
        const RingEntry e = references_[ref];
        if ((ref != logio::SampleColumns::kNoHash) & (e.function() != f)) [[unlikely]]
            return under_other_function(e, f);
        return e.id();
    }

    // Appends to the time column, noting where the times go back.
    template <typename Fill>
    void append_time(std::size_t n, Fill&& fill) {
        chunk_.time.append(n, [&](std::int64_t* dst, std::size_t first, std::size_t count) {
            fill(dst, first, count);
            runs_.note(dst, count);
        });
    }

    const LocalTracepoint& tracepoint_of(const logio::SampleRecord& r) const { return tracepoint_of(r.tracepoint); }
    // Called for every sample: the error's message is built out of line,
    // so that this inlines into the batch loops.
    const LocalTracepoint& tracepoint_of(std::uint32_t index) const {
        if (index >= local_.size() || local_[index].id == kUndefined) [[unlikely]]
            undefined_tracepoint(index);
        return local_[index];
    }
    [[noreturn, gnu::cold, gnu::noinline]] void undefined_tracepoint(std::uint32_t index) const {
        throw logio::LogError(meta_.path, 0, "sample refers to tracepoint " + std::to_string(index) + " that was never defined");
    }
    void prefetch(const logio::SampleRecord& r, const Pending& p, void (HashInterner::*stage)(std::uint64_t) const noexcept) const {
        if (goes_to_table(r.has_input(), r.input_ring, r.input_hash, p.function, p.input_mix)) (chunk_.hashes.*stage)(p.input_mix);
        if (goes_to_table(r.has_output(), r.output_ring, r.output_hash, p.function, p.output_mix)) (chunk_.hashes.*stage)(p.output_mix);
    }

    Chunk& chunk_;
    std::uint32_t file_;
    std::uintmax_t bytes_;
    bool reserved_ = false;  // chunk_.hashes for this log's hashes
    SourceFile& meta_;
    RunStarts& runs_;
    const std::function<void(std::uint64_t)>& on_batch_;
    std::vector<LocalTracepoint> local_;
    std::map<logio::TracepointInfo, TracepointId> ids_;
    std::vector<Pending> pending_;
    unsigned functions_used_ = 0;  // a bit per HashFunction of the log's tracepoints
    // on_sample_columns' passes, per sample or per hash written out in full.
    std::vector<HashFunction> functions_;
    std::vector<HashFunction> literal_functions_;  // per literal, and one more
    std::vector<std::uint64_t> mixes_;
    std::vector<HashId> inputs_, outputs_;
    std::vector<RingEntry> references_;  // what each hash reference of a SampleColumns batch stands for
    std::array<RingEntry, hashtrace::detail::kRingSize> ring_{};  // the ids behind a SampleRecord's ring slots
    RecentHashes recent_;  // for logs without a ring
};

}  // namespace

logio::ReadReport fill_chunk(Chunk& chunk, std::uint32_t file, std::uintmax_t bytes, SourceFile& meta, RunStarts& runs,
                             const std::function<void(std::uint64_t)>& on_batch,
                             const std::function<logio::ReadReport(logio::LogVisitor&)>& parse) {
    ChunkFiller filler(chunk, file, bytes, meta, runs, on_batch);
    return parse(filler);
}

}  // namespace hashtrace::graph::detail
