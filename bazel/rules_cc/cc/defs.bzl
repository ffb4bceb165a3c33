"""The C++ rules Bazel 4's own tools load from @rules_cc, as its native ones.

Bazel fetches @rules_cc from GitHub to set up its C++ toolchain, which
Python tests resolve too; this local stand-in re-exports the native rules
(which are what that version of rules_cc wraps) so the build runs offline.
"""

def _native(rule_name):
    return getattr(native, rule_name)

cc_binary = _native("cc_binary")
cc_import = _native("cc_import")
cc_library = _native("cc_library")
cc_proto_library = _native("cc_proto_library")
cc_test = _native("cc_test")
cc_toolchain = _native("cc_toolchain")
cc_toolchain_suite = _native("cc_toolchain_suite")
fdo_prefetch_hints = _native("fdo_prefetch_hints")
fdo_profile = _native("fdo_profile")
objc_import = _native("objc_import")
objc_library = _native("objc_library")
