#include "hashtrace/logio/block_stream.hpp"

#include "hashtrace/detail/binary_format.hpp"

#include <cstring>

namespace hashtrace::logio {
namespace {

namespace fmt = hashtrace::detail;

template <class T>
T load(const std::string& bytes, std::size_t at) {
    T v;
    std::memcpy(&v, bytes.data() + at, sizeof v);  // the format is little-endian, as are the machines it runs on
    return v;
}

// The header's lines, read by the block decoder itself from the header alone.
struct HeaderOnly : LogVisitor {
    LogHeader header;
    void on_header(const LogHeader& h) override { header = h; }
    void on_samples(std::span<const SampleRecord>) override {}
};

}  // namespace

bool BlockStream::take_header() {
    if (pending_.size() < fmt::kFileHeaderFixed) return false;
    if (std::memcmp(pending_.data(), fmt::kBinaryMagic, sizeof fmt::kBinaryMagic) != 0)
        throw LogError(name_, 0, "not a binary hashtrace log (no \\x89HTLOG magic): refused");
    const auto version = load<std::uint16_t>(pending_, 8);
    if (version != fmt::kBinaryVersion)
        throw LogError(name_, 0, "log format version " + std::to_string(version) + ": a stream must be version " +
                                     std::to_string(fmt::kBinaryVersion) + ", refused");
    const auto text = load<std::uint32_t>(pending_, 12);
    if (text > kMaxBlockBytes) throw LogError(name_, 12, "a file header of " + std::to_string(text) + " bytes: refused");
    const std::size_t whole = fmt::kFileHeaderFixed + text + fmt::kFileHeaderChecksum;
    if (pending_.size() < whole) return false;
    if (fmt::block_checksum(pending_.data(), whole - fmt::kFileHeaderChecksum) != load<std::uint64_t>(pending_, whole - fmt::kFileHeaderChecksum))
        throw LogError(name_, 0, "the file header's checksum does not match: refused");
    header_bytes_ = pending_.substr(0, whole);
    HeaderOnly decoded;
    read_binary(header_bytes_, name_, decoded);
    header_ = decoded.header;
    pending_.erase(0, whole);
    offset_ += whole;
    return true;
}

bool BlockStream::take_block(std::vector<StreamBlock>& out) {
    if (pending_.size() < fmt::kBlockHeader) return false;
    if (std::memcmp(pending_.data(), fmt::kBlockMagic, sizeof fmt::kBlockMagic) != 0)
        throw LogError(name_, offset_, "no block marker where a block starts: the stream is damaged");
    const auto payload = load<std::uint32_t>(pending_, fmt::kBlockLengthAt);
    if (payload > kMaxBlockBytes) throw LogError(name_, offset_, "a block of " + std::to_string(payload) + " bytes: refused");
    const std::size_t whole = fmt::kBlockHeader + payload;
    if (pending_.size() < whole) return false;
    const std::size_t covered = fmt::kBlockChecksumAt + 8;
    if (fmt::block_checksum(pending_.data() + covered, whole - covered) != load<std::uint64_t>(pending_, fmt::kBlockChecksumAt))
        throw LogError(name_, offset_, "the block's checksum does not match: the stream is damaged");
    StreamBlock b;
    b.min_ns = load<std::int64_t>(pending_, fmt::kBlockMinTimeAt);
    b.max_ns = load<std::int64_t>(pending_, fmt::kBlockMaxTimeAt);
    b.samples = load<std::uint32_t>(pending_, fmt::kBlockSamplesAt);
    b.holds_records = (load<std::uint32_t>(pending_, fmt::kBlockFlagsAt) & fmt::kBlockHoldsRecords) != 0;
    b.bytes = pending_.substr(0, whole);
    pending_.erase(0, whole);
    offset_ += whole;
    out.push_back(std::move(b));
    return true;
}

std::vector<StreamBlock> BlockStream::feed(std::string_view bytes) {
    pending_.append(bytes);
    std::vector<StreamBlock> out;
    if (!has_header() && !take_header()) return out;
    while (take_block(out)) {}
    return out;
}

}  // namespace hashtrace::logio
