// The stream's framing: a node's bytes in any pieces give the same whole
// blocks, which are the log's bytes; damage and foreign streams are refused.
#include "hashtrace/logio/block_stream.hpp"

#include "node_logs.hpp"

#include <gtest/gtest.h>

namespace hashtrace::live::testing {
namespace {

std::vector<TestSample> producer_samples(int n) {
    std::vector<TestSample> s;
    for (int k = 0; k < n; ++k) s.push_back({1'000'000'000 + k * 1'000'000, std::nullopt, std::uint64_t(k)});
    return s;
}

struct Fed {
    std::vector<logio::StreamBlock> blocks;
    std::string joined;  // header and blocks, as the stream had them
};

Fed feed_in_pieces(const std::string& bytes, std::size_t piece) {
    logio::BlockStream stream("test");
    Fed out;
    for (std::size_t at = 0; at < bytes.size(); at += piece)
        for (auto& b : stream.feed(std::string_view(bytes).substr(at, piece))) out.blocks.push_back(std::move(b));
    out.joined = stream.header_bytes();
    for (const auto& b : out.blocks) out.joined += b.bytes;
    EXPECT_EQ(stream.pending_bytes(), 0u);
    EXPECT_EQ(stream.offset(), bytes.size());
    return out;
}

TEST(BlockStream, AnyPiecesGiveTheLogsBlocksAndTheirTimeIndex) {
    const std::string log = node_log("A", "Send", producer_samples(100), 30);
    const Fed whole = feed_in_pieces(log, log.size());
    ASSERT_GE(whole.blocks.size(), 4u);  // 30 + 30 + 30 + 10 samples, and the definitions
    EXPECT_EQ(whole.joined, log);
    std::uint32_t samples = 0;
    for (const auto& b : whole.blocks) {
        samples += b.samples;
        if (b.samples > 0) {
            EXPECT_LE(b.min_ns, b.max_ns);
        }
    }
    EXPECT_EQ(samples, 100u);
    EXPECT_EQ(whole.blocks.back().max_ns, 1'000'000'000 + 99 * 1'000'000);
    for (const std::size_t piece : {1u, 7u, 1000u}) {
        const Fed pieces = feed_in_pieces(log, piece);
        EXPECT_EQ(pieces.joined, log) << piece;
        EXPECT_EQ(pieces.blocks.size(), whole.blocks.size()) << piece;
    }
}

TEST(BlockStream, ReadsTheNodeFromTheHeader) {
    logio::BlockStream stream("test");
    const std::string log = node_log("Physics", "Send", producer_samples(3), 10);
    EXPECT_TRUE(stream.feed(std::string_view(log).substr(0, 10)).empty());
    EXPECT_FALSE(stream.has_header());
    stream.feed(std::string_view(log).substr(10));
    ASSERT_TRUE(stream.has_header());
    EXPECT_EQ(stream.header().at("node"), "Physics");
    EXPECT_EQ(stream.header().at("instance"), "1");
}

void expect_refused(const std::string& bytes, const std::string& reason) {
    logio::BlockStream stream("peer");
    try {
        stream.feed(bytes);
        FAIL() << "accepted: " << reason;
    } catch (const logio::LogError& e) {
        EXPECT_NE(std::string(e.what()).find(reason), std::string::npos) << e.what();
    }
}

TEST(BlockStream, RefusesACorruptBlockByItsChecksum) {
    std::string log = node_log("A", "Send", producer_samples(50), 20);
    log[log.size() - 20] ^= 0x40;  // inside the last block's records
    expect_refused(log, "checksum does not match");
}

TEST(BlockStream, RefusesOtherVersionsAndOtherBytes) {
    std::string log = node_log("A", "Send", producer_samples(5), 20);
    std::string v2 = log;
    v2[8] = 2;
    expect_refused(v2, "version 2");
    expect_refused("GET / HTTP/1.1\r\nHost: x\r\n\r\n", "not a binary hashtrace log");
    std::string header_damaged = log;
    header_damaged[20] ^= 1;
    expect_refused(header_damaged, "header's checksum");
}

TEST(BlockStream, RefusesAMissingBlockMarker) {
    const std::string log = node_log("A", "Send", producer_samples(5), 20);
    expect_refused(log + "XXXX" + std::string(60, '\0'), "no block marker");
}

}  // namespace
}  // namespace hashtrace::live::testing
