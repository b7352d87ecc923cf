#pragma once

/// \file
/// Clang thread-safety analysis attributes (`-Wthread-safety`). They expand to nothing under
/// compilers that do not support them (g++), so annotated code builds everywhere and the
/// `clang-tsa` preset proves the locking discipline.

#if defined(__clang__)
#define KUBE_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define KUBE_THREAD_ANNOTATION(x)
#endif

/// Marks a class as a lockable capability (a mutex).
#define KUBE_CAPABILITY(x) KUBE_THREAD_ANNOTATION(capability(x))
/// Marks an RAII class that acquires a capability in its constructor and releases it in its destructor.
#define KUBE_SCOPED_CAPABILITY KUBE_THREAD_ANNOTATION(scoped_lockable)
/// The field may only be read or written while holding `x`.
#define KUBE_GUARDED_BY(x) KUBE_THREAD_ANNOTATION(guarded_by(x))
/// The pointee may only be accessed while holding `x`.
#define KUBE_PT_GUARDED_BY(x) KUBE_THREAD_ANNOTATION(pt_guarded_by(x))
/// The caller must hold the capabilities.
#define KUBE_REQUIRES(...) KUBE_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
/// The caller must hold the capabilities at least shared.
#define KUBE_REQUIRES_SHARED(...) KUBE_THREAD_ANNOTATION(requires_shared_capability(__VA_ARGS__))
/// The caller must NOT hold the capabilities (the function acquires them).
#define KUBE_EXCLUDES(...) KUBE_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))
/// The function acquires the capabilities and returns holding them.
#define KUBE_ACQUIRE(...) KUBE_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
/// The function releases the capabilities.
#define KUBE_RELEASE(...) KUBE_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
/// The function tries to acquire; the first argument is the success return value.
#define KUBE_TRY_ACQUIRE(...) KUBE_THREAD_ANNOTATION(try_acquire_capability(__VA_ARGS__))
/// The function returns a reference to the given capability.
#define KUBE_RETURN_CAPABILITY(x) KUBE_THREAD_ANNOTATION(lock_returned(x))
/// Asserts at runtime (to the analysis) that the capability is held.
#define KUBE_ASSERT_CAPABILITY(x) KUBE_THREAD_ANNOTATION(assert_capability(x))
/// Opt a function out of the analysis. Use sparingly, with a comment saying why.
#define KUBE_NO_THREAD_SAFETY_ANALYSIS KUBE_THREAD_ANNOTATION(no_thread_safety_analysis)
