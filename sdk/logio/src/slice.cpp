#include "hashtrace/logio/slice.hpp"

#include "hashtrace/detail/binary_format.hpp"
#include "hashtrace/logio/reader.hpp"
#include "hashtrace/logio/writer.hpp"

#include <cstring>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

namespace hashtrace::logio {
namespace {

template <typename T>
T load(const char* p) {
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

// The blocks of a format-3 log that the range needs, copied; nullopt when the
// file is not one or is not laid out as its headers say (a damaged or torn
// log is left to the decoding path, which reports it as any reader does).
std::optional<std::uint64_t> copy_blocks(const std::filesystem::path& in, const std::filesystem::path& out, std::int64_t from_ns,
                                         std::int64_t to_ns) {
    std::ifstream file(in, std::ios::binary);
    char fixed[detail::kFileHeaderFixed];
    if (!file.read(fixed, sizeof fixed) || std::memcmp(fixed, detail::kBinaryMagic, 8) != 0 ||
        load<std::uint16_t>(fixed + 8) < detail::kFirstIndexedVersion)
        return std::nullopt;
    const auto size = std::filesystem::file_size(in);
    std::vector<char> bytes(detail::kFileHeaderFixed + load<std::uint32_t>(fixed + 12) + detail::kFileHeaderChecksum);
    std::memcpy(bytes.data(), fixed, sizeof fixed);
    if (bytes.size() > size || !file.read(bytes.data() + sizeof fixed, static_cast<std::streamsize>(bytes.size() - sizeof fixed))) return std::nullopt;
    std::ofstream slice(out, std::ios::binary | std::ios::trunc);
    slice.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    std::uint64_t written = bytes.size();
    for (std::uint64_t pos = bytes.size(); pos < size;) {
        char header[detail::kBlockHeader];
        if (size - pos < sizeof header || !file.seekg(static_cast<std::streamoff>(pos)) || !file.read(header, sizeof header) ||
            std::memcmp(header, detail::kBlockMagic, 4) != 0)
            return std::nullopt;
        const std::uint64_t end = pos + sizeof header + load<std::uint32_t>(header + detail::kBlockLengthAt);
        if (end > size) return std::nullopt;
        const bool records = load<std::uint32_t>(header + detail::kBlockFlagsAt) & detail::kBlockHoldsRecords;
        const bool in_range = load<std::uint32_t>(header + detail::kBlockSamplesAt) != 0 &&
                              load<std::int64_t>(header + detail::kBlockMaxTimeAt) >= from_ns && load<std::int64_t>(header + detail::kBlockMinTimeAt) < to_ns;
        if (records || in_range) {
            bytes.resize(end - pos);
            std::memcpy(bytes.data(), header, sizeof header);
            if (!file.read(bytes.data() + sizeof header, static_cast<std::streamsize>(bytes.size() - sizeof header))) return std::nullopt;
            slice.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
            written += bytes.size();
        }
        pos = end;
    }
    slice.close();
    if (!slice) throw LogError(out.string(), 0, "cannot be written");
    return written;
}

}  // namespace

std::uint64_t slice_log(const std::filesystem::path& in, const std::filesystem::path& out, std::int64_t from_ns, std::int64_t to_ns,
                        bool lenient) {
    if (const auto copied = copy_blocks(in, out, from_ns, to_ns)) return *copied;
    ReadOptions range;
    range.lenient = lenient;
    range.from_ns = from_ns;
    range.to_ns = to_ns;
    write_log(out, LogFormat::binary, load_log(in, range));
    return std::filesystem::file_size(out);
}

}  // namespace hashtrace::logio
