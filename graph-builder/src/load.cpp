// The loading stage: parse files in parallel (one worker per file at a time,
// each worker filling its own chunk with its own hash interner), then merge
// the chunks column by column into the SampleSet in time order (ties in the
// files' given order).
#include "hashtrace/graph/load.hpp"

#include "block_column.hpp"
#include "hash_interner.hpp"
#include "recent_hashes.hpp"
#include "run_merge.hpp"
#include "time_order.hpp"
#include "hashtrace/detail/binary_format.hpp"
#include "hashtrace/graph/detail/huge_pages.hpp"
#include "hashtrace/logio/reader.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cstring>
#include <exception>
#include <limits>
#include <map>
#include <mutex>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <thread>
#include <tuple>

namespace hashtrace::graph {
namespace {

using detail::BlockColumn;
using detail::HashInterner;
using detail::RecentHashes;

using TracepointKey = std::tuple<std::string, std::string, std::string, std::string, std::string, HashFunction>;


TracepointKey key_of(const logio::TracepointInfo& t) {
    return {t.node_name, t.instance, t.tracepoint_name, t.input_hash_type, t.output_hash_type, t.hash_function};
}

// What one worker parsed: the samples of several files, in its own id spaces.
struct Chunk {
    BlockColumn<std::int64_t> time;
    BlockColumn<HashId> input, output;
    BlockColumn<TracepointId> tracepoint;
    BlockColumn<std::uint32_t> thread;
    HashInterner hashes;
    std::vector<std::pair<logio::TracepointInfo, std::uint32_t>> tracepoints;  // with their file index
};

struct ParsedFile {
    std::size_t chunk = 0;
    std::size_t first = 0;  // in the chunk
    detail::RunStarts runs;  // in the chunk
    SourceFile meta;
};

// A BlockColumn::append filler that copies from a batch's column.
template <typename From>
auto copy_of(const From& from) {
    return [&from](auto* dst, std::size_t first, std::size_t count) { std::memcpy(dst, &from[first], count * sizeof *dst); };
}

class ChunkFiller final : public logio::LogVisitor {
public:
    // `bytes`: the log's size; `runs` notes the file's times.
    ChunkFiller(Chunk& chunk, std::uint32_t file, std::uintmax_t bytes, SourceFile& meta, detail::RunStarts& runs,
                const std::function<void(std::uint64_t)>& on_batch)
        : chunk_(chunk), file_(file), bytes_(bytes), meta_(meta), runs_(runs), on_batch_(on_batch) {}

    void on_header(const logio::LogHeader& header) override { meta_.header = header; }

    void on_tracepoint(std::uint32_t index, const logio::TracepointInfo& info) override {
        if (index >= local_.size()) local_.resize(index + 1, LocalTracepoint{});
        auto [it, inserted] = ids_.try_emplace(key_of(info), static_cast<TracepointId>(chunk_.tracepoints.size()));
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
    // its ring (two of three in a typical log: a loop counter again, an
    // output equal to the input) takes the id of the hash that filled that
    // ring slot, with no mixing, prefetching or lookup; the others are mostly
    // new to the block (only 7% of them were among the recent hashes of
    // RecentHashes), so they go to the table without that cache's random
    // reads, which CSV logs, without a ring, still take.
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
    // or a literal is data no branch predicts (a mispredict a sample when each
    // sample took its own path): the passes branch only on what is rare. A
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
            chunk_.time.expect(samples);
            chunk_.input.expect(samples);
            chunk_.output.expect(samples);
            chunk_.tracepoint.expect(samples);
            chunk_.thread.expect(samples);
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
    // forwarded from them: it waited until they retired, behind the
    // interning's cache misses (a fifth of the filler's time once).
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
    // needs_mix. Inlined into on_samples' loop, which the compiler stopped
    // doing on its own once the interner's lookup was inlined here (a call a
    // hash: +0.9% of the CSV load's instructions).
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
    detail::RunStarts& runs_;
    const std::function<void(std::uint64_t)>& on_batch_;
    std::vector<LocalTracepoint> local_;
    std::map<TracepointKey, TracepointId> ids_;
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

// Runs `a` on a new thread and `b` on this one; once both are done, a
// failure of either is rethrown here (b's if both failed).
template <typename A, typename B>
void in_parallel(A&& a, B&& b) {
    std::exception_ptr a_failed;
    {
        std::jthread other([&] {
            try {
                a();
            } catch (...) {
                a_failed = std::current_exception();
            }
        });
        b();
    }
    if (a_failed) std::rethrow_exception(a_failed);
}

// The parsing workers' blocks and the sort's scratch columns are freed by
// now, but glibc keeps such mid-sized blocks in its arenas (its mmap
// threshold rises after the first large free): hand the pages back, or the
// process's peak stays ~1.5x the samples' size through linking.
void release_free_memory() {
#ifdef __GLIBC__
    malloc_trim(0);
#endif
}

bool looks_binary(std::string_view data) {
    return data.size() >= sizeof hashtrace::detail::kBinaryMagic &&
           std::memcmp(data.data(), hashtrace::detail::kBinaryMagic, sizeof hashtrace::detail::kBinaryMagic) == 0;
}

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
            in_parallel([&] { look_up(c, 0, n / 2); }, [&] { look_up(c, n / 2, n); });
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

// Where the merge writes a chunk's samples from: the chunk's four 4-byte
// columns with the maps from its ids to the global ones. A reader keeps
// pointers into the block holding the position it read last, so that a
// sample costs a load a column rather than a walk through each column's
// vector of blocks (the placement took ~50 instructions an output that way):
// a sorted run's positions move by one, and cross a block only every 512k.
struct ChunkColumns {
    const Chunk* chunk;
    const HashId* hash_map;  // by the chunk's id + 1 (number_hashes)
    const TracepointId* tracepoint_map;
};

class ChunkReader {
public:
    explicit ChunkReader(const ChunkColumns& c) : c_(c) {}

    // Writes the chunk's sample `at` to output i.
    [[gnu::always_inline]] void place(SampleSet& out, std::size_t i, std::size_t at, std::int64_t time) {
        std::size_t k = at - first_;  // (wraps below first_)
        if (k >= kBlock) [[unlikely]] {
            enter(at);
            k = at - first_;
        }
        out.time_ns[i] = time;
        out.input[i] = c_.hash_map[input_[k] + 1];  // kNoHash wraps to 0, which maps to itself
        out.output[i] = c_.hash_map[output_[k] + 1];
        out.tracepoint[i] = c_.tracepoint_map[tracepoint_[k]];
        out.thread[i] = thread_[k];
    }

private:
    static constexpr std::size_t kBlock = BlockColumn<HashId>::kBlock;
    static_assert(BlockColumn<TracepointId>::kBlock == kBlock && BlockColumn<std::uint32_t>::kBlock == kBlock,
                  "one block index for the four columns");

    void enter(std::size_t at) {
        const std::size_t b = at / kBlock;
        first_ = b * kBlock;
        input_ = c_.chunk->input.block(b);
        output_ = c_.chunk->output.block(b);
        tracepoint_ = c_.chunk->tracepoint.block(b);
        thread_ = c_.chunk->thread.block(b);
    }

    ChunkColumns c_;
    std::size_t first_ = std::numeric_limits<std::size_t>::max() - kBlock;  // no block yet: every k is out of range
    const HashId *input_ = nullptr, *output_ = nullptr;
    const TracepointId* tracepoint_ = nullptr;
    const std::uint32_t* thread_ = nullptr;
};

// Writes every sample to its place in `out` in time order (ties in file
// order), each output once, from two threads: files in time order, or
// nearly (a few sorted runs), are merged; others are sorted in a copy. Each
// thread reads a run (or a file) through a reader of its own.
void place_in_time_order(const std::vector<Chunk>& chunks, const std::vector<ParsedFile>& files, std::size_t total,
                         const std::vector<ChunkColumns>& columns, SampleSet& out) {
    using Run = detail::SortedRun<BlockColumn<std::int64_t>>;
    constexpr std::size_t kMaxRunsToMerge = detail::RunStarts::kMaxNoted;  // each output compares every run's next time
    std::vector<Run> runs;
    std::vector<std::size_t> chunk_of_run;
    for (std::size_t i = 0; i < files.size() && runs.size() <= kMaxRunsToMerge; ++i) {
        const ParsedFile& f = files[i];
        const std::size_t end = f.first + f.meta.sample_count;
        std::size_t start = f.first;
        auto add_run = [&](std::size_t to) {
            runs.push_back({&chunks[f.chunk].time, start, to - start, static_cast<std::uint32_t>(runs.size())});
            chunk_of_run.push_back(f.chunk);
            start = to;
        };
        for (const std::size_t next : f.runs.starts()) add_run(next);
        if (start < end) add_run(end);
    }
    auto readers = [&](const std::vector<std::size_t>& chunk_of) {
        std::vector<ChunkReader> r;
        for (const std::size_t c : chunk_of) r.emplace_back(columns[c]);
        return r;
    };
    if (runs.size() <= kMaxRunsToMerge) {
        auto merge_part = [&]<detail::MergePart kPart>() {
            std::vector<ChunkReader> reader = readers(chunk_of_run);
            // Always inlined: the merge has a loop for each number of runs,
            // and the compiler stopped inlining this into them (a call an output).
            detail::merge_runs<kPart>(runs, total / 2, [&](std::size_t i, std::uint32_t run, std::size_t at, std::int64_t time)
                                                           __attribute__((always_inline)) { reader[run].place(out, i, at, time); });
        };
        in_parallel([&] { merge_part.template operator()<detail::MergePart::front>(); },
                    [&] { merge_part.template operator()<detail::MergePart::back>(); });
        return;
    }
    Column<std::int64_t> file_time(total);
    std::vector<std::size_t> file_start, chunk_of_file;  // of each file in file_time; its chunk
    std::int64_t* dst = file_time.data();
    for (const ParsedFile& f : files) {
        file_start.push_back(static_cast<std::size_t>(dst - file_time.data()));
        chunk_of_file.push_back(f.chunk);
        chunks[f.chunk].time.for_each_span(f.first, f.meta.sample_count, [&](const std::int64_t* src, std::size_t n) {
            dst = std::copy(src, src + n, dst);
        });
    }
    const Column<SampleIndex> order = detail::time_order(file_time);
    auto take = [&](std::size_t from, std::size_t to) {
        std::vector<ChunkReader> reader = readers(chunk_of_file);
        for (std::size_t i = from; i < to; ++i) {
            const std::size_t f = static_cast<std::size_t>(std::upper_bound(file_start.begin(), file_start.end(), order[i]) - file_start.begin()) - 1;
            reader[f].place(out, i, files[f].first + (order[i] - file_start[f]), file_time[order[i]]);
        }
    };
    in_parallel([&] { take(0, total / 2); }, [&] { take(total / 2, total); });
}

// Builds the global tables (tracepoints, instances, nodes, sources) and the
// columns in time order (peak: the chunks' columns and the final ones).
SampleSet merge(std::vector<Chunk>& chunks, std::vector<ParsedFile>& files, bool keep_hash_values) {
    SampleSet out;
    std::map<std::pair<std::string, std::string>, std::uint32_t> instance_ids;
    std::map<std::tuple<std::string, std::string, std::string>, std::uint32_t> source_ids;
    std::map<std::string, std::uint32_t> node_ids;
    // Global ids follow file order, not the order in which the workers happened
    // to parse the files, so that one input always gives one SampleSet.
    std::vector<std::vector<TracepointId>> tracepoint_map(chunks.size());
    std::vector<std::pair<std::uint32_t, std::size_t>> by_file;  // (chunk, local id), in file order
    for (std::size_t c = 0; c < chunks.size(); ++c) {
        tracepoint_map[c].resize(chunks[c].tracepoints.size());
        for (std::size_t t = 0; t < chunks[c].tracepoints.size(); ++t) by_file.emplace_back(static_cast<std::uint32_t>(c), t);
    }
    std::stable_sort(by_file.begin(), by_file.end(), [&](const auto& a, const auto& b) {
        return chunks[a.first].tracepoints[a.second].second < chunks[b.first].tracepoints[b.second].second;
    });
    for (const auto& [c, t] : by_file) {
        const auto& [info, file] = chunks[c].tracepoints[t];
        tracepoint_map[c][t] = static_cast<TracepointId>(out.tracepoints.size());
        Tracepoint tp{info.node_name, info.instance, info.tracepoint_name, info.input_hash_type,
                      info.output_hash_type, info.hash_function, 0, 0, 0, file};
        auto node = node_ids.try_emplace(info.node_name, static_cast<std::uint32_t>(out.node_names.size()));
        if (node.second) out.node_names.push_back(info.node_name);
        tp.node_id = node.first->second;
        auto inst = instance_ids.try_emplace({info.node_name, info.instance}, static_cast<std::uint32_t>(out.instances.size()));
        if (inst.second) out.instances.push_back({info.node_name, info.instance, tp.node_id});
        tp.instance_id = inst.first->second;
        auto source = source_ids.try_emplace({info.node_name, info.instance, info.tracepoint_name}, out.source_count);
        if (source.second) ++out.source_count;
        tp.source_id = source.first->second;
        out.tracepoints.push_back(std::move(tp));
    }

    std::size_t total = 0;
    for (const ParsedFile& f : files) total += f.meta.sample_count;
    if (total >= 0xFFFFFFFFull) throw std::length_error("more than 4294967294 samples in one analysis");
    const std::vector<std::vector<HashId>> hash_map = number_hashes(chunks, out, keep_hash_values);

    // Every column written once, in its final place, straight from the
    // chunks (so not filled with zeros first: Column's resize leaves them).
    out.time_ns.resize(total);
    out.input.resize(total);
    out.output.resize(total);
    out.tracepoint.resize(total);
    out.thread.resize(total);
    std::vector<ChunkColumns> columns;
    for (std::size_t c = 0; c < chunks.size(); ++c) columns.push_back({&chunks[c], hash_map[c].data(), tracepoint_map[c].data()});
    place_in_time_order(chunks, files, total, columns, out);
    for (Chunk& c : chunks) {
        c.time.clear();
        c.input.clear();
        c.output.clear();
        c.tracepoint.clear();
        c.thread.clear();
    }

    for (ParsedFile& f : files) {
        out.dropped_samples += f.meta.report.dropped_samples;
        out.files.push_back(std::move(f.meta));
    }
    release_free_memory();
    return out;
}

// Runs `parse(file_index, chunk, meta, on_batch)` for every file on `threads`
// workers, largest files first (`sizes`: bytes of each) so that the workers
// finish together.
template <typename Parse>
SampleSet load_with(const std::vector<std::string>& names, const std::vector<std::uintmax_t>& sizes, const LoadOptions& options,
                    Parse&& parse) {
    const std::size_t file_count = names.size();
    std::vector<std::size_t> claim_order(file_count);
    for (std::size_t i = 0; i < file_count; ++i) claim_order[i] = i;
    std::stable_sort(claim_order.begin(), claim_order.end(), [&](std::size_t a, std::size_t b) { return sizes[a] > sizes[b]; });
    unsigned threads = options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
    threads = static_cast<unsigned>(std::clamp<std::size_t>(threads, 1, std::max<std::size_t>(file_count, 1)));
    std::vector<Chunk> chunks(threads);
    std::vector<ParsedFile> files(file_count);
    std::atomic<std::size_t> next{0};
    // The first bad file in the given order is reported: after a failure,
    // only files before it are still parsed.
    std::atomic<std::size_t> first_failed{file_count};
    std::vector<std::exception_ptr> errors(file_count);
    std::mutex progress_mutex;
    LoadProgress progress{0, file_count, 0};

    auto report = [&](std::uint64_t samples, bool file_done) {
        if (!options.progress) return;
        std::lock_guard lock(progress_mutex);
        progress.samples_read += samples;
        progress.files_done += file_done;
        options.progress(progress);
    };
    auto worker = [&](std::size_t c) {
        const std::function<void(std::uint64_t)> on_batch = [&](std::uint64_t n) { report(n, false); };
        for (std::size_t k; (k = next.fetch_add(1)) < file_count;) {
            const std::size_t i = claim_order[k];
            if (i > first_failed) continue;
            ParsedFile& f = files[i];
            f.chunk = c;
            f.first = chunks[c].time.size();
            f.runs = detail::RunStarts(f.first);
            f.meta.path = names[i];
            try {
                ChunkFiller filler(chunks[c], static_cast<std::uint32_t>(i), sizes[i], f.meta, f.runs, on_batch);
                f.meta.report = parse(i, filler);
            } catch (...) {
                errors[i] = std::current_exception();
                for (std::size_t seen = first_failed; i < seen && !first_failed.compare_exchange_weak(seen, i);) {
                }
            }
            f.meta.sample_count = static_cast<SampleIndex>(chunks[c].time.size() - f.first);
            report(0, true);
        }
    };
    std::vector<std::jthread> pool;
    for (unsigned c = 1; c < threads; ++c) pool.emplace_back(worker, c);
    worker(0);
    pool.clear();
    for (auto& e : errors)
        if (e) std::rethrow_exception(e);
    return merge(chunks, files, options.keep_hash_values);
}

}  // namespace

SampleSet load_samples(const std::vector<std::filesystem::path>& paths, const LoadOptions& options) {
    std::vector<std::string> names;
    std::vector<std::uintmax_t> sizes;
    for (const auto& p : paths) {
        names.push_back(p.string());
        std::error_code unknown;  // reported by the reader
        const auto size = std::filesystem::file_size(p, unknown);
        sizes.push_back(unknown ? 0 : size);
    }
    const logio::ReadOptions read_options{options.lenient};
    return load_with(names, sizes, options, [&](std::size_t i, logio::LogVisitor& v) {
        return logio::read_log(paths[i], v, read_options);
    });
}

SampleSet load_samples_from_memory(const std::vector<std::pair<std::string, std::string>>& logs, const LoadOptions& options) {
    std::vector<std::string> names;
    std::vector<std::uintmax_t> sizes;
    for (const auto& l : logs) {
        names.push_back(l.first);
        sizes.push_back(l.second.size());
    }
    const logio::ReadOptions read_options{options.lenient};
    return load_with(names, sizes, options, [&](std::size_t i, logio::LogVisitor& v) {
        const auto& [name, data] = logs[i];
        return looks_binary(data) ? logio::read_binary(data, name, v, read_options) : logio::read_csv(data, name, v, read_options);
    });
}

}  // namespace hashtrace::graph
