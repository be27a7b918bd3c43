// replay.hpp - the what-if replay (whatif.hpp), with work from the
// recording alone done on its threads as they come free.
#pragma once

#include "hashtrace/critical_path/change.hpp"
#include "hashtrace/critical_path/model.hpp"
#include "hashtrace/critical_path/whatif.hpp"

#include <cstddef>
#include <functional>
#include <vector>

namespace hashtrace::critical_path {

// Work from the recording alone that the replay's threads take on between
// their own: find() once, then walk(part) for each of `parts` parts of what
// it found; the walks are left out where no input was served by another slot
// than recorded.
struct Beside {
    std::function<void()> find;
    std::size_t parts = 0;
    std::function<void(std::size_t part)> walk;
};

// The replay of the run with `changes`, `beside`'s work among its tasks.
Replay replay_with(const DependenceModel& model, const std::vector<Change>& changes, const Beside& beside);

}  // namespace hashtrace::critical_path
