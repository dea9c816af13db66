"""`mmair-desc`: encode and decode NVIDIA Blackwell tcgen05 descriptor words.

    mmair-desc encode '#tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 128, n = 256>'
    mmair-desc decode idesc 0x08400010 [--kind f16] [--json]
    mmair-desc decode smem 0x4000404000010040 [--json]
    mmair-desc decode zcmask 0x0203028301020100 --m 32 --n 64 [--json]

`encode` prints `0x%08x` (idesc) or `0x%016x` (smem_desc, zcmask); it also takes the
`word = ...` form (`#tcgen05.idesc<kind = f16, word = 0x08400010>`), which it checks and
normalises. `decode` takes the word in hex (`0x08400010`, or digits with a-f) or decimal
(`138412048`, or negative as `mmair-opt` prints a signed constant). It prints every field it can
read, even from an invalid word (undefined codes as numbers), then every rule the word breaks, one
`error: ...` line each (not only the first). `--json` prints one object whose "errors" list is
empty when the word is valid (a word that cannot be decoded at all, or a bad command line, gives
`{"ok": false, "diagnostics": [...]}`: `tools/jsonout.py`). `--cta-group`, `--ws`, `--target`, `--major`, `--kind` add context;
`--buffer-start` gives the start of the SMEM buffer (where the swizzle pattern starts), without
which the base-offset rule R21 cannot be judged; `--no-verify` skips the rules. Without `--kind`,
`decode idesc` prints the kinds under which the word is valid: one line each, or with `--json`
one JSON array of labelled objects.

Exit codes: 0 valid; 1 an invalid word or attribute; 2 bad command-line arguments (one line).
No Python traceback. Only pure-Python isa modules are imported (no xDSL), so the tool starts fast.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Sequence
from typing import NoReturn

from mmair.isa.tcgen05.diagnose import idesc_report, smem_report, zcmask_report
from mmair.isa.tcgen05.errors import DescriptorError, format_value
from mmair.isa.tcgen05.idesc import KINDS, InstrDesc, decode_idesc, encode_idesc
from mmair.isa.tcgen05.rules import TCGEN05_TARGETS, check_idesc, check_smem_desc, check_zcmask
from mmair.isa.tcgen05.smem import SmemDesc, decode_smem_desc, encode_smem_desc
from mmair.isa.tcgen05.text import format_descriptor, parse_descriptor_text
from mmair.isa.tcgen05.zcmask import (
    ZeroColumnMask,
    bit_string,
    encode_zcmask,
    submask_layout,
    zcmask_bits,
    zcmask_submasks,
)
from mmair.tools.jsonout import failure, wants_json
from mmair.tools.stdio import quiet_broken_pipe
from mmair.tools.version import VersionAction

PROG = "mmair-desc"
_HEX = re.compile(r"^(0[xX][0-9a-fA-F]+|[0-9]*[a-fA-F][0-9a-fA-F]*)$")
_DECIMAL = re.compile(r"^-?[0-9]+$")


class UsageError(Exception):
    """A bad command line (exit 2)."""


class _Parser(argparse.ArgumentParser):
    """argparse that reports a bad command line as one line and exit code 2."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def _hex_word(text: str) -> int:
    """A word in hex (0x..., or with a-f digits) or decimal (negative: a signed constant)."""
    if _HEX.match(text):
        return int(text, 16)
    if _DECIMAL.match(text):
        if len(text) > 1 and text.startswith("0"):
            raise argparse.ArgumentTypeError(
                f"'{text}' is ambiguous: write 0x{text} for hex or {int(text)} for decimal")
        return int(text, 10)
    raise argparse.ArgumentTypeError(f"'{text}' is not a word (hex 0x... or decimal)")


def _unsigned(word: int, bits: int, name: str) -> int:
    """A negative word is the signed form of a `bits`-bit value (as mmair-opt prints i32/i64)."""
    if -(1 << (bits - 1)) <= word < 0:
        return word + (1 << bits)
    _check_width(word, bits, name)
    return word


def _build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=PROG, description="Encode and decode tcgen05 descriptor words.")
    parser.add_argument("--version", action=VersionAction)
    commands = parser.add_subparsers(dest="command", required=True)

    def context(sub: argparse.ArgumentParser) -> None:
        sub.add_argument("--cta-group", type=int, choices=(1, 2), default=None,
                         help="check for this .cta_group (default: any)")
        sub.add_argument("--ws", action="store_true", default=None,
                         help="check for tcgen05.mma.ws (default: with or without)")
        sub.add_argument("--target", choices=TCGEN05_TARGETS, default=None,
                         help="check for this target (default: any)")
        sub.add_argument("--no-verify", action="store_true",
                         help="skip the validity rules; only decode/encode the fields")

    encode = commands.add_parser(
        "encode", help="print the word of a descriptor attribute",
        description="Print the packed word of a tcgen05 descriptor attribute, after checking the "
                    "validity rules the attribute alone decides.")
    encode.add_argument("text", help="the attribute: #tcgen05.idesc<...>, #tcgen05.smem_desc<...> "
                                        "or #tcgen05.zcmask<...>")
    encode.add_argument("--m", type=_positive, default=None,
                        help="M of the MMA, which limits a zcmask's shift")
    context(encode)

    decode = commands.add_parser(
        "decode", help="print the fields of a descriptor word",
        description="Print a descriptor word as its attribute (or JSON), then every validity "
                    "rule it breaks (exit 1 if any).")
    what = decode.add_subparsers(dest="what", required=True)
    word_help = "the word: 0xHEX or decimal"
    json_help = "print the fields and errors as JSON"
    idesc = what.add_parser("idesc", help="a 32-bit instruction descriptor",
                            description="Decode a 32-bit tcgen05 instruction descriptor.")
    idesc.add_argument("word", type=_hex_word, help=word_help)
    idesc.add_argument("--kind", choices=KINDS, default=None,
                       help="kind of the MMA, which fixes the layout (default: every kind the "
                            "word is valid for)")
    idesc.add_argument("--json", action="store_true", help=json_help)
    context(idesc)
    smem = what.add_parser("smem", help="a 64-bit shared-memory matrix descriptor",
                           description="Decode a 64-bit tcgen05 shared-memory matrix descriptor.")
    smem.add_argument("word", type=_hex_word, help=word_help)
    smem.add_argument("--kind", choices=KINDS, default=None, help="kind of the MMA (R22)")
    smem.add_argument("--major", choices=("k", "mn"), default=None, help="major-ness of the operand (k or mn)")
    smem.add_argument("--json", action="store_true", help=json_help)
    smem.add_argument("--target", choices=TCGEN05_TARGETS, default=None,
                      help="check for this target (default: any)")
    smem.add_argument("--buffer-start", type=_buffer_start, default=None,
                      help="start of the SMEM buffer (where the swizzle pattern starts; R21)")
    smem.add_argument("--no-verify", action="store_true",
                      help="skip the validity rules; only decode the fields")
    zcm = what.add_parser("zcmask", help="a 64-bit zero-column mask descriptor",
                          description="Decode a 64-bit tcgen05 zero-column mask descriptor.")
    zcm.add_argument("word", type=_hex_word, help=word_help)
    zcm.add_argument("--m", type=_positive, required=True, help="M of the MMA")
    zcm.add_argument("--n", type=_positive, required=True, help="N of the MMA")
    zcm.add_argument("--json", action="store_true", help=json_help)
    zcm.add_argument("--no-verify", action="store_true",
                     help="skip the validity rules; only decode the fields")
    return parser


def _check_width(word: int, bits: int, name: str) -> None:
    if word < 0:  # below the signed range `_unsigned` accepts
        raise DescriptorError(name, word, f"0x0..0x{(1 << bits) - 1:x}, or as a signed "
                              f"{bits}-bit constant {-(1 << (bits - 1))}..-1", None,
                              f"is below the signed {bits}-bit range", value_text=str(word))
    if word >> bits:
        raise DescriptorError(name, word, f"0x0..0x{(1 << bits) - 1:x}", None,
                              f"is wider than {bits} bits", value_text=f"0x{word:x}")


def _buffer_start(text: str) -> int:
    """`--buffer-start`: an SMEM address the descriptor can name (0 .. 2^18 - 1)."""
    from mmair.isa.tcgen05.smem import ADDRESS_LIMIT

    value = _hex_word(text)
    if not 0 <= value < ADDRESS_LIMIT:
        raise argparse.ArgumentTypeError(
            f"{text} is not an SMEM address; legal: 0x0..0x{ADDRESS_LIMIT - 1:x} (the addresses "
            "a shared-memory descriptor can hold)")
    return value


def _positive(text: str) -> int:
    """`--m` / `--n`: a positive integer."""
    try:
        value = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got '{text}'") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value}")
    return value


def _verify_idesc(d: InstrDesc, args: argparse.Namespace) -> None:
    if not args.no_verify:
        check_idesc(d, cta_group=args.cta_group, ws=args.ws, target=args.target)


def _encode(args: argparse.Namespace) -> str:
    d = parse_descriptor_text(args.text)
    if isinstance(d, InstrDesc):
        _verify_idesc(d, args)
        return f"0x{encode_idesc(d):08x}"
    if isinstance(d, SmemDesc):
        if not args.no_verify:
            check_smem_desc(d, target=args.target)
        return f"0x{encode_smem_desc(d):016x}"
    if not args.no_verify:
        check_zcmask(d, m=args.m)
    return f"0x{encode_zcmask(d):016x}"


class DecodeReport(Exception):
    """A decoded word with errors: the output to print, then the errors (exit 1)."""

    def __init__(self, output: str, errors: list[str]) -> None:
        super().__init__(output)
        self.output = output
        self.errors = errors


def _fields_text(mnemonic: str, fields: dict[str, object]) -> str:
    body = ", ".join(f"{key} = {format_value(value)}" for key, value in fields.items())
    return f"#tcgen05.{mnemonic}<{body}>"


def _report(mnemonic: str, fields: dict[str, object], errors: list[DescriptorError],
            as_json: bool, text: str | None = None) -> str:
    """Print the fields (JSON with "errors", or text); raise DecodeReport when there are errors."""
    messages = [str(e) for e in errors]
    if as_json:
        output = json.dumps({**fields, "errors": messages})
    else:
        output = text if text is not None and not errors else _fields_text(mnemonic, fields)
    if messages:
        raise DecodeReport(output, messages)
    return output


def _context(args: argparse.Namespace) -> dict[str, object]:
    return {"cta_group": args.cta_group, "ws": args.ws, "target": args.target}


def _decode_idesc(args: argparse.Namespace) -> str:
    word = _unsigned(args.word, 32, "idesc")
    verify = not args.no_verify
    if args.kind is not None:
        fields, errors = idesc_report(word, args.kind, verify=verify, **_context(args))
        text = format_descriptor(decode_idesc(word, args.kind)) if not errors else None
        return _report("idesc", fields, errors, args.json, text)
    valid: list[dict[str, object]] = []
    lines: list[str] = []
    per_kind: list[str] = []
    for kind in KINDS:
        fields, errors = idesc_report(word, kind, verify=verify, **_context(args))
        if errors:
            per_kind += [f"kind::{kind}: {e}" for e in errors]
            continue
        valid.append({**fields, "errors": []})
        lines.append(format_descriptor(decode_idesc(word, kind)))
    output = json.dumps(valid) if args.json else "\n".join(lines)
    if not valid:
        raise DecodeReport(output if args.json else "",
                           [f"idesc 0x{word:08x} is not valid under any kind"] + per_kind)
    return output


def _decode_smem(args: argparse.Namespace) -> str:
    word = _unsigned(args.word, 64, "smem_desc")
    fields, errors = smem_report(word, verify=not args.no_verify, kind=args.kind,
                                 major=args.major, target=args.target,
                                 pattern_start=args.buffer_start)
    text = format_descriptor(decode_smem_desc(word)) if not errors else None
    return _report("smem_desc", fields, errors, args.json, text)


def _zcmask_report(z: ZeroColumnMask, m: int, n: int) -> dict[str, object]:
    count, width = submask_layout(m, n)
    return {
        "m": m,
        **z.as_dict(),
        "submasks": [bit_string(s, width) for s in zcmask_submasks(z, m, n)],
        "mask": bit_string(zcmask_bits(z, m, n), n),
    }


def _decode_zcmask(args: argparse.Namespace) -> str:
    word = _unsigned(args.word, 64, "zcmask")
    fields, errors, z = zcmask_report(word, m=args.m, verify=not args.no_verify)
    try:
        report = {**_zcmask_report(z, args.m, args.n), **fields}
    except DescriptorError as err:
        errors.append(err)
        report = {"m": args.m, **fields}
    if args.json:
        return _report("zcmask", report, errors, True)
    lines = [format_descriptor(z) if not errors else _fields_text("zcmask", fields)]
    if "submasks" in report:
        lines += [f"mask{i} = 0b{bits}" for i, bits in enumerate(report["submasks"])]  # type: ignore[arg-type]
        lines.append(f"mask = 0b{report['mask']}")
    if errors:
        raise DecodeReport("\n".join(lines), [str(e) for e in errors])
    return "\n".join(lines)


def run(argv: Sequence[str] | None = None) -> str:
    """Run one command and return its output; raises UsageError or DescriptorError."""
    args = _build_parser().parse_args(argv)
    if args.command == "encode":
        return _encode(args)
    return {"idesc": _decode_idesc, "smem": _decode_smem, "zcmask": _decode_zcmask}[args.what](args)


@quiet_broken_pipe
def main(argv: Sequence[str] | None = None) -> int:
    as_json = wants_json(argv)
    try:
        output = run(argv)
    except UsageError as err:
        print(f"{PROG}: error: {err}", file=sys.stderr)
        if as_json:
            print(failure(f"error: {err}", 2))
        return 2
    except DecodeReport as report:
        if report.output:
            print(report.output)
        for message in report.errors:
            print(f"error: {message}", file=sys.stderr)
        return 1
    except DescriptorError as err:
        print(f"error: {err}", file=sys.stderr)
        if as_json:
            print(failure(f"error: {err}", 1, errors=[str(err)]))
        return 1
    except SystemExit as exit_:  # --help
        return int(exit_.code or 0)
    except Exception as err:  # noqa: BLE001 - a bug must still not print a traceback
        print(f"error: internal error: {type(err).__name__}: {err}", file=sys.stderr)
        return 1
    print(output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
