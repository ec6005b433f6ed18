"""Checks of the operators' kit against a built exporter, each run as
``python3 -m tools.ops.<check> [path/to/ssd_exporter]`` from the repository
root (see ``tools``). ``tools.ops.common`` holds what they share."""
