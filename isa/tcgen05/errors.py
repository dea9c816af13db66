"""The one error type of the tcgen05 descriptor model.

Blackwell `tcgen05.mma` takes its instruction descriptor, shared-memory matrix descriptors and
zero-column mask as raw register values, so neither ptxas nor the hardware reports a malformed field:
the result is silently wrong. Every check in `mmair.isa.tcgen05` therefore raises `DescriptorError`,
which names the field, the offending value, the legal set and (when there is one) the validity rule
R1-R33 of the tcgen05 reference, so that tools can print it as a single diagnostic line.
"""

from __future__ import annotations


def format_value(value: object) -> str:
    """Render a field value the way the attribute text writes it (`true`, `sw128`, `[0, 1]`)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(format_value(v) for v in value) + "]"
    if value is None:
        return "none"
    return str(value)


class DescriptorError(ValueError):
    """A descriptor field (or instruction property) that is not encodable or breaks a rule.

    `str(err)` is one line: `<field> = <value> <reason>; legal: <legal> [<rule>]`.
    """

    field: str
    value: object
    legal: str
    rule: str | None
    reason: str

    def __init__(
        self,
        field: str,
        value: object,
        legal: str,
        rule: str | None = None,
        reason: str = "is not legal",
        *,
        value_text: str | None = None,
    ) -> None:
        self.field = field
        self.value = value
        self.legal = legal
        self.rule = rule
        self.reason = reason
        self.value_text = value_text if value_text is not None else format_value(value)
        text = f"{field} = {self.value_text} {reason}; legal: {legal}"
        if rule is not None:
            text += f" [{rule}]"
        super().__init__(text)
