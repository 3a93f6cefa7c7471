"""The results table: one Row per case and thread count, printed as text and as markdown."""

from dataclasses import dataclass

COLUMNS = ("case", "threads", "peer", "peer ms", "tsr ms", "tsr/peer", "noise", "target", "met?")
NUMERIC = {1, 3, 4, 5, 6}


@dataclass
class Row:
    case: str
    threads: int
    peer: str
    peer_ms: float | None
    tsr_ms: float | None
    noise: float | None
    target: str
    status: str

    @property
    def ratio(self):
        if self.peer_ms and self.tsr_ms is not None:
            return self.tsr_ms / self.peer_ms
        return None

    def cells(self):
        return (
            self.case,
            str(self.threads),
            self.peer,
            fmt_ms(self.peer_ms),
            fmt_ms(self.tsr_ms),
            "-" if self.ratio is None else f"{self.ratio:.2f}",
            "-" if self.noise is None else f"{self.noise:.0%}",
            self.target,
            self.status,
        )


def fmt_ms(ms):
    """Four significant digits, so 0.0005812 ms and 181.3 ms both read at a glance."""
    if ms is None:
        return "-"
    return f"{ms:.4g}" if ms >= 1e-3 else f"{ms:.3e}"


def text_table(rows):
    cells = [COLUMNS] + [r.cells() for r in rows]
    widths = [max(len(c[i]) for c in cells) for i in range(len(COLUMNS))]

    def line(row):
        return "  ".join(
            c.rjust(w) if i in NUMERIC else c.ljust(w)
            for i, (c, w) in enumerate(zip(row, widths, strict=True))
        ).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([line(cells[0]), rule] + [line(c) for c in cells[1:]])


def markdown_table(rows):
    def line(cells):
        return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

    align = "|" + "|".join("---:" if i in NUMERIC else "---" for i in range(len(COLUMNS))) + "|"
    return "\n".join([line(COLUMNS), align] + [line(r.cells()) for r in rows])
