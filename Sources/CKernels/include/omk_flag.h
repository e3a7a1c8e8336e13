#ifndef OPENMLKIT_OMK_FLAG_H
#define OPENMLKIT_OMK_FLAG_H

#include <stdint.h>

/// A flag one thread raises and another polls (an interpreter's cancellation), read on every node
/// of every invoke: a relaxed atomic load is a plain load on x86 and ARM, where the lock it
/// replaces cost a lock and an unlock per node. The word lives in its own allocation, so polling
/// it shares no cache line with anything another thread writes.
static inline int32_t omk_flag_load(const int32_t *flag) { return __atomic_load_n(flag, __ATOMIC_RELAXED); }
static inline void omk_flag_store(int32_t *flag, int32_t value) { __atomic_store_n(flag, value, __ATOMIC_RELAXED); }

#endif
