"""corruptbench.safe_text: names shown on a terminal, cells written for a spreadsheet."""

from __future__ import annotations

import csv
import io

import pytest

from corruptbench.safe_text import csv_cell, csv_uncell, printable


def test_control_characters_are_escaped() -> None:
    assert printable("plain name.JPEG") == "plain name.JPEG"
    assert printable("a\x1b[31mred\x1b[0m.png") == "a\\x1b[31mred\\x1b[0m.png"
    assert printable("bell\x07 del\x7f c1\x9b") == "bell\\x07 del\\x7f c1\\x9b"
    # a bidirectional override would reorder the rest of the line
    assert printable("evil\u202egnp.exe") == "evil\\u202egnp.exe"
    # an undecodable byte of a file name (surrogateescape) is shown as that byte
    name = b"caf\xe9.jpg".decode("utf-8", "surrogateescape")
    assert printable(name) == "caf\\xe9.jpg"
    print(printable(name))  # printable at all: the raw name would raise UnicodeEncodeError
    # newlines: escaped inside one name, kept in a message of several lines
    assert printable("two\nlines") == "two\\nlines"
    assert printable("two\nlines\x1b", keep_newlines=True) == "two\nlines\\x1b"
    assert printable(3.5) == "3.5"


@pytest.mark.parametrize(
    "value",
    [
        '=HYPERLINK("http://example.com","click")',
        "+1+1",
        "-2+3",
        "@SUM(A1)",
        "\tx",
        "\rx",
        "'=x",
        "''@x",
        "'plain",
        "-0.25",
        "fog",
        "",
    ],
)
def test_csv_cells_are_text_and_read_back(value: str) -> None:
    cell = csv_cell(value)
    assert isinstance(cell, str)
    # what a spreadsheet would run as a formula starts with a quote now; numbers stay numbers
    if (value and value[0] in "=+@\t\r") or value == "-2+3":
        assert cell == "'" + value
    if value in ("-0.25", "fog", "", "'plain"):
        assert cell == value
    assert csv_uncell(cell) == value
    buf = io.StringIO()
    csv.writer(buf).writerow([cell])
    assert csv_uncell(next(csv.reader(io.StringIO(buf.getvalue())))[0]) == value


def test_non_strings_pass() -> None:
    assert csv_cell(-3) == -3 and csv_cell(None) is None
