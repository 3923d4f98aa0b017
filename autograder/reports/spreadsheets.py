"""CSV files for a spreadsheet: as pandas writes them, or as a spreadsheet in Spanish reads them."""

from pathlib import Path

SPANISH = {"sep": ";", "decimal": ",", "encoding": "utf-8-sig", "float_format": "%g"}


def write_csv(table, path, spanish=False):
    """Write ``table`` to ``path`` (no index column).

    ``spanish``: separated by «;», with a decimal comma and a UTF-8 byte-order mark, which is how
    LibreOffice and Excel in Spanish open a CSV file without asking (there «,» is the decimal separator,
    and without the mark Excel reads «Núñez» as «NÃºÃ±ez»).
    """
    options = SPANISH if spanish else {"encoding": "utf-8"}
    table.to_csv(Path(path), index=False, **options)
