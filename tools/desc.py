"""`mmair-desc`: encode and decode NVIDIA Blackwell tcgen05 descriptor words.

    mmair-desc encode '#tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 128, n = 256>'
    mmair-desc decode idesc 0x08400010 [--kind f16] [--json]
    mmair-desc decode smem 0x4000404000010040 [--json]
    mmair-desc decode zcmask 0x0203028301020100 --m 32 --n 64 [--json]

`encode` prints `0x%08x` (idesc) or `0x%016x` (smem_desc, zcmask). `decode` prints the attribute text
(the text of the `tcgen05` dialect) or, with `--json`, one JSON object. Both check the rules that
need no instruction context (reserved bits, swizzle code, types legal for the kind, M/N that some MMA
form accepts, ...); `--cta-group`, `--ws`, `--target`, `--major` add context, `--no-verify` skips
the rules (a field the layout cannot hold is still an error). Without `--kind`, `decode idesc` prints
one line per kind under which the word is valid.

Exit codes: 0 success; 1 an invalid word or attribute (one line `error: <field> = ... legal: ...`);
2 bad command-line arguments (one line). No Python traceback. Only pure-Python isa modules are
imported (no xDSL), so the tool starts fast.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Sequence
from typing import NoReturn

from mmair.isa.tcgen05.errors import DescriptorError
from mmair.isa.tcgen05.idesc import KINDS, InstrDesc, decode_idesc, encode_idesc
from mmair.isa.tcgen05.rules import TCGEN05_TARGETS, check_idesc, check_smem_desc, check_zcmask
from mmair.isa.tcgen05.smem import SmemDesc, decode_smem_desc, encode_smem_desc
from mmair.isa.tcgen05.text import format_descriptor, parse_descriptor_text
from mmair.isa.tcgen05.zcmask import (
    ZeroColumnMask,
    bit_string,
    decode_zcmask,
    encode_zcmask,
    submask_layout,
    zcmask_bits,
    zcmask_submasks,
)
from mmair.tools.version import VersionAction

PROG = "mmair-desc"
_HEX = re.compile(r"^(0[xX])?[0-9a-fA-F]+$")


class UsageError(Exception):
    """A bad command line (exit 2)."""


class _Parser(argparse.ArgumentParser):
    """argparse that reports a bad command line as one line and exit code 2."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def _hex_word(text: str) -> int:
    if not _HEX.match(text):
        raise argparse.ArgumentTypeError(f"'{text}' is not a hexadecimal word")
    return int(text, 16)


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

    encode = commands.add_parser("encode", help="attribute text -> word")
    encode.add_argument("text", help="#tcgen05.idesc<...>, #tcgen05.smem_desc<...> or #tcgen05.zcmask<...>")
    encode.add_argument("--m", type=int, default=None, help="M of the MMA (zcmask shift limit)")
    context(encode)

    decode = commands.add_parser("decode", help="word -> attribute text or JSON")
    what = decode.add_subparsers(dest="what", required=True)
    idesc = what.add_parser("idesc", help="32-bit instruction descriptor")
    idesc.add_argument("word", type=_hex_word)
    idesc.add_argument("--kind", choices=KINDS, default=None)
    idesc.add_argument("--json", action="store_true")
    context(idesc)
    smem = what.add_parser("smem", help="64-bit shared-memory matrix descriptor")
    smem.add_argument("word", type=_hex_word)
    smem.add_argument("--kind", choices=KINDS, default=None, help="kind of the MMA (R22)")
    smem.add_argument("--major", choices=("k", "mn"), default=None, help="operand major-ness")
    smem.add_argument("--json", action="store_true")
    smem.add_argument("--target", choices=TCGEN05_TARGETS, default=None)
    smem.add_argument("--no-verify", action="store_true")
    zcm = what.add_parser("zcmask", help="64-bit zero-column mask descriptor")
    zcm.add_argument("word", type=_hex_word)
    zcm.add_argument("--m", type=int, required=True)
    zcm.add_argument("--n", type=int, required=True)
    zcm.add_argument("--json", action="store_true")
    zcm.add_argument("--no-verify", action="store_true")
    return parser


def _check_width(word: int, bits: int, name: str) -> None:
    if word >> bits:
        raise DescriptorError(name, word, f"0x0..0x{(1 << bits) - 1:x}", None,
                              f"is wider than {bits} bits", value_text=f"0x{word:x}")


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


def _idesc_line(d: InstrDesc, as_json: bool) -> str:
    return json.dumps(d.as_dict()) if as_json else format_descriptor(d)


def _decode_idesc(args: argparse.Namespace) -> str:
    _check_width(args.word, 32, "idesc")
    if args.kind is not None:
        d = decode_idesc(args.word, args.kind)
        _verify_idesc(d, args)
        return _idesc_line(d, args.json)
    lines: list[str] = []
    reasons: list[str] = []
    for kind in KINDS:
        try:
            d = decode_idesc(args.word, kind)
            _verify_idesc(d, args)
        except DescriptorError as err:
            reasons.append(f"{kind}: {err.field} = {err.value_text}" + (f" [{err.rule}]" if err.rule else ""))
            continue
        lines.append(_idesc_line(d, args.json))
    if not lines:
        raise DescriptorError("idesc", args.word, "a word valid under one of " + ", ".join(KINDS),
                              None, "is not valid under any kind (" + "; ".join(reasons) + ")",
                              value_text=f"0x{args.word:08x}")
    return "\n".join(lines)


def _decode_smem(args: argparse.Namespace) -> str:
    _check_width(args.word, 64, "smem_desc")
    d = decode_smem_desc(args.word)
    if not args.no_verify:
        check_smem_desc(d, kind=args.kind, major=args.major, target=args.target)
    return json.dumps(d.as_dict()) if args.json else format_descriptor(d)


def _zcmask_report(z: ZeroColumnMask, m: int, n: int) -> dict[str, object]:
    count, width = submask_layout(m, n)
    return {
        "m": m,
        **z.as_dict(),
        "submasks": [bit_string(s, width) for s in zcmask_submasks(z, m, n)],
        "mask": bit_string(zcmask_bits(z, m, n), n),
    }


def _decode_zcmask(args: argparse.Namespace) -> str:
    _check_width(args.word, 64, "zcmask")
    z = decode_zcmask(args.word)
    if not args.no_verify:
        check_zcmask(z, m=args.m)
    report = _zcmask_report(z, args.m, args.n)
    if args.json:
        return json.dumps(report)
    lines = [format_descriptor(z)]
    lines += [f"mask{i} = 0b{bits}" for i, bits in enumerate(report["submasks"])]  # type: ignore[arg-type]
    lines.append(f"mask = 0b{report['mask']}")
    return "\n".join(lines)


def run(argv: Sequence[str] | None = None) -> str:
    """Run one command and return its output; raises UsageError or DescriptorError."""
    args = _build_parser().parse_args(argv)
    if args.command == "encode":
        return _encode(args)
    return {"idesc": _decode_idesc, "smem": _decode_smem, "zcmask": _decode_zcmask}[args.what](args)


def main(argv: Sequence[str] | None = None) -> int:
    try:
        output = run(argv)
    except UsageError as err:
        print(f"{PROG}: error: {err}", file=sys.stderr)
        return 2
    except DescriptorError as err:
        print(f"error: {err}", file=sys.stderr)
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
