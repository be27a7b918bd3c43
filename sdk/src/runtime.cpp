// The SDK's runtime compiled once, for programs that link hashtrace::sdk_runtime
// instead of compiling the runtime into every file that includes the SDK (the
// target gives its users HASHTRACE_EXTERN_RUNTIME, so they see declarations only).
#define HASHTRACE_IMPLEMENTATION
#include "hashtrace/hashtrace.hpp"
