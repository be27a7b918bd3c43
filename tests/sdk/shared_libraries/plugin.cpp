// A shared library that includes the SDK, built twice (PLUGIN_NAME) with
// hidden visibility, as plugins usually are: tracepoints in either must land
// in the one session the program started.
#include <hashtrace/hashtrace.hpp>

#include <string>

#define PLUGIN_FN(name) PLUGIN_FN2(PLUGIN_NAME, name)
#define PLUGIN_FN2(plugin, name) PLUGIN_FN3(plugin, name)
#define PLUGIN_FN3(plugin, name) plugin##_##name

extern "C" __attribute__((visibility("default"))) void PLUGIN_FN(work)(int samples) {
    for (int i = 0; i < samples; ++i) TRACEPOINT(PLUGIN_TRACEPOINT, hashtrace::inout("i", i));
}

// What this library sees of the session: running, and the path of its log.
extern "C" __attribute__((visibility("default"))) bool PLUGIN_FN(sees_session)(std::string* log_path) {
    *log_path = hashtrace::running() ? hashtrace::detail::runtime().log_path() : std::string();
    return hashtrace::running();
}
