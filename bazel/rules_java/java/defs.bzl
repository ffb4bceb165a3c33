"""The Java rules Bazel 4's own tools load from @rules_java, as its native ones.

Bazel fetches @rules_java from GitHub to register its Java toolchains, which
every build resolves; this local stand-in re-exports the native rules (which
are what that version of rules_java wraps) so the build runs offline.
"""

def _native(rule_name):
    return getattr(native, rule_name)

java_binary = _native("java_binary")
java_import = _native("java_import")
java_library = _native("java_library")
java_runtime = _native("java_runtime")
java_test = _native("java_test")
java_toolchain = _native("java_toolchain")
