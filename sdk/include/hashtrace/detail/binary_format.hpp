// hashtrace/detail/binary_format.hpp - the compact binary log (.htlog):
// constants and the encoder. The reader is in the logio library; the full
// description is docs/log-formats.md. Change nothing here without bumping
// kBinaryVersion.
//
// Why blocks: each flush of the writer is one block whose state (time base,
// recent-hash ring, implied thread and sequence) starts afresh. A crash can
// only tear the last block, and a reader keeps every complete record of it.
// Since version 2 each block and the file header carry an XXH3-64 checksum
// (cheaper on the writer than CRC32C: docs/benchmarks.md), so a damaged block
// is reported, never read as data. Since version 3 each block header also
// carries the block's time index (its samples' smallest and largest time,
// their count, whether it holds other records), so a reader of a time window
// passes over the blocks outside it without decoding them.
#pragma once

#include "hashtrace/detail/byte_buffer.hpp"
#include "hashtrace/detail/varint.hpp"
#include "hashtrace/hash128.hpp"

#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hashtrace::detail {

inline constexpr unsigned char kBinaryMagic[8] = {0x89, 'H', 'T', 'L', 'O', 'G', '\r', '\n'};
inline constexpr std::uint16_t kBinaryVersion = 3;   // what the writer writes
inline constexpr std::uint16_t kOldestBinaryVersion = 1;  // readers still read versions 1 (no checksums) and 2 (no time index)
inline constexpr std::uint16_t kFirstIndexedVersion = 3;  // block headers carry the time index
inline constexpr unsigned char kBlockMagic[4] = {'H', 'T', 'B', 'K'};
inline constexpr std::size_t kFileHeaderFixed = 16;  // magic, u16 version, u16 flags, u32 header length
// Version 3: magic, u64 checksum, u32 payload length, i64 base time, then the
// time index: i64 smallest and i64 largest sample time, u32 samples, u32
// flags; the checksum covers everything after it, the payload included.
// Version 2 ends its header at the base time; version 1 has no checksum:
// magic, u32 payload length, i64 base time.
inline constexpr std::size_t kBlockHeader = 48;
inline constexpr std::size_t kBlockHeaderV2 = 24;
inline constexpr std::size_t kBlockHeaderV1 = 16;
inline constexpr std::size_t kBlockChecksumAt = 4, kBlockLengthAt = 12, kBlockBaseTimeAt = 16;
inline constexpr std::size_t kBlockMinTimeAt = 24, kBlockMaxTimeAt = 32, kBlockSamplesAt = 40, kBlockFlagsAt = 44;
// A block's flag: it holds records other than samples (tracepoint
// definitions, threads, drops, losses, the end), which a reader must not pass
// over: later blocks use the definitions, and the totals count the drops.
inline constexpr std::uint32_t kBlockHoldsRecords = 1;
// The time index of a block without samples.
inline constexpr std::int64_t kNoSampleMin = std::numeric_limits<std::int64_t>::max();
inline constexpr std::int64_t kNoSampleMax = std::numeric_limits<std::int64_t>::min();
inline constexpr std::size_t kFileHeaderChecksum = 8;  // since version 2: XXH3-64 of the header, after its text

inline std::uint64_t block_checksum(const void* p, std::size_t n) noexcept { return XXH3_64bits(p, n); }

// Record tags. A tag below 0x80 is a sample whose bits say how it is coded.
enum : unsigned char {
    kTagTracepoint = 0x80,
    kTagDrop = 0x81,
    kTagThread = 0x82,
    kTagEnd = 0x83,  // the writer closed the log normally
    kTagLoss = 0x84,  // samples the writer could not save (a full disk)
};
enum HashMode : unsigned {
    kHashNone = 0,
    kHashLiteral = 1,  // 16 bytes follow
    kHashRecent = 2,   // 1 byte: a slot of the recent-hash ring
    kHashSameAsInput = 3,  // output only
};
inline constexpr unsigned kSampleThreadBit = 0x10;  // a thread varint follows (else: the previous sample's)
inline constexpr unsigned kSampleSeqBit = 0x20;     // a seq varint follows (else: that thread's previous + 1)
inline constexpr std::size_t kRingSize = 256;
// Typed hashing (each label's canonical bytes hashed before the state): a bit
// of a tracepoint record's hash-function byte, and a suffix of CSV's
// hash_function column, which docs/spec.md section 1 lets name any function ("md5+typed").
inline constexpr unsigned kTypedHashingBit = 0x80;
inline constexpr std::string_view kTypedHashingSuffix = "+typed";

struct EncodedTracepoint {
    std::string_view node;      // empty: the header's node
    std::string_view instance;  // empty: the header's instance
    std::string_view name;
    std::string_view input_type;
    std::string_view output_type;
    HashFunction hash_function;
    bool typed_hashing = false;
};

struct EncodedSample {
    std::int64_t time_ns;
    const Hash128* input;   // nullptr: none
    const Hash128* output;  // nullptr: none
    std::uint32_t tracepoint;
    bool has_thread;
    std::uint32_t thread;
    bool has_seq;
    std::uint64_t seq;
};

inline void put_u16(ByteBuffer& out, std::uint16_t v) {
    out.push_back(static_cast<char>(v));
    out.push_back(static_cast<char>(v >> 8));
}
inline void put_u32(ByteBuffer& out, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>(v >> (8 * i)));
}
inline void put_u64(ByteBuffer& out, std::uint64_t v) {
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>(v >> (8 * i)));
}
inline void store_u32(unsigned char* p, std::uint32_t v) noexcept {
    for (int i = 0; i < 4; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}
inline void store_u64(unsigned char* p, std::uint64_t v) noexcept {
    for (int i = 0; i < 8; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}

class BinaryEncoder {
public:
    explicit BinaryEncoder(ByteBuffer& out) : out_(out) {}

    void file_header(const std::vector<std::pair<std::string, std::string>>& fields) {
        const std::size_t start = out_.size();
        out_.append(kBinaryMagic, 8);
        put_u16(out_, kBinaryVersion);
        put_u16(out_, 0);
        std::string text;
        for (const auto& [k, v] : fields) text += k + "=" + v + "\n";
        put_u32(out_, static_cast<std::uint32_t>(text.size()));
        out_ += text;
        put_u64(out_, block_checksum(out_.at(start), out_.size() - start));
    }

    bool in_block() const noexcept { return block_start_ != npos; }

    void begin_block(std::int64_t base_time_ns) {
        block_start_ = out_.size();
        out_.append(kBlockMagic, 4);
        put_u64(out_, 0);  // checksum and length: patched by end_block
        put_u32(out_, 0);
        put_u64(out_, static_cast<std::uint64_t>(base_time_ns));
        put_u64(out_, 0);  // the time index: patched by end_block
        put_u64(out_, 0);
        put_u32(out_, 0);
        put_u32(out_, 0);
        min_time_ = kNoSampleMin;
        max_time_ = kNoSampleMax;
        samples_ = 0;
        flags_ = 0;
        prev_time_ = base_time_ns;
        prev_thread_ = 0;
        have_prev_thread_ = false;
        ring_pos_ = 0;
        for (auto& slot : lookup_) slot = kEmptySlot;
        last_seq_.clear();
    }

    void end_block() {
        unsigned char* const header = out_.at(block_start_);
        store_u32(header + kBlockLengthAt, static_cast<std::uint32_t>(out_.size() - block_start_ - kBlockHeader));
        store_u64(header + kBlockMinTimeAt, static_cast<std::uint64_t>(min_time_));
        store_u64(header + kBlockMaxTimeAt, static_cast<std::uint64_t>(max_time_));
        store_u32(header + kBlockSamplesAt, samples_);
        store_u32(header + kBlockFlagsAt, flags_);
        const std::size_t covered = block_start_ + kBlockLengthAt;
        store_u64(header + kBlockChecksumAt, block_checksum(out_.at(covered), out_.size() - covered));
        block_start_ = npos;
    }

    void tracepoint(std::uint32_t index, const EncodedTracepoint& tp) {
        flags_ |= kBlockHoldsRecords;
        unsigned char* p = reserve(1 + 10);
        *p++ = kTagTracepoint;
        p = put_varint(p, index);
        commit(p);
        put_string(tp.name);
        put_string(tp.input_type);
        put_string(tp.output_type);
        out_.push_back(static_cast<char>(static_cast<unsigned>(tp.hash_function) | (tp.typed_hashing ? kTypedHashingBit : 0)));
        put_string(tp.node);
        put_string(tp.instance);
    }

    void thread(std::uint32_t id, std::int64_t os_tid, std::string_view name) {
        flags_ |= kBlockHoldsRecords;
        unsigned char* p = reserve(1 + 10 + 10);
        *p++ = kTagThread;
        p = put_varint(p, id);
        p = put_varint(p, zigzag(os_tid));
        commit(p);
        put_string(name);
    }

    void drop(std::uint32_t tracepoint, std::int64_t time_ns, std::uint64_t count) {
        flags_ |= kBlockHoldsRecords;
        unsigned char* p = reserve(1 + 30);
        *p++ = kTagDrop;
        p = put_varint(p, tracepoint);
        p = put_varint(p, zigzag(time_ns - prev_time_));
        prev_time_ = time_ns;
        p = put_varint(p, count);
        commit(p);
    }

    void loss(std::uint32_t tracepoint, std::int64_t first_ns, std::int64_t last_ns, std::uint64_t count) {
        flags_ |= kBlockHoldsRecords;
        unsigned char* p = reserve(1 + 40);
        *p++ = kTagLoss;
        p = put_varint(p, tracepoint);
        p = put_varint(p, zigzag(first_ns - prev_time_));
        prev_time_ = first_ns;
        p = put_varint(p, static_cast<std::uint64_t>(last_ns - first_ns));
        p = put_varint(p, count);
        commit(p);
    }

    void end_marker() {
        flags_ |= kBlockHoldsRecords;
        out_.push_back(static_cast<char>(kTagEnd));
    }

    void sample(const EncodedSample& s) {
        unsigned char* const start = reserve(1 + 4 * 10 + 2 * 17);
        unsigned char* p = start + 1;
        unsigned tag = 0;
        p = put_varint(p, s.tracepoint);
        p = put_varint(p, zigzag(s.time_ns - prev_time_));
        prev_time_ = s.time_ns;
        // The block's time index: two compares a sample.
        if (s.time_ns < min_time_) min_time_ = s.time_ns;
        if (s.time_ns > max_time_) max_time_ = s.time_ns;
        ++samples_;
        // thread: 0 = none, else id + 1; omitted when equal to the previous sample's
        const std::uint64_t thread_code = s.has_thread ? std::uint64_t{s.thread} + 1 : 0;
        if (!have_prev_thread_ || thread_code != prev_thread_) {
            tag |= kSampleThreadBit;
            p = put_varint(p, thread_code);
            prev_thread_ = thread_code;
            have_prev_thread_ = true;
        }
        // seq: 0 = none, else seq + 1; omitted when it is this thread's previous + 1
        const std::uint64_t seq_code = s.has_seq ? s.seq + 1 : 0;
        std::uint64_t& last = last_seq_of(thread_code);
        if (!(seq_code != 0 && last != 0 && seq_code == last + 1)) {
            tag |= kSampleSeqBit;
            p = put_varint(p, seq_code);
        }
        last = seq_code;
        tag |= put_hash(p, s.input);
        if (s.output && s.input && *s.output == *s.input) {
            tag |= kHashSameAsInput << 2;
        } else {
            tag |= put_hash(p, s.output) << 2;
        }
        *start = static_cast<unsigned char>(tag);
        commit(p);
    }

private:
    static constexpr std::size_t npos = static_cast<std::size_t>(-1);
    static constexpr std::uint16_t kEmptySlot = 0xffff;
    static constexpr std::size_t kLookupSize = 4096;  // direct-mapped index of the ring's contents

    unsigned char* reserve(std::size_t n) { return out_.room(n); }
    void commit(unsigned char* end) { out_.commit(end); }

    void put_string(std::string_view s) {
        unsigned char len[10];
        unsigned char* e = put_varint(len, s.size());
        out_.append(len, static_cast<std::size_t>(e - len));
        out_.append(s);
    }

    std::uint64_t& last_seq_of(std::uint64_t thread_code) {
        for (auto& [t, seq] : last_seq_)
            if (t == thread_code) return seq;
        last_seq_.emplace_back(thread_code, 0);
        return last_seq_.back().second;
    }

    // Writes a hash as a ring reference when it was seen recently in this
    // block (message ids pass several tracepoints of one process), else
    // literally. The index into the ring is direct-mapped and checked against
    // the ring's content: no probing, and no deletion when the ring wraps (an
    // entry whose ring slot was reused simply fails the check). A collision
    // costs a literal where a reference was possible - rare with 16 index
    // slots per ring slot - never a wrong reference.
    unsigned put_hash(unsigned char*& p, const Hash128* h) {
        if (!h) return kHashNone;
        std::uint16_t& entry = lookup_[h->prefix64() & (kLookupSize - 1)];
        if (entry != kEmptySlot && ring_[entry] == *h) {
            *p++ = static_cast<unsigned char>(entry);
            return kHashRecent;
        }
        std::memcpy(p, h->bytes.data(), 16);
        p += 16;
        ring_[ring_pos_] = *h;
        entry = static_cast<std::uint16_t>(ring_pos_);
        ring_pos_ = (ring_pos_ + 1) % kRingSize;
        return kHashLiteral;
    }

    ByteBuffer& out_;
    std::size_t block_start_ = npos;
    // The open block's time index (end_block writes it into its header).
    std::int64_t min_time_ = kNoSampleMin, max_time_ = kNoSampleMax;
    std::uint32_t samples_ = 0;
    std::uint32_t flags_ = 0;
    std::int64_t prev_time_ = 0;
    std::uint64_t prev_thread_ = 0;
    bool have_prev_thread_ = false;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> last_seq_;  // thread code -> last seq code
    std::array<Hash128, kRingSize> ring_{};
    std::size_t ring_pos_ = 0;
    std::array<std::uint16_t, kLookupSize> lookup_{};
};

}  // namespace hashtrace::detail
