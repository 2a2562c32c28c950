"""Text from outside (file names, model ids, error messages) made safe for where it goes.

* :func:`printable` — for a terminal: control characters (an ESC sequence in a file name can
  move the cursor, recolour or retitle the terminal, or hide the rest of a line), bidirectional
  overrides and undecodable bytes (``surrogateescape``, which would stop ``print`` with a
  UnicodeEncodeError) are shown escaped, as Python writes them in a string literal.
* :func:`csv_cell` / :func:`csv_uncell` — for a spreadsheet: a text cell that starts with ``=``,
  ``+``, ``-``, ``@``, a tab or a carriage return is a formula to Excel and LibreOffice (CSV
  injection); it gets a leading single quote, as the OWASP "CSV Injection" page recommends, so
  it is shown as text. :func:`csv_uncell` undoes it when the package reads its own CSV back.
"""

from __future__ import annotations

__all__ = ["printable", "csv_cell", "csv_uncell", "FORMULA_PREFIXES"]

#: the first characters that make a spreadsheet read a cell as a formula (OWASP, CSV Injection)
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")

#: bidirectional formatting characters (Unicode Bidirectional Algorithm, UAX #9): they reorder
#: what follows them on the line
_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


_SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(ch: str) -> str:
    if ch in _SHORT:
        return _SHORT[ch]
    o = ord(ch)
    if 0xDC80 <= o <= 0xDCFF:  # an undecodable byte of a file name (surrogateescape)
        return f"\\x{o - 0xDC00:02x}"
    if o < 0x100:
        return f"\\x{o:02x}"
    return f"\\u{o:04x}"


def _unsafe(ch: str, keep: str) -> bool:
    if ch in keep:
        return False
    o = ord(ch)
    return o < 0x20 or 0x7F <= o <= 0x9F or 0xD800 <= o <= 0xDFFF or ch in _BIDI


def printable(text: object, *, keep_newlines: bool = False) -> str:
    r"""``str(text)`` with every control character escaped (``\x1b``, ``\x07``, ``\u202e``).

    Args:
        text: What to show (a file name, a message).
        keep_newlines: Keep ``\n`` (a message of several lines); otherwise it is escaped too,
            so that one name stays on one line.

    Examples:
        >>> printable("a\x1b[31mred.png")
        'a\\x1b[31mred.png'
        >>> printable("two\nlines", keep_newlines=True)
        'two\nlines'
    """
    s = str(text)
    keep = "\t\n" if keep_newlines else "\t"
    if not any(_unsafe(ch, keep) for ch in s):
        return s
    return "".join(_escape(ch) if _unsafe(ch, keep) else ch for ch in s)


def _number(value: str) -> bool:
    try:
        float(value)
        return True
    except ValueError:
        return False


def _needs_quote(value: str) -> bool:
    if value[:1] == "'":
        return _needs_quote(value[1:])
    return value[:1] in FORMULA_PREFIXES and not _number(value)


def csv_cell(value: object) -> object:
    """A CSV cell that a spreadsheet shows as text: a string starting with a formula character
    (:data:`FORMULA_PREFIXES`) gets a leading ``'``; so does one that would otherwise read back
    as such a string (``'=x`` -> ``''=x``), which keeps :func:`csv_uncell` exact. A string that
    is a number (``-0.25``) and values of other types are returned as they are: a negative
    number is not a formula.

    Examples:
        >>> print(csv_cell('=HYPERLINK("http://x","y")'))
        '=HYPERLINK("http://x","y")
        >>> csv_cell("-0.25"), csv_cell("fog")
        ('-0.25', 'fog')
    """
    if isinstance(value, str) and _needs_quote(value):
        return "'" + value
    return value


def csv_uncell(value: str) -> str:
    """The string :func:`csv_cell` was given."""
    if value[:1] == "'" and _needs_quote(value[1:]):
        return value[1:]
    return value
