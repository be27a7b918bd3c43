// The CSV sample log reader (docs/spec.md section 1): columns found by header name,
// unknown columns ignored, every field validated, errors with file and line.
#include "hashtrace/detail/binary_format.hpp"
#include "hashtrace/logio/reader.hpp"
#include "parsers.hpp"

#include <array>
#include <cstdio>
#include <string>
#include <unordered_map>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace hashtrace::logio {
namespace {

enum Column : int {
    kNode, kInstance, kTracepoint, kInputType, kOutputType, kTime, kInputHash, kOutputHash,  // required
    kThread, kSeq, kHashFunction, kDropped,                                                    // optional
    kColumnCount
};
constexpr const auto& kColumnNames = parsers::kCsvColumnNames;
static_assert(kColumnNames.size() == kColumnCount);
constexpr int kRequired = kThread;
static_assert(kRequired == parsers::kRequiredCsvColumns);

struct RowError {
    std::string reason;
    std::size_t column = 0;  // 1-based byte in the line; 0: the row as a whole
};

// The first byte of `text` that is NUL or not part of well-formed UTF-8
// (RFC 3629: no overlong form, no surrogate, nothing past U+10FFFF), as an
// index, or npos; `what` says which.
std::size_t first_bad_text_byte(std::string_view text, std::string& what) {
    const auto* p = reinterpret_cast<const unsigned char*>(text.data());
    const std::size_t n = text.size();
    for (std::size_t i = 0; i < n;) {
        const unsigned c = p[i];
        if (c == 0) {
            what = "NUL byte";
            return i;
        }
        if (c < 0x80) {
            ++i;
            continue;
        }
        std::size_t length = 0;
        unsigned second_lo = 0x80, second_hi = 0xBF;
        if (c >= 0xC2 && c <= 0xDF) {
            length = 2;
        } else if (c >= 0xE0 && c <= 0xEF) {
            length = 3;
            if (c == 0xE0) second_lo = 0xA0;  // overlong
            if (c == 0xED) second_hi = 0x9F;  // surrogates
        } else if (c >= 0xF0 && c <= 0xF4) {
            length = 4;
            if (c == 0xF0) second_lo = 0x90;  // overlong
            if (c == 0xF4) second_hi = 0x8F;  // past U+10FFFF
        }
        bool valid = length != 0 && i + length <= n && p[i + 1] >= second_lo && p[i + 1] <= second_hi;
        for (std::size_t k = 2; valid && k < length; ++k) valid = p[i + k] >= 0x80 && p[i + k] <= 0xBF;
        if (!valid) {
            char hex[8];
            std::snprintf(hex, sizeof hex, "0x%02x", c);
            what = std::string("byte ") + hex + " that is not UTF-8";
            return i;
        }
        i += length;
    }
    return std::string_view::npos;
}

bool parse_uint(std::string_view s, std::uint64_t& out) {
    if (s.empty() || s.size() > 20) return false;
    std::uint64_t v = 0;
    for (char c : s) {
        if (c < '0' || c > '9') return false;
        const std::uint64_t next = v * 10 + static_cast<std::uint64_t>(c - '0');
        if (next / 10 != v) return false;
        v = next;
    }
    out = v;
    return true;
}

// from_hex (hash128.hpp) without a branch per digit: the two hash fields are
// most of a row's bytes, and decoding them was a quarter of `hashtrace
// analyze` on CSV logs. Same language: 32 digits, either case. SSE2 (part of
// every x86-64) decodes 16 digits at a time; other targets use a table.
#ifdef __SSE2__
bool decode_hash(std::string_view text, Hash128& out) noexcept {
    if (text.size() != 32) return false;
    for (int half = 0; half < 2; ++half) {
        const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + 16 * half));
        // Byte arithmetic wraps, so exactly '0'..'9' give 0..9 in `digit`
        // and exactly 'a'..'f' / 'A'..'F' give 10..15 in `letter`.
        const __m128i digit = _mm_sub_epi8(c, _mm_set1_epi8('0'));
        const __m128i letter = _mm_sub_epi8(_mm_or_si128(c, _mm_set1_epi8(0x20)), _mm_set1_epi8('a' - 10));
        const __m128i is_digit = _mm_and_si128(_mm_cmpgt_epi8(digit, _mm_set1_epi8(-1)), _mm_cmplt_epi8(digit, _mm_set1_epi8(10)));
        const __m128i is_letter = _mm_and_si128(_mm_cmpgt_epi8(letter, _mm_set1_epi8(9)), _mm_cmplt_epi8(letter, _mm_set1_epi8(16)));
        if (_mm_movemask_epi8(_mm_or_si128(is_digit, is_letter)) != 0xFFFF) return false;
        const __m128i nibbles = _mm_or_si128(_mm_and_si128(is_digit, digit), _mm_and_si128(is_letter, letter));
        // Each 16-bit lane holds a digit pair, the high nibble in its low byte.
        const __m128i pairs = _mm_or_si128(_mm_slli_epi16(_mm_and_si128(nibbles, _mm_set1_epi16(0x00FF)), 4), _mm_srli_epi16(nibbles, 8));
        _mm_storel_epi64(reinterpret_cast<__m128i*>(out.bytes.data() + 8 * half), _mm_packus_epi16(pairs, pairs));
    }
    return true;
}
#else
constexpr std::array<std::uint8_t, 256> kHexValue = [] {
    std::array<std::uint8_t, 256> t{};
    t.fill(0xFF);
    for (int c = '0'; c <= '9'; ++c) t[c] = static_cast<std::uint8_t>(c - '0');
    for (int c = 'a'; c <= 'f'; ++c) t[c] = static_cast<std::uint8_t>(c - 'a' + 10);
    for (int c = 'A'; c <= 'F'; ++c) t[c] = static_cast<std::uint8_t>(c - 'A' + 10);
    return t;
}();

bool decode_hash(std::string_view text, Hash128& out) noexcept {
    if (text.size() != 32) return false;
    std::uint8_t invalid = 0;
    for (int i = 0; i < 16; ++i) {
        const std::uint8_t hi = kHexValue[static_cast<unsigned char>(text[2 * i])];
        const std::uint8_t lo = kHexValue[static_cast<unsigned char>(text[2 * i + 1])];
        invalid |= static_cast<std::uint8_t>(hi | lo);  // 0xFF marks a non-digit; digits are < 16
        out.bytes[i] = static_cast<std::uint8_t>(hi << 4 | (lo & 0xF));
    }
    return invalid < 16;
}
#endif

class CsvParser {
public:
    CsvParser(std::string_view data, const std::string& name, LogVisitor& visitor, const ReadOptions& options,
              const parsers::Consumed& consumed)
        : data_(data), name_(name), visitor_(visitor), options_(options), consumed_(consumed) {
        report_.file = name;
    }

    ReadReport run() {
        std::size_t pos = 0;
        std::uint64_t line = 0;
        bool header_done = false;
        while (pos < data_.size()) {
            const std::size_t nl = data_.find('\n', pos);
            const bool complete = nl != std::string_view::npos;
            std::string_view text = data_.substr(pos, (complete ? nl : data_.size()) - pos);
            const std::size_t line_start = pos;
            pos = complete ? nl + 1 : data_.size();
            ++line;
            if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
            if (!header_done) {
                parse_header(text, line);
                header_done = true;
                continue;
            }
            if (consumed_ && pos - reported_ >= parsers::kConsumedStep) consumed_(reported_ = line_start);
            if (text.empty()) continue;
            try {
                parse_row(text);
            } catch (const RowError& e) {
                if (!complete) {  // a crash tore the last line: not an error, report it
                    report_.torn = true;
                    report_.torn_tail = {line_start, data_.size() - line_start,
                                         "line " + std::to_string(line) + " is incomplete (" + e.reason + ")"};
                    break;
                }
                LogError error(name_, line, e.column, e.reason);
                if (!options_.lenient) throw error;
                ++report_.bad_records;
                if (report_.bad_record_messages.size() < 10) report_.bad_record_messages.push_back(error.what());
            }
        }
        if (!header_done) throw LogError(name_, 1, "empty file: expected a CSV header row");
        flush();
        return report_;
    }

private:
    void parse_header(std::string_view text, std::uint64_t line) {
        std::string what;
        if (const std::size_t bad = first_bad_text_byte(text, what); bad != std::string_view::npos)
            throw LogError(name_, line, bad + 1, "header has a " + what + " (a log is UTF-8 text)");
        position_.fill(-1);
        int index = 0;
        for (std::size_t start = 0;; ++index) {
            const std::size_t comma = text.find(',', start);
            const std::string_view field = text.substr(start, comma == std::string_view::npos ? text.npos : comma - start);
            header_names_.emplace_back(field);
            for (int c = 0; c < kColumnCount; ++c) {
                if (field != kColumnNames[c]) continue;
                if (position_[c] >= 0) throw LogError(name_, line, "column '" + std::string(field) + "' appears twice");
                position_[c] = index;
            }
            if (comma == std::string_view::npos) break;
            start = comma + 1;
        }
        columns_ = index + 1;
        for (int c = 0; c < kRequired; ++c)
            if (position_[c] < 0)
                throw LogError(name_, line, "missing required column '" + std::string(kColumnNames[c]) +
                                                "' (the header must name node_name, instance, tracepoint_name, "
                                                "input_hash_type, output_hash_type, sample_time, input_hash, output_hash)");
        fields_.resize(columns_);
    }

    // The row's fields at its commas, found 16 bytes at a time where SSE2 is
    // available (one call per field to find() cost more than the scan). The
    // same pass notes a NUL or non-ASCII byte, for check_text.
    void split(std::string_view text) {
        row_ = text;
        unusual_bytes_ = false;
        int n = 0;
        std::size_t start = 0;
        auto field_ends_at = [&](std::size_t comma) {
            if (n == columns_) throw RowError{"more fields than the header's " + std::to_string(columns_)};
            fields_[n++] = text.substr(start, comma - start);
            start = comma + 1;
        };
        std::size_t i = 0;
#ifdef __SSE2__
        // A byte's top bit set when it is NUL or not ASCII, gathered over the
        // row and tested once; the tail as the last 16 bytes (overlapping the loop's).
        auto unusual = [](__m128i bytes) { return _mm_or_si128(bytes, _mm_cmpeq_epi8(bytes, _mm_setzero_si128())); };
        __m128i unusual_seen = _mm_setzero_si128();
        if (text.size() >= 16)
            unusual_seen = unusual(_mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + text.size() - 16)));
        for (; i + 16 <= text.size(); i += 16) {
            const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + i));
            unusual_seen = _mm_or_si128(unusual_seen, unusual(bytes));
            for (unsigned commas = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(bytes, _mm_set1_epi8(',')))); commas;
                 commas &= commas - 1)
                field_ends_at(i + static_cast<std::size_t>(__builtin_ctz(commas)));
        }
        unusual_bytes_ = _mm_movemask_epi8(unusual_seen) != 0;
        if (text.size() < 16)
#endif
            for (std::size_t k = i; k < text.size(); ++k) unusual_bytes_ |= text[k] == 0 || static_cast<unsigned char>(text[k]) >= 0x80;
        for (; i < text.size(); ++i)
            if (text[i] == ',') field_ends_at(i);
        field_ends_at(text.size());
        if (n != columns_)
            throw RowError{"expected " + std::to_string(columns_) + " fields, found " + std::to_string(n)};
    }

    std::string_view field(Column c) const { return position_[c] < 0 ? std::string_view{} : fields_[position_[c]]; }

    // An error in field `c` of the row split last, at the field's column.
    [[noreturn, gnu::cold, gnu::noinline]] void field_error(Column c, std::string reason) const {
        const std::string_view f = field(c);
        throw RowError{std::move(reason), f.data() ? static_cast<std::size_t>(f.data() - row_.data()) + 1 : 0};
    }

    // docs/spec.md section 1: a log is UTF-8 text. Only a row with a NUL or non-ASCII byte (split says) is checked byte by byte.
    [[gnu::cold, gnu::noinline]] void check_text() const {
        std::string what;
        const std::size_t bad = first_bad_text_byte(row_, what);
        if (bad == std::string_view::npos) return;
        std::size_t field = 0;
        for (std::size_t i = 0; i < bad; ++i) field += row_[i] == ',';
        throw RowError{"field '" + header_names_[field] + "' has a " + what + " (a log is UTF-8 text)", bad + 1};
    }

    void parse_hash(Column c, Hash128& out, bool& present) {
        const std::string_view f = field(c);
        present = !f.empty();
        if (present && !decode_hash(f, out)) field_error(c, std::string(kColumnNames[c]) + " '" + std::string(f) + "' is not 32 hex digits");
    }

    // Rows name their tracepoint in full. A log has a handful, so the row's
    // fields are first compared with the definitions seen (up to kKnown of
    // them) before a key is built and hashed for the map, which serves any
    // number.
    std::uint32_t tracepoint_index(HashFunction fn, bool typed) {
        // The tracepoint name first: a file's tracepoints mostly share node and instance.
        constexpr Column kKeyColumns[] = {kTracepoint, kInputType, kOutputType, kNode, kInstance};
        for (const Known& k : known_) {
            bool same = k.function == fn && k.typed == typed;
            for (int i = 0; i < 5 && same; ++i) same = field(kKeyColumns[i]) == k.fields[i];
            if (same) return k.index;
        }
        key_.clear();
        for (Column c : kKeyColumns) {
            key_ += field(c);
            key_.push_back('\0');
        }
        key_.push_back(static_cast<char>(static_cast<unsigned>(fn) | (typed ? detail::kTypedHashingBit : 0)));
        auto [it, inserted] = tracepoints_.try_emplace(key_, static_cast<std::uint32_t>(tracepoints_.size()));
        if (inserted) {
            flush();  // samples of earlier tracepoints go out before the new definition
            visitor_.on_tracepoint(it->second, {std::string(field(kNode)), std::string(field(kInstance)),
                                                std::string(field(kTracepoint)), std::string(field(kInputType)),
                                                std::string(field(kOutputType)), fn, typed});
            if (known_.size() < kKnown) {
                Known& k = known_.emplace_back(Known{{}, fn, typed, it->second});
                for (int i = 0; i < 5; ++i) k.fields[i] = field(kKeyColumns[i]);
            }
        }
        return it->second;
    }

    void parse_row(std::string_view text) {
        split(text);
        if (unusual_bytes_) check_text();
        if (field(kNode).empty()) field_error(kNode, "node_name is empty");
        if (field(kInstance).empty()) field_error(kInstance, "instance is empty (docs/spec.md section 1: decimal or hex text naming the process run)");
        if (field(kTracepoint).empty()) field_error(kTracepoint, "tracepoint_name is empty");
        SampleRecord s;
        if (!parse_time_ns(field(kTime), s.time_ns))
            field_error(kTime, "sample_time '" + std::string(field(kTime)) + "' is not decimal seconds with at most 9 fractional digits");
        HashFunction fn = HashFunction::md5;
        std::string_view function = field(kHashFunction);
        const bool typed = function.size() > detail::kTypedHashingSuffix.size() &&
                           function.substr(function.size() - detail::kTypedHashingSuffix.size()) == detail::kTypedHashingSuffix;
        if (typed) function.remove_suffix(detail::kTypedHashingSuffix.size());
        if (!parse_hash_function(function, fn))
            field_error(kHashFunction, "unknown hash_function '" + std::string(field(kHashFunction)) + "'");
        bool has_in = false, has_out = false;
        parse_hash(kInputHash, s.input_hash, has_in);
        parse_hash(kOutputHash, s.output_hash, has_out);
        std::uint64_t v = 0;
        if (!field(kThread).empty()) {
            // The largest 32-bit id means "no thread" after reading (SampleColumns::kNoThread).
            if (!parse_uint(field(kThread), v) || v >= SampleColumns::kNoThread)
                field_error(kThread, "thread '" + std::string(field(kThread)) + "' is not an integer id from 0 to " +
                                         std::to_string(SampleColumns::kNoThread - 1));
            s.thread = static_cast<std::uint32_t>(v);
            s.flags |= SampleRecord::kHasThread;
        }
        if (!field(kSeq).empty()) {
            if (!parse_uint(field(kSeq), s.seq)) field_error(kSeq, "seq '" + std::string(field(kSeq)) + "' is not a 64-bit unsigned integer");
            s.flags |= SampleRecord::kHasSeq;
        }
        std::uint64_t dropped = 0;
        if (!field(kDropped).empty() && !parse_uint(field(kDropped), dropped))
            field_error(kDropped, "dropped '" + std::string(field(kDropped)) + "' is not a 64-bit unsigned integer");
        std::uint64_t& sum = field(kTracepoint) == kStreamDropsTracepoint ? report_.stream_dropped : report_.dropped_samples;
        std::uint64_t dropped_sum;
        if (__builtin_add_overflow(sum, dropped, &dropped_sum))
            field_error(kDropped, "dropped " + std::to_string(dropped) + " takes the log's sum of drops past 2^64 - 1");
        s.tracepoint = tracepoint_index(fn, typed);
        if (dropped > 0) {
            flush();
            visitor_.on_drop({s.time_ns, s.tracepoint, dropped});
            ++report_.drop_records;
            sum = dropped_sum;
            return;
        }
        if (!options_.wants(s.time_ns)) return;  // outside the time range read: checked, not delivered
        if (has_in) s.flags |= SampleRecord::kHasInput;
        if (has_out) s.flags |= SampleRecord::kHasOutput;
        batch_.push_back(s);
        ++report_.samples;
        if (batch_.size() == 4096) flush();
    }

    void flush() {
        if (batch_.empty()) return;
        visitor_.on_samples(batch_);
        batch_.clear();
    }

    std::string_view data_;
    const std::string& name_;
    LogVisitor& visitor_;
    const ReadOptions& options_;
    ReadReport report_;
    std::array<int, kColumnCount> position_{};
    int columns_ = 0;
    std::vector<std::string> header_names_;  // each field's, in order
    std::vector<std::string_view> fields_;
    std::string_view row_;  // the row split last
    bool unusual_bytes_ = false;  // it has a NUL or non-ASCII byte
    std::string key_;
    std::unordered_map<std::string, std::uint32_t> tracepoints_;
    struct Known {
        std::array<std::string, 5> fields;  // in kKeyColumns order
        HashFunction function;
        bool typed;
        std::uint32_t index;
    };
    static constexpr std::size_t kKnown = 16;
    std::vector<Known> known_;
    std::vector<SampleRecord> batch_;
    const parsers::Consumed consumed_;  // a copy: the public reader passes a temporary
    std::size_t reported_ = 0;  // last passed to consumed_
};

}  // namespace

ReadReport read_csv(std::string_view data, const std::string& name, LogVisitor& visitor, const ReadOptions& options) {
    return CsvParser(data, name, visitor, options, nullptr).run();
}

ReadReport parsers::parse_csv(std::string_view data, const std::string& name, LogVisitor& visitor, const ReadOptions& options,
                          const Consumed& consumed) {
    return CsvParser(data, name, visitor, options, consumed).run();
}

}  // namespace hashtrace::logio
