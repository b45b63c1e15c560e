"""The probes that run inside the sandbox, and the program that runs them there.

The program is perl with core modules only: perl-base is in every Debian-based image (the agent
images sandkit builds and the presets' bases), so the probe needs nothing installed in the image
it checks and runs as that image's own code would, with the agent's user, network and mounts.
Each probe prints one line ``SANDKIT-PROBE<TAB>id<TAB>status<TAB>detail``; the host side reads
only those lines, so the image's own output (a login banner, a warning) cannot forge a result
without a line of that shape, and a line with an unknown id is ignored.

Every destination is passed in by the host side (:mod:`sandkit.verify.plan`); the program itself
sends nothing anywhere it is not told to.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from sandkit.compiler.fidelity import Setting

#: The marker of a result line.
MARK = "SANDKIT-PROBE"

#: Arguments: one probe per argument, fields separated by ``|``: ``kind|id|...``.
#: Kinds: ``proxy|id|METHOD|host|port`` (a request through $HTTP_PROXY; pass
#: only on squid's own refusal, a 403 with X-Squid-Error: ERR_ACCESS_DENIED),
#: ``tcp|id|host|port[|drop]`` and ``udp|id|host|port`` (direct, past the proxy: pass when nothing
#: answers, not the destination and, without ``drop``, not the next hop toward it; ``$NAME`` for
#: host or port reads the probe's environment),
#: ``user|id|uid``, ``caps|id``, ``rootfs|id|place,...`` (the places that may be written),
#: ``secret|id|NAME|placeholder``.
#:
#: The program's text, shipped beside this module (package data).
PROGRAM = (Path(__file__).parent / "probe.pl").read_text()


class Probe(NamedTuple):
    """One check: what it sends or reads, the fidelity row it proves, and what it means."""

    id: str
    setting: Setting  # the fidelity row it checks
    title: str
    argument: str  # the program's argument, ``kind|id|...``


def parse(output: str, known: set[str]) -> tuple[dict[str, tuple[str, str]], bool]:
    """The probes' results in ``output`` (first line of each known id wins), and whether the
    program ran to its end."""
    results: dict[str, tuple[str, str]] = {}
    complete = False
    for line in output.splitlines():
        fields = line.rstrip("\r").split("\t")
        if fields == [f"{MARK}-END"]:
            complete = True
        elif len(fields) == 4 and fields[0] == MARK and fields[1] in known and fields[2] in ("pass", "fail", "error"):
            results.setdefault(fields[1], (fields[2], fields[3]))
    return results, complete
