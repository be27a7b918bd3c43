// hashtrace/graph/detail/column_allocator.hpp - the allocator of Column:
// large buffers from the page pool, default-initialised elements.
#pragma once

#include "hashtrace/graph/detail/huge_pages.hpp"
#include "hashtrace/graph/detail/page_pool.hpp"

#include <cstddef>
#include <memory>
#include <type_traits>
#include <new>
#include <utility>

namespace hashtrace::graph::detail {

template <typename T>
class ColumnAllocator {
public:
    using value_type = T;
    // Buffers from this size on come from the pool (whole 2 MiB pages: half
    // a page is the most a smaller buffer leaves unused); smaller ones from
    // the heap, as std::allocator's.
    static constexpr std::size_t kPooledBytes = kHugePage / 2;

    ColumnAllocator() noexcept = default;
    template <typename U>
    ColumnAllocator(const ColumnAllocator<U>&) noexcept {}

    T* allocate(std::size_t n) {
        if (n > std::size_t(-1) / sizeof(T)) throw std::bad_array_new_length();
        if (n * sizeof(T) >= kPooledBytes) return static_cast<T*>(PagePool::shared().take(n * sizeof(T)));
        return std::allocator<T>().allocate(n);
    }
    void deallocate(T* p, std::size_t n) noexcept {
        if (n * sizeof(T) >= kPooledBytes)
            PagePool::shared().give(p, n * sizeof(T));
        else
            std::allocator<T>().deallocate(p, n);
    }

    // Value-initialisation without a value (resize(n), Column<T>(n)) leaves
    // trivial elements as they are: a stage that writes every element of a
    // new column (the loader's merge, the join's placement) does not pay for
    // zeros first. Ask for values explicitly: Column<T>(n, T{}), assign(n, v).
    template <typename U>
    void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
        ::new (static_cast<void*>(p)) U;
    }
    template <typename U, typename... Args>
    void construct(U* p, Args&&... args) {
        ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }

    template <typename U>
    bool operator==(const ColumnAllocator<U>&) const noexcept { return true; }
};

}  // namespace hashtrace::graph::detail
