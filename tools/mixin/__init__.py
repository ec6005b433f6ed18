"""The monitoring mixin (mixin/): rendering its rules to the YAML files in
alerts/ (``python3 -m tools.mixin.render [--check]``) and its checks
(``python3 -m tools.mixin.checks``)."""
