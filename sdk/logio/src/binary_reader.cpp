// The binary sample log reader (.htlog; docs/log-formats.md). Validates every
// record and, from version 2, every block's checksum; a block cut short by a
// crash yields its complete records and a torn-tail report; anything else
// malformed is a LogError naming the byte offset (lenient: a damaged block is
// skipped and counted). From version 3, a read of a time range passes over
// the blocks whose time index lies outside it, and index_log over every
// block that holds only samples.
#include "hashtrace/detail/binary_format.hpp"
#include "hashtrace/logio/reader.hpp"
#include "parsers.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <unordered_map>

namespace hashtrace::logio {
namespace {

using detail::get_varint;

struct Truncated {};  // the record runs past the available bytes
struct Corrupt {
    std::string reason;
};

// A sample as parse_record found it, once the whole record was there. A hash
// is given by where it is in the ring (as SampleRecord::input_ring) and its
// bytes: in the data for a hash written out in full, in the parser's ring for
// a repeat (only when the sink keeps the ring's hashes, else null).
struct Decoded {
    std::int64_t time_ns;
    std::uint32_t tracepoint;
    std::uint64_t thread_code, seq_code;  // 0: not recorded; else the value + 1
    std::uint16_t input_ring, output_ring;
    const unsigned char* input;
    const unsigned char* output;
};

// Where the parser's samples go: SampleRecord batches for on_samples...
//
// A sink is given the samples outside the time range read too (skip), for
// the ring slots they fill: a hash such a sample wrote out in full is one the
// visitor never saw, so the slot is "held", and a delivered sample repeating
// it gets it as written out in full (and stored into the slot) instead. What
// the visitor keeps of each slot stays true without its being given the
// samples outside the range, and its memory grows only with those inside.
class RecordSink {
public:
    static constexpr bool kKeepsRingHashes = true;  // a repeat's SampleRecord carries the hash
    explicit RecordSink(LogVisitor& visitor) : visitor_(visitor) {}
    void skip(const Decoded& d) {
        hold(d.input_ring);
        hold(d.output_ring);
    }
    void add(const Decoded& d) {
        SampleRecord s;
        s.time_ns = d.time_ns;
        s.tracepoint = d.tracepoint;
        s.input_ring = d.input_ring;
        s.output_ring = d.output_ring;
        if (d.thread_code) {
            s.thread = static_cast<std::uint32_t>(d.thread_code - 1);
            s.flags |= SampleRecord::kHasThread;
        }
        if (d.seq_code) {
            s.seq = d.seq_code - 1;
            s.flags |= SampleRecord::kHasSeq;
        }
        if (d.input) {
            std::memcpy(s.input_hash.bytes.data(), d.input, 16);
            s.flags |= SampleRecord::kHasInput;
        }
        if (d.output) {
            std::memcpy(s.output_hash.bytes.data(), d.output, 16);
            s.flags |= SampleRecord::kHasOutput;
        }
        if (held_count_) [[unlikely]] {
            // The input first: an output "same as input" repeats the slot the input filled.
            s.input_ring = delivered(s.input_ring);
            s.output_ring = delivered(s.output_ring);
        }
        batch_.push_back(s);
        if (batch_.size() == 4096) flush();
    }
    void flush() {
        if (batch_.empty()) return;
        visitor_.on_samples(batch_);
        batch_.clear();
    }

private:
    // `ring` as Decoded's.
    void hold(std::uint16_t ring) {
        if (!SampleRecord::written_in_full(ring)) return;
        bool& held = held_[ring - SampleRecord::kRingSlot];
        held_count_ += !held;
        held = true;
    }
    // A repeat of a held slot is delivered as written out in full (the
    // record has the hash); a hash written out in full into it ends the hold too.
    std::uint16_t delivered(std::uint16_t ring) {
        if (ring == SampleRecord::kRingNone) return ring;
        const bool repeat = ring < SampleRecord::kRingSlot;
        bool& held = held_[repeat ? ring : ring - SampleRecord::kRingSlot];
        if (!held) return ring;
        held = false;
        --held_count_;
        return repeat ? static_cast<std::uint16_t>(SampleRecord::kRingSlot + ring) : ring;
    }

    LogVisitor& visitor_;
    std::vector<SampleRecord> batch_;
    std::array<bool, detail::kRingSize> held_{};  // by ring slot
    std::size_t held_count_ = 0;
};

// ... or SampleColumns for on_sample_columns, each hash as a reference
// (SampleColumns says which): the sink follows the ring in references.
class ColumnSink {
public:
    static constexpr bool kKeepsRingHashes = false;  // the visitor keeps what it made of a ring slot
    explicit ColumnSink(LogVisitor& visitor) : visitor_(visitor), columns_(std::make_unique<SampleColumns>()) { restart_ring(); }
    void skip(const Decoded& d) {
        hold(d.input_ring, d.input);
        hold(d.output_ring, d.output);
    }
    void add(const Decoded& d) {
        SampleColumns& c = *columns_;
        const std::size_t i = c.size;
        c.time_ns[i] = d.time_ns;
        c.tracepoint[i] = d.tracepoint;
        c.thread[i] = d.thread_code ? static_cast<std::uint32_t>(d.thread_code - 1) : SampleColumns::kNoThread;
        // The input first: an output "same as input" names the slot the input filled.
        c.input_ref[i] = reference(d.input_ring, d.input);
        c.output_ref[i] = reference(d.output_ring, d.output);
        if (++c.size == SampleColumns::kCapacity) flush();
    }
    void flush() {
        SampleColumns& c = *columns_;
        if (c.size == 0) return;
        for (std::size_t r = 0; r < ring_.size(); ++r) c.ring_end[r] = ring_[r] == kHeld ? static_cast<std::uint16_t>(r) : ring_[r];
        visitor_.on_sample_columns(c);
        c.size = c.literal_count = 0;
        restart_ring();
    }

private:
    static_assert(SampleColumns::kRingSize == detail::kRingSize);
    // In ring_: a held slot, its hash in held_ (no reference is this large).
    static constexpr std::uint16_t kHeld = 0xFFFF;
    static_assert(SampleColumns::kReferences <= kHeld);
    // `ring` as Decoded's; `bytes`, a literal's.
    void hold(std::uint16_t ring, const unsigned char* bytes) {
        if (!SampleRecord::written_in_full(ring)) return;
        const std::size_t slot = ring - SampleRecord::kRingSlot;
        ring_[slot] = kHeld;
        std::memcpy(held_[slot].bytes.data(), bytes, 16);
    }
    // `ring` as Decoded's; `bytes`, a literal's. A repeat of a held slot is
    // written out in full (a sample adds at most two literals either way),
    // which ends the hold, as a literal stored into the slot does.
    std::uint16_t reference(std::uint16_t ring, const unsigned char* bytes) {
        if (ring < SampleRecord::kRingSlot) {
            const std::uint16_t ref = ring_[ring];
            if (ref == kHeld) [[unlikely]]
                return literal(ring, held_[ring].bytes.data());
            return ref;
        }
        if (ring == SampleRecord::kRingNone) return SampleColumns::kNoHash;
        return literal(static_cast<std::uint16_t>(ring - SampleRecord::kRingSlot), bytes);
    }
    std::uint16_t literal(std::uint16_t slot, const unsigned char* bytes) {
        SampleColumns& c = *columns_;
        const auto ref = static_cast<std::uint16_t>(SampleColumns::kFirstLiteral + c.literal_count);
        std::memcpy(c.literals[c.literal_count++].bytes.data(), bytes, 16);
        ring_[slot] = ref;
        return ref;
    }
    // A new batch: each slot holds what it held, entry r of the visitor's
    // table (a held slot stays held: its entry there is not the hash).
    void restart_ring() {
        for (std::size_t r = 0; r < ring_.size(); ++r)
            if (ring_[r] != kHeld) ring_[r] = static_cast<std::uint16_t>(r);
    }

    LogVisitor& visitor_;
    std::unique_ptr<SampleColumns> columns_;  // 120 KiB: not on the stack
    std::array<std::uint16_t, SampleColumns::kRingSize> ring_{};  // the reference each ring slot holds, or kHeld
    std::array<Hash128, SampleColumns::kRingSize> held_;       // the hashes of the held slots
};

// A block's header, as the file's version lays it out (docs/log-formats.md).
struct Block {
    std::size_t at = 0, payload = 0;  // offsets of the header and of the records
    std::size_t end = 0;              // of the next block; the data's end for a block cut short
    std::uint32_t length = 0;
    std::int64_t base_ns = 0;
    bool cut = false;  // the data ends inside its records (the last block, after a crash)
    // The time index (version 3). An older block tells nothing: it may hold
    // any record at any time, so it is always decoded.
    std::int64_t min_ns = INT64_MIN, max_ns = INT64_MAX;
    std::uint32_t samples = 0;
    std::uint32_t flags = detail::kBlockHoldsRecords;
};

// One decoder, two sinks (the template parameter): every check, torn tail
// and error is the same whichever way the samples are delivered.
template <typename Sink>
class BinaryParser {
public:
    BinaryParser(std::string_view data, const std::string& name, LogVisitor& visitor, const ReadOptions& options,
                 const parsers::Consumed& consumed, const parsers::BlockSkipped& indexing)
        : data_(reinterpret_cast<const unsigned char*>(data.data())), size_(data.size()), name_(name),
          visitor_(visitor), options_(options), from_ns_(options.from_ns), to_ns_(options.to_ns),
          skipping_(indexing || !options.whole_range()), indexing_(indexing), sink_(visitor), consumed_(consumed) {
        report_.file = name;
        report_.format = LogFormat::binary;
    }

    ReadReport run() {
        parse_file_header();
        std::size_t pos = file_header_end_;
        while (pos < size_) {
            if (const std::size_t to = jump_from(pos); to != pos) {
                pos = to;
                continue;
            }
            if (size_ - pos < block_header_) {
                torn(pos, "block header cut short");
                break;
            }
            if (std::memcmp(data_ + pos, detail::kBlockMagic, 4) != 0) {
                if (all_zero(pos)) {  // a preallocated or zero-filled tail after a crash
                    torn(pos, "zero bytes instead of a block");
                    break;
                }
                fail(pos, "expected a block marker 'HTBK'");
            }
            const Block block = block_at(pos);
            const bool passed_over = passes_over(block);
            // A block a range read passes over is not checked (its checksum
            // covers its records: checking it is reading it), so that reading
            // a window costs about the blocks in it; index_log checks them all.
            if ((!passed_over || indexing_) && !intact(block)) {
                pos = skip_corrupt_block(pos, block.payload + block.length);
                continue;
            }
            if (passed_over) {
                if (indexing_) {
                    flush();  // the spans in file order
                    indexing_(block.min_ns, block.max_ns, block.samples, block.at, block.end);
                }
            } else {
                const std::size_t stopped = parse_block(block);
                if (block.cut) {
                    torn(stopped, "last block cut short: " + std::to_string(size_ - block.payload) + " of " +
                                      std::to_string(block.length) + " bytes present");
                    break;
                }
                if (stopped != block.end) torn(stopped, "block ends inside a record");
            }
            pos = block.end;
            if (consumed_ && pos - reported_ >= parsers::kConsumedStep) consumed_(reported_ = pos);
        }
        flush();
        return report_;
    }

private:
    std::uint32_t u32(std::size_t at) const {
        std::uint32_t v;
        std::memcpy(&v, data_ + at, 4);
        return v;
    }
    std::uint64_t u64(std::size_t at) const {
        std::uint64_t v;
        std::memcpy(&v, data_ + at, 8);
        return v;
    }
    std::int64_t i64(std::size_t at) const { return static_cast<std::int64_t>(u64(at)); }

    // The header of the block at `pos` (a whole header is there).
    Block block_at(std::size_t pos) const {
        Block b;
        b.at = pos;
        b.length = u32(pos + (checked_ ? detail::kBlockLengthAt : 4));
        b.base_ns = i64(pos + (checked_ ? detail::kBlockBaseTimeAt : 8));
        if (indexed_) {
            b.min_ns = i64(pos + detail::kBlockMinTimeAt);
            b.max_ns = i64(pos + detail::kBlockMaxTimeAt);
            b.samples = u32(pos + detail::kBlockSamplesAt);
            b.flags = u32(pos + detail::kBlockFlagsAt);
        }
        b.payload = pos + block_header_;
        b.cut = b.length > size_ - b.payload;
        b.end = b.cut ? size_ : b.payload + b.length;
        return b;
    }
    // Whether the block's checksum matches. A block cut short (the last,
    // after a crash) cannot be checked: its complete records are read and
    // the tail is reported as torn.
    bool intact(const Block& b) const {
        if (!checked_ || b.cut) return true;
        const std::size_t covered = b.at + detail::kBlockLengthAt;
        return u64(b.at + detail::kBlockChecksumAt) == detail::block_checksum(data_ + covered, b.end - covered);
    }
    // Whether the block is not decoded: it holds samples only (as its time
    // index says), none wanted, and it is whole and followed by a block
    // marker or the end, as its length says (else its header is damaged,
    // and it is checked as in a full read).
    bool passes_over(const Block& b) const {
        if (!skipping_ || b.cut || (b.flags & detail::kBlockHoldsRecords)) return false;
        if (!indexing_ && b.samples != 0 && b.max_ns >= from_ns_ && b.min_ns < to_ns_) return false;
        return block_follows(b.end);
    }
    // Where a range read goes on from the block boundary `pos`: the end of a
    // jump that starts there and ends at a block marker (or the data's end),
    // else `pos`. Jumps behind the read are dropped on the way.
    std::size_t jump_from(std::size_t pos) {
        const auto& jumps = options_.jumps;
        while (next_jump_ < jumps.size() && jumps[next_jump_].at < pos) ++next_jump_;
        if (next_jump_ == jumps.size() || jumps[next_jump_].at != pos) return pos;
        const ByteJump& j = jumps[next_jump_++];
        return j.to > pos && j.to <= size_ && block_follows(j.to) ? j.to : pos;
    }
    // Whether a block marker, or the end of the data, is at `at`.
    bool block_follows(std::size_t at) const {
        return at == size_ || (at < size_ && size_ - at >= 4 && std::memcmp(data_ + at, detail::kBlockMagic, 4) == 0);
    }
    // A block whose checksum does not match: an error naming its offset, or
    // (lenient) counted and skipped. Returns where the next block starts: where
    // its length says, if a block marker (or the end) is there, else at the
    // next block marker.
    std::size_t skip_corrupt_block(std::size_t pos, std::size_t end) {
        bad(pos, "block checksum mismatch: the block is damaged", "block skipped");
        if (block_follows(end)) return end;
        const std::string_view rest(reinterpret_cast<const char*>(data_) + pos + 1, size_ - pos - 1);
        const std::size_t next = rest.find(std::string_view(reinterpret_cast<const char*>(detail::kBlockMagic), 4));
        return next == std::string_view::npos ? size_ : pos + 1 + next;
    }
    bool all_zero(std::size_t from) const {
        for (std::size_t i = from; i < size_; ++i)
            if (data_[i]) return false;
        return true;
    }
    [[noreturn]] void fail(std::size_t offset, const std::string& reason) const {
        throw LogError(name_, offset, "byte offset " + std::to_string(offset) + ": " + reason);
    }
    // A fault at `offset`: an error, or (lenient) counted with the bad
    // records, saying what was skipped for it.
    void bad(std::size_t offset, const std::string& reason, const char* skipped) {
        if (!options_.lenient) fail(offset, reason);
        ++report_.bad_records;
        if (report_.bad_record_messages.size() < 10)
            report_.bad_record_messages.push_back(name_ + ":" + std::to_string(offset) + ": " + reason + " (" + skipped + ")");
    }
    void torn(std::size_t offset, std::string reason) {
        report_.torn = true;
        report_.torn_tail = {offset, size_ - offset, std::move(reason)};
    }

    void parse_file_header() {
        if (size_ < detail::kFileHeaderFixed || std::memcmp(data_, detail::kBinaryMagic, 8) != 0)
            fail(0, "not a hashtrace binary log (bad magic)");
        const std::uint16_t version = static_cast<std::uint16_t>(data_[8] | data_[9] << 8);
        if (version < detail::kOldestBinaryVersion || version > detail::kBinaryVersion)
            fail(8, "format version " + std::to_string(version) + " is not supported (this reader knows " +
                        std::to_string(detail::kOldestBinaryVersion) + " to " + std::to_string(detail::kBinaryVersion) + ")");
        checked_ = version >= 2;
        indexed_ = version >= detail::kFirstIndexedVersion;
        block_header_ = indexed_ ? detail::kBlockHeader : checked_ ? detail::kBlockHeaderV2 : detail::kBlockHeaderV1;
        const std::uint32_t len = u32(12);
        const std::size_t checksum = checked_ ? detail::kFileHeaderChecksum : 0;
        if (len > size_ - detail::kFileHeaderFixed || checksum > size_ - detail::kFileHeaderFixed - len)
            fail(12, "header of " + std::to_string(len) + " bytes runs past the end of the file");
        const std::size_t text_end = detail::kFileHeaderFixed + len;
        if (checked_ && u64(text_end) != detail::block_checksum(data_, text_end))
            fail(text_end, "file header checksum mismatch: the header is damaged");
        const std::string_view text(reinterpret_cast<const char*>(data_ + detail::kFileHeaderFixed), len);
        std::size_t start = 0;
        while (start < text.size()) {
            std::size_t nl = text.find('\n', start);
            if (nl == text.npos) nl = text.size();
            const std::string_view line = text.substr(start, nl - start);
            const std::size_t eq = line.find('=');
            if (eq == line.npos) fail(detail::kFileHeaderFixed + start, "header line without '='");
            header_[std::string(line.substr(0, eq))] = std::string(line.substr(eq + 1));
            start = nl + 1;
        }
        file_header_end_ = text_end + checksum;
        visitor_.on_header(header_);
    }

    // ---- records -----------------------------------------------------------

    // Three or four a sample record. Away from the data's end (all but the
    // last few bytes) a varint's ten bytes are there whatever they hold, so
    // its bytes are read without a bounds check each: the same exits, the
    // same values and errors as get_varint, a third fewer instructions.
    // kInRecord: the caller knows the whole record is there (kLongestSample),
    // so not even that one check is made.
    static constexpr int kMaxVarint = 10;  // 64 bits, 7 a byte
    template <bool kInRecord = false>
    std::uint64_t varint(const unsigned char*& p, const unsigned char* end) {
        constexpr int kMaxBytes = kMaxVarint;
        if (kInRecord || end - p >= kMaxBytes) [[likely]] {
            std::uint64_t v = 0;
#pragma GCC unroll 10
            for (int i = 0; i < kMaxBytes; ++i) {
                const std::uint64_t b = p[i];
                v |= (b & 0x7f) << (7 * i);
                if (!(b & 0x80)) {
                    if (i == kMaxBytes - 1 && b > 1) break;  // beyond 64 bits
                    p += i + 1;
                    return v;
                }
            }
            throw Corrupt{"malformed integer"};
        }
        std::uint64_t v;
        const unsigned char* next = get_varint(p, end, v);
        if (!next) {
            if (end - p >= 10) throw Corrupt{"malformed integer"};
            throw Truncated{};
        }
        p = next;
        return v;
    }
    std::string string(const unsigned char*& p, const unsigned char* end) {
        const std::uint64_t n = varint(p, end);
        if (n > static_cast<std::uint64_t>(end - p)) throw Truncated{};
        std::string s(reinterpret_cast<const char*>(p), n);
        p += n;
        return s;
    }

    // Returns where the hash is in the ring, as SampleRecord::input_ring
    // says; `bytes` is set as Decoded's hashes are, a repeat's to `copy` (the
    // record's output may overwrite the slot of its input).
    template <bool kInRecord>
    std::uint16_t read_hash(unsigned mode, const unsigned char*& p, const unsigned char* end, const unsigned char*& bytes,
                            Hash128& copy) {
        bytes = nullptr;
        if (mode == detail::kHashLiteral) {
            if (!kInRecord && end - p < 16) throw Truncated{};
            bytes = p;
            p += 16;
            const auto stored = static_cast<std::uint16_t>(SampleRecord::kRingSlot + ring_pos_);
            if constexpr (Sink::kKeepsRingHashes) std::memcpy(ring_[ring_pos_].bytes.data(), bytes, 16);
            ring_pos_ = (ring_pos_ + 1) % detail::kRingSize;
            if (ring_used_ < detail::kRingSize) ++ring_used_;
            return stored;
        }
        if (mode == detail::kHashRecent) {
            if (!kInRecord && end - p < 1) throw Truncated{};
            const unsigned slot = *p++;
            if (slot >= ring_used_) throw Corrupt{"reference to an unused recent-hash slot"};
            if constexpr (Sink::kKeepsRingHashes) {
                copy = ring_[slot];
                bytes = copy.bytes.data();
            }
            return static_cast<std::uint16_t>(slot);
        }
        return SampleRecord::kRingNone;
    }

    // Returns where parsing stopped: the block's end, or the start of a record cut short.
    std::size_t parse_block(const Block& b) {
        prev_time_ = b.base_ns;
        have_thread_ = false;
        ring_pos_ = ring_used_ = 0;
        ++block_;
        small_last_seq_.fill(0);
        block_flags_ = b.flags;
        check_times(b);
        const std::uint64_t samples_before = report_.samples + passed_samples_;
        const unsigned char* p = data_ + b.payload;
        const unsigned char* const end = data_ + b.end;
        while (p < end) {
            const unsigned char* record = p;
            try {
                parse_record(p, end);
            } catch (const Truncated&) {
                return static_cast<std::size_t>(record - data_);
            } catch (const Corrupt& c) {
                bad(static_cast<std::size_t>(record - data_), c.reason, "rest of block skipped");
                return b.end;  // records are not self-synchronising: skip to the next block
            }
        }
        check_count(b, report_.samples + passed_samples_ - samples_before);
        return b.end;
    }
    // The time index of a whole block of samples only must hold for its
    // records: reads of a time range and index_log pass over such blocks
    // trusting it. Each sample's time must lie in the index's range (two
    // compares a sample: parse_sample), and the count be the block's. (A
    // range wider than the samples' would only make a window read decode the
    // block in vain.) A block with other records is always decoded: its
    // index is not used.
    bool checks_index(const Block& b) const { return indexed_ && !b.cut && !(b.flags & detail::kBlockHoldsRecords); }
    void check_times(const Block& b) {
        const bool checks = checks_index(b);
        times_min_ = checks ? b.min_ns : INT64_MIN;
        times_max_ = checks ? b.max_ns : INT64_MAX;
    }
    void check_count(const Block& b, std::uint64_t samples) {
        if (samples == b.samples || !checks_index(b)) return;
        bad(b.at, "block header says " + std::to_string(b.samples) + " samples, its records hold " + std::to_string(samples),
            "its samples were read");
    }

    // Inlined into parse_block's loop (a call, with its saving and restoring
    // of registers, cost ~20 instructions a record, an eighth of the
    // reader's); the records other than samples are parsed out of line.
    // A sample record away from the data's end (all but its last
    // kLongestSample bytes) is read without a bounds check a field.
    [[gnu::always_inline]] void parse_record(const unsigned char*& p, const unsigned char* end) {
        const unsigned tag = *p++;
        if (tag < 0x40) [[likely]] {
            if (end - p >= kLongestSample) [[likely]]
                parse_sample<true>(tag, p, end);
            else
                parse_sample_near_end(tag, p, end);
        } else {
            parse_other(tag, p, end);
        }
    }
    // After its tag: four varints (tracepoint, time, thread, sequence) and two hashes written out in full.
    static constexpr std::ptrdiff_t kLongestSample = 4 * kMaxVarint + 2 * 16;
    [[gnu::noinline]] void parse_sample_near_end(unsigned tag, const unsigned char*& p, const unsigned char* end) {
        parse_sample<false>(tag, p, end);
    }

    [[gnu::noinline]] void parse_other(unsigned tag, const unsigned char*& p, const unsigned char* end) {
        // A read of a time range would have passed over this block.
        if (tag >= detail::kTagTracepoint && tag <= detail::kTagLoss && !(block_flags_ & detail::kBlockHoldsRecords))
            throw Corrupt{"record tag " + std::to_string(tag) + " in a block whose header says it holds samples only"};
        switch (tag) {
            case detail::kTagTracepoint: {
                const std::uint64_t index = varint(p, end);
                TracepointInfo tp;
                tp.tracepoint_name = string(p, end);
                tp.input_hash_type = string(p, end);
                tp.output_hash_type = string(p, end);
                if (p == end) throw Truncated{};
                const unsigned fn = *p++;
                tp.node_name = string(p, end);
                tp.instance = string(p, end);
                const unsigned function = fn & ~detail::kTypedHashingBit;
                if (function > 1) throw Corrupt{"unknown hash function code " + std::to_string(fn)};
                if (index != tracepoints_) throw Corrupt{"tracepoint index " + std::to_string(index) + " out of order"};
                tp.hash_function = static_cast<HashFunction>(function);
                tp.typed_hashing = fn & detail::kTypedHashingBit;
                if (tp.node_name.empty()) tp.node_name = header_value("node");
                if (tp.instance.empty()) tp.instance = header_value("instance");
                flush();
                ++tracepoints_;
                stream_drops_.push_back(tp.tracepoint_name == kStreamDropsTracepoint);
                visitor_.on_tracepoint(static_cast<std::uint32_t>(index), tp);
                return;
            }
            case detail::kTagThread: {
                ThreadInfo t;
                t.thread = checked_thread_id(varint(p, end));
                t.os_tid = detail::unzigzag(varint(p, end));
                t.name = string(p, end);
                visitor_.on_thread(t);
                return;
            }
            case detail::kTagDrop: {
                DropRecord d;
                d.tracepoint = checked_tracepoint(varint(p, end));
                d.time_ns = add_delta(detail::unzigzag(varint(p, end)));
                d.count = varint(p, end);
                std::uint64_t& sum = stream_drops_[d.tracepoint] ? report_.stream_dropped : report_.dropped_samples;
                std::uint64_t dropped;
                if (__builtin_add_overflow(sum, d.count, &dropped))
                    throw Corrupt{"drop count " + std::to_string(d.count) + " takes the log's sum of drops past 2^64 - 1"};
                prev_time_ = d.time_ns;
                flush();
                visitor_.on_drop(d);
                ++report_.drop_records;
                sum = dropped;
                return;
            }
            case detail::kTagLoss: {
                LossRecord l;
                l.tracepoint = checked_tracepoint(varint(p, end));
                l.first_time_ns = add_delta(detail::unzigzag(varint(p, end)));
                const std::uint64_t span = varint(p, end);
                if (span > static_cast<std::uint64_t>(INT64_MAX) ||
                    __builtin_add_overflow(l.first_time_ns, static_cast<std::int64_t>(span), &l.last_time_ns))
                    throw Corrupt{"loss record's time span overflows 64-bit nanoseconds"};
                l.count = varint(p, end);
                prev_time_ = l.first_time_ns;
                flush();
                visitor_.on_loss(l);
                ++report_.loss_records;
                report_.lost_samples += l.count;
                return;
            }
            case detail::kTagEnd:
                report_.clean_close = true;
                return;
            default:
                throw Corrupt{"unknown record tag " + std::to_string(tag)};
        }
    }

    // `tag`: a sample record's (below 0x40); kInRecord: the whole record is
    // before `end` (kLongestSample).
    template <bool kInRecord>
    [[gnu::always_inline]] void parse_sample(unsigned tag, const unsigned char*& p, const unsigned char* end) {
        Decoded s;
        s.tracepoint = checked_tracepoint(varint<kInRecord>(p, end));
        s.time_ns = add_delta(detail::unzigzag(varint<kInRecord>(p, end)));
        if (tag & detail::kSampleThreadBit) {
            s.thread_code = varint<kInRecord>(p, end);
            if (s.thread_code) checked_thread_id(s.thread_code - 1);
        } else {
            if (!have_thread_) throw Corrupt{"sample omits its thread before any thread was given"};
            s.thread_code = prev_thread_;
        }
        std::uint64_t& last = last_seq(s.thread_code);
        if (tag & detail::kSampleSeqBit) {
            s.seq_code = varint<kInRecord>(p, end);
        } else {
            if (last == 0) throw Corrupt{"sample omits its sequence number with none to follow"};
            // The code after 2^64 - 1 would wrap to 0, "not recorded".
            if (last == std::numeric_limits<std::uint64_t>::max()) throw Corrupt{"sample's implied sequence number is past 2^64 - 2"};
            s.seq_code = last + 1;
        }
        const unsigned in_mode = tag & 3, out_mode = (tag >> 2) & 3;
        if (in_mode == detail::kHashSameAsInput) throw Corrupt{"input hash cannot be 'same as input'"};
        s.input_ring = read_hash<kInRecord>(in_mode, p, end, s.input, input_copy_);
        if (out_mode == detail::kHashSameAsInput) {
            if (in_mode == detail::kHashNone) throw Corrupt{"output 'same as input' without an input hash"};
            s.output = s.input;
            s.output_ring = s.input_ring % SampleRecord::kRingSlot;  // the input's slot, now
        } else {
            s.output_ring = read_hash<kInRecord>(out_mode, p, end, s.output, output_copy_);
        }
        // Commit state only now that the whole record was there.
        prev_time_ = s.time_ns;
        prev_thread_ = s.thread_code;
        have_thread_ = true;
        last = s.seq_code;
        // Checked here rather than where the time is read: there it cost the
        // reader 5% (the state committed above is the block's, which a
        // corrupt record ends anyway).
        if (s.time_ns < times_min_ || s.time_ns > times_max_) [[unlikely]]
            throw Corrupt{"sample time " + std::to_string(s.time_ns) + " lies outside its block header's time index"};
        if (s.time_ns >= from_ns_ && s.time_ns < to_ns_) [[likely]] {
            sink_.add(s);
            ++report_.samples;
        } else {
            sink_.skip(s);
            ++passed_samples_;
        }
    }

    // A damaged delta must not overflow (undefined behaviour): it is a corrupt record.
    std::int64_t add_delta(std::int64_t delta) const {
        std::int64_t t;
        if (__builtin_add_overflow(prev_time_, delta, &t)) throw Corrupt{"time delta overflows 64-bit nanoseconds"};
        return t;
    }
    // Thread ids are 32-bit everywhere after the reader, and the largest
    // means "no thread" there (SampleColumns::kNoThread): a larger one is refused, not cut.
    static std::uint32_t checked_thread_id(std::uint64_t id) {
        if (id >= SampleColumns::kNoThread)
            throw Corrupt{"thread id " + std::to_string(id) + " is out of range (at most " +
                          std::to_string(SampleColumns::kNoThread - 1) + ")"};
        return static_cast<std::uint32_t>(id);
    }
    std::uint32_t checked_tracepoint(std::uint64_t index) const {
        if (index >= tracepoints_) throw Corrupt{"sample refers to undefined tracepoint " + std::to_string(index)};
        return static_cast<std::uint32_t>(index);
    }
    // A thread's last sequence number + 1, 0 for none yet in the block. Called
    // for every sample: the small thread codes a writer gives (its threads
    // numbered from 0) are looked up directly, not by a search whose exit
    // mispredicts when threads alternate; larger ones in a hash map (a log of
    // many threads was read in quadratic time by a linear search), whose
    // entries of earlier blocks count as none, so that it is not cleared a block.
    std::uint64_t& last_seq(std::uint64_t thread_code) {
        if (thread_code < small_last_seq_.size()) [[likely]]
            return small_last_seq_[thread_code];
        return large_last_seq(thread_code);
    }
    [[gnu::noinline]] std::uint64_t& large_last_seq(std::uint64_t thread_code) {
        LargeLastSeq& entry = large_last_seq_[thread_code];
        if (entry.block != block_) entry = {block_, 0};
        return entry.seq_code;
    }
    std::string header_value(const std::string& key) const {
        auto it = header_.find(key);
        return it == header_.end() ? std::string() : it->second;
    }
    void flush() { sink_.flush(); }

    const unsigned char* data_;
    std::size_t size_;
    const std::string& name_;
    LogVisitor& visitor_;
    const ReadOptions& options_;
    const std::int64_t from_ns_, to_ns_;  // the time range read
    const bool skipping_;                 // blocks may be passed over: a time range, or indexing
    const parsers::BlockSkipped indexing_;  // a copy, as consumed_
    ReadReport report_;
    LogHeader header_;
    std::size_t file_header_end_ = 0;
    std::size_t next_jump_ = 0;  // the first of options_.jumps not behind the read
    // By the file's version: blocks have checksums (2), time indexes (3).
    bool checked_ = true, indexed_ = true;
    std::size_t block_header_ = detail::kBlockHeader;
    // The block being decoded: its flags, and the range its samples' times
    // must lie in (check_times).
    std::uint32_t block_flags_ = detail::kBlockHoldsRecords;
    std::int64_t times_min_ = INT64_MIN, times_max_ = INT64_MAX;
    std::uint64_t passed_samples_ = 0;  // decoded, outside the time range read
    std::uint64_t tracepoints_ = 0;
    std::vector<bool> stream_drops_;  // by tracepoint: kStreamDropsTracepoint, whose drops are the stream's
    std::int64_t prev_time_ = 0;
    std::uint64_t prev_thread_ = 0;
    bool have_thread_ = false;
    std::array<std::uint64_t, 64> small_last_seq_{};  // by thread code
    struct LargeLastSeq {
        std::uint64_t block = 0;  // block_ when seq_code was set
        std::uint64_t seq_code = 0;
    };
    std::unordered_map<std::uint64_t, LargeLastSeq> large_last_seq_;  // larger thread codes
    std::uint64_t block_ = 0;  // blocks begun (entries of block 0 are none)
    std::array<Hash128, detail::kRingSize> ring_{};
    std::size_t ring_pos_ = 0, ring_used_ = 0;
    Hash128 input_copy_, output_copy_;  // see read_hash
    Sink sink_;
    const parsers::Consumed consumed_;  // a copy: the public reader passes a temporary
    std::size_t reported_ = 0;  // last passed to consumed_
};

ReadReport parse(std::string_view data, const std::string& name, LogVisitor& visitor, const ReadOptions& options,
                 const parsers::Consumed& consumed, const parsers::BlockSkipped& indexing) {
    if (visitor.wants_columns()) return BinaryParser<ColumnSink>(data, name, visitor, options, consumed, indexing).run();
    return BinaryParser<RecordSink>(data, name, visitor, options, consumed, indexing).run();
}

}  // namespace

ReadReport read_binary(std::string_view data, const std::string& name, LogVisitor& visitor, const ReadOptions& options) {
    return parse(data, name, visitor, options, nullptr, nullptr);
}

ReadReport parsers::parse_binary(std::string_view data, const std::string& name, LogVisitor& visitor, const ReadOptions& options,
                                 const Consumed& consumed, const BlockSkipped& indexing) {
    return parse(data, name, visitor, options, consumed, indexing);
}

}  // namespace hashtrace::logio
