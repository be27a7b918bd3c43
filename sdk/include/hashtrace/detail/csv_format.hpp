// hashtrace/detail/csv_format.hpp - the CSV sample log of docs/spec.md section 1:
// the paper's eight columns, then thread, seq, hash_function and dropped.
// A row whose `dropped` is non-zero is a drop record, not a sample.
#pragma once

#include "hashtrace/detail/binary_format.hpp"  // EncodedTracepoint, EncodedSample
#include "hashtrace/hash128.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace hashtrace::detail {

inline constexpr const char kCsvHeader[] =
    "node_name,instance,tracepoint_name,input_hash_type,output_hash_type,sample_time,input_hash,output_hash,"
    "thread,seq,hash_function,dropped\n";

// Appends the decimal digits of v.
inline void append_uint(ByteBuffer& out, std::uint64_t v) {
    char buf[20];
    int n = 0;
    do {
        buf[n++] = static_cast<char>('0' + v % 10);
        v /= 10;
    } while (v);
    while (n) out.push_back(buf[--n]);
}

// Seconds since the epoch with all nine fractional digits: exact, and still
// a plain decimal that spreadsheets and the paper's readers accept.
inline void append_time(ByteBuffer& out, std::int64_t ns) {
    std::uint64_t mag = ns < 0 ? 0 - static_cast<std::uint64_t>(ns) : static_cast<std::uint64_t>(ns);
    if (ns < 0) out.push_back('-');
    append_uint(out, mag / 1000000000u);
    out.push_back('.');
    std::uint64_t frac = mag % 1000000000u;
    char digits[9];
    for (int i = 8; i >= 0; --i) {
        digits[i] = static_cast<char>('0' + frac % 10);
        frac /= 10;
    }
    out.append(digits, 9);
}

class CsvEncoder {
public:
    CsvEncoder(ByteBuffer& out, std::string node, std::string instance)
        : out_(out), node_(std::move(node)), instance_(std::move(instance)) {}

    void file_header() { out_ += kCsvHeader; }

    void tracepoint(std::uint32_t index, const EncodedTracepoint& tp) {
        if (prefixes_.size() <= index) prefixes_.resize(index + 1);
        std::string& p = prefixes_[index].row_start;
        p.assign(tp.node.empty() ? std::string_view(node_) : tp.node);
        p += ',';
        p += tp.instance.empty() ? std::string_view(instance_) : tp.instance;
        p += ',';
        p += tp.name;
        p += ',';
        p += tp.input_type;
        p += ',';
        p += tp.output_type;
        p += ',';
        prefixes_[index].hash_function = to_string(tp.hash_function);
        if (tp.typed_hashing) prefixes_[index].hash_function += kTypedHashingSuffix;
    }

    void sample(const EncodedSample& s) { row(s.tracepoint, s.time_ns, s.input, s.output, s.has_thread, s.thread, s.has_seq, s.seq, 0); }

    void drop(std::uint32_t tracepoint, std::int64_t time_ns, std::uint64_t count) {
        row(tracepoint, time_ns, nullptr, nullptr, false, 0, false, 0, count);
    }

private:
    struct Prefix {
        std::string row_start;
        std::string hash_function;
    };

    void row(std::uint32_t tp, std::int64_t time_ns, const Hash128* in, const Hash128* out, bool has_thread,
             std::uint32_t thread, bool has_seq, std::uint64_t seq, std::uint64_t dropped) {
        const Prefix& p = prefixes_[tp];
        out_ += p.row_start;
        append_time(out_, time_ns);
        out_.push_back(',');
        append_hash(in);
        out_.push_back(',');
        append_hash(out);
        out_.push_back(',');
        if (has_thread) append_uint(out_, thread);
        out_.push_back(',');
        if (has_seq) append_uint(out_, seq);
        out_.push_back(',');
        out_ += p.hash_function;
        out_.push_back(',');
        if (dropped) append_uint(out_, dropped);
        out_.push_back('\n');
    }

    void append_hash(const Hash128* h) {
        if (!h) return;
        unsigned char* p = out_.room(32);
        to_hex(*h, reinterpret_cast<char*>(p));
        out_.commit(p + 32);
    }

    ByteBuffer& out_;
    std::string node_;
    std::string instance_;
    std::vector<Prefix> prefixes_;
};

}  // namespace hashtrace::detail
