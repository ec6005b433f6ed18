"""The host side of the real-kernel VM tests (tests/vm/README.md): run by
tests/vm/run.sh as ``python3 -m tools.vm.run`` (or ``tools.vm.peer`` with
``--peer``). The guest's side is tests/vm/guest, in shell."""
