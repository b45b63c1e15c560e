"""How the other consumers turn a written value into a boolean, for the facts that depend on one.

Each function is one implementation's rule, named after it (docs/lint.md, "Reading as the
consumer reads", lists which file kind follows which):

- :func:`js_truthy`: JavaScript truthiness, as the Dev Containers CLI tests ``privileged``
  (``mergedConfig.privileged ? '--privileged' : ...``): any non-empty string, even "false", is
  true;
- :func:`go_parse_bool`: Go's ``strconv.ParseBool``, as the Docker and Podman CLIs (spf13/pflag)
  read ``--privileged=VALUE``;
- :func:`ansible_boolean`: Ansible's ``boolean()`` (module options of type bool), over what
  PyYAML's YAML 1.1 loader already typed;
- :func:`cty_bool`: HashiCorp's cty conversion of a string to a bool, as Terraform and Nomad
  convert ``privileged = "true"``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

_GO_TRUE = frozenset({"1", "t", "T", "TRUE", "true", "True"})
_GO_FALSE = frozenset({"0", "f", "F", "FALSE", "false", "False"})
_ANSIBLE_TRUE = frozenset({"y", "yes", "on", "1", "true", "t"})
_ANSIBLE_FALSE = frozenset({"n", "no", "off", "0", "false", "f", ""})


def js_truthy(value: Any) -> bool:
    """JavaScript's ``if (value)``: false only for false, 0, NaN, "" and null (a list or an
    object is true, even empty)."""
    if value is None or value is False:
        return False
    if isinstance(value, bool):
        return True
    if isinstance(value, int | float):
        return value == value and value != 0  # NaN is false
    if isinstance(value, str):
        return value != ""
    return True


def go_parse_bool(text: str) -> bool | None:
    """``strconv.ParseBool``: None where it returns an error (the command is refused)."""
    if text in _GO_TRUE:
        return True
    if text in _GO_FALSE:
        return False
    return None


def ansible_boolean(value: Any) -> bool | None:
    """``ansible.module_utils.parsing.convert_bool.boolean``: None where it raises."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return True if value == 1 else False if value == 0 else None
    if isinstance(value, str):
        lowered = value.strip().lower()
        if lowered in _ANSIBLE_TRUE:
            return True
        if lowered in _ANSIBLE_FALSE:
            return False
    return None


def cty_bool(value: Any) -> bool | None:
    """cty's conversion to a bool: a bool, or the strings "true", "false", "1" and "0"."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        return {"true": True, "1": True, "false": False, "0": False}.get(value)
    return None
