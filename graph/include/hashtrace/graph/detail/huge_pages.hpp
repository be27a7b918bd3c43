// hashtrace/graph/detail/huge_pages.hpp - large columns on 2 MiB pages.
//
// Why: the graph builder's columns and tables are hundreds of megabytes
// touched once each, and with 4 KiB pages the kernel's page faults took ~15%
// of loading, and the random reads of interning and linking miss the TLB.
// Kernels configured with transparent huge pages in `madvise` mode (Debian's
// default) back a range with 2 MiB pages only when asked, so the columns ask
// before their first touch (page_pool.hpp, for every Column). Elsewhere the
// advice is a no-op.
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace hashtrace::graph::detail {

inline constexpr std::size_t kHugePage = std::size_t{2} << 20;

// Advises the whole 2 MiB pages inside [p, p + bytes); call before the memory
// is first touched (pages already faulted in stay small).
inline void advise_huge_pages(const void* p, std::size_t bytes) noexcept {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    const auto first = (reinterpret_cast<std::uintptr_t>(p) + kHugePage - 1) & ~std::uintptr_t{kHugePage - 1};
    const auto last = (reinterpret_cast<std::uintptr_t>(p) + bytes) & ~std::uintptr_t{kHugePage - 1};
    if (last > first) madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
#else
    (void)p;
    (void)bytes;
#endif
}

}  // namespace hashtrace::graph::detail
