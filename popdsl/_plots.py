"""The profile's PNG pictures (matplotlib, the optional `plot` extra).

Figures are made without pyplot, so plotting never changes the user's backend.
"""
import textwrap


def _whole_numbers(axis):
    """Ticks only at whole numbers (tiles and tile counts have no fractions)."""
    from matplotlib.ticker import MaxNLocator
    axis.set_major_locator(MaxNLocator(integer=True))


def _figure(**kwargs):
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise ImportError("profile plots need matplotlib: pip install 'popdsl[plot]'") from None
    return Figure(**kwargs)


def _short(text: str, width: int = 60) -> str:
    return textwrap.shorten(text, width, placeholder="...") if len(text) > width else text


def memory(profile, path):
    memory_figure(profile).savefig(path, dpi=110)


def memory_figure(profile):
    """The memory picture: bytes of each tile against the per-tile limit, and a histogram."""
    mem = profile.memory
    kb = 1024.0
    variables = [b / kb for b in mem.variable_bytes]
    constants = [b / kb for b in mem.constant_bytes]
    totals = [v + c for v, c in zip(variables, constants)]
    limit = mem.bytes_per_tile / kb
    tiles = range(len(totals))
    fullest = max(tiles, key=lambda t: totals[t])

    fig = _figure(figsize=(11, 7.5), layout="constrained")
    top, bottom = fig.subplots(2, 1, height_ratios=[2.2, 1])
    top.bar(tiles, variables, width=1.0, color="#4c72b0", label="variables")
    top.bar(tiles, constants, width=1.0, bottom=variables, color="#dd8452", label="constants")
    if mem.always_live_bytes:  # what each tile needs with liveness (Memory.live_tile_bytes)
        for host_handles, style, label in ((True, ":", "needed with liveness"),
                                           (False, "-", "needed without host-handle-only variables")):
            needed = [b / kb for b in mem.live_tile_bytes(host_handles)]
            if host_handles and needed == totals:
                continue  # every variable is always live: the bars say it
            top.step(tiles, needed, where="mid", color="black", linestyle=style, linewidth=1.2, label=label)
    peak = max(totals) if totals else 0
    if peak > 0.25 * limit:
        top.axhline(limit, color="#c44e52", linestyle="--", linewidth=1.5,
                    label=f"per-tile limit ({limit:,.0f} kB)")
        top.set_ylim(0, max(limit, peak) * 1.08)
    else:  # the limit would flatten the bars: name it instead of drawing it off scale
        top.set_ylim(0, peak * 1.25 if peak else 1)
        top.plot([], [], color="#c44e52", linestyle="--",
                 label=f"per-tile limit {limit:,.0f} kB (off scale, {100 * peak / limit:.2g}% used at most)")
    per_ipu = mem.by_ipu()
    if len(per_ipu) > 1:  # IPU boundaries, each IPU's share above its tiles
        for ipu, total in enumerate(per_ipu):
            first = ipu * mem.tiles_per_ipu
            if ipu:
                top.axvline(first - 0.5, color="#555555", linewidth=1)
            top.text(first + mem.tiles_per_ipu / 2 - 0.5, 0.98, f"IPU {ipu}: {total / kb:,.1f} kB",
                     transform=top.get_xaxis_transform(), ha="center", va="top", fontsize=9)
    top.set_xlim(-0.5, len(totals) - 0.5)
    _whole_numbers(top.xaxis)
    top.set_xlabel("tile")
    top.set_ylabel("memory per tile (kB)")
    top.set_title(f"Memory of each tile: {mem.total_bytes / kb:,.1f} kB in total on {len(totals):,} tiles "
                  f"({profile.target.arch}); fullest tile: {fullest}, with {totals[fullest]:,.2f} kB")
    top.legend(loc="upper right")
    top.grid(axis="y", alpha=0.3)

    bottom.hist(totals, bins=min(30, max(5, len(set(totals)))), color="#55a868", edgecolor="white")
    bottom.set_xlabel("memory per tile (kB)")
    bottom.set_ylabel("tiles")
    _whole_numbers(bottom.yaxis)
    bottom.set_title("Tiles by their memory (kB per tile)")
    bottom.grid(axis="y", alpha=0.3)
    return fig


def _duration(seconds: float) -> str:
    return f"{seconds * 1e3:,.3g} ms" if seconds >= 1e-3 else f"{seconds * 1e6:,.3g} us"


def _stacked_bars(ax, labels, parts, colors, names):
    rows = range(len(labels))
    left = [0] * len(labels)
    for values, color, name in zip(parts, colors, names):
        ax.barh(rows, values, left=left, color=color, label=name)
        left = [a + b for a, b in zip(left, values)]
    ax.set_yticks(list(rows), labels, fontsize=8)
    ax.invert_yaxis()
    ax.grid(axis="x", alpha=0.3)
    return left


def _step_labels(steps) -> list:
    """'kind: debug name' of each step, shortened; steps whose labels would be the same (one
    source line's steps) also show their step number."""
    labels = [_short(f"{s.kind}: {s.name}") for s in steps]
    return [f"{label} (step {s.index})" if labels.count(label) > 1 else label for label, s in zip(labels, steps)]


def execution(profile, path, top):
    steps = [s for s in profile.top_steps(top) if s.total_cycles]
    lines = [g for g in profile.by_line()[:top] if g.total_cycles]
    total = profile.total_cycles or 1
    clock_mhz = profile.target.clock_hz / 1e6

    fig = _figure(figsize=(12, 4 + 0.32 * (len(steps) + len(lines))), layout="constrained")
    upper, lower = fig.subplots(2, 1, height_ratios=[max(len(steps), 1), max(len(lines), 1)])
    ends = _stacked_bars(
        upper, _step_labels(steps),
        [[s.executions * getattr(s, phase) for s in steps]
         for phase in ("sync_cycles", "exchange_cycles", "compute_cycles")],
        ["#8172b3", "#dd8452", "#4c72b0"], ["sync", "exchange", "compute"])
    for row, (s, end) in enumerate(zip(steps, ends)):
        upper.text(end, row, f"  {100 * s.total_cycles / total:.1f}%, x{s.executions:,}", va="center", fontsize=8)
    upper.set_xlabel("estimated cycles, all executions in total")
    upper.set_title(f"Costliest steps (top {len(steps)} of {len(profile.steps)}): "
                    f"{profile.total_cycles:,} estimated cycles, "
                    f"{_duration(profile.estimated_seconds)} at {clock_mhz:,.0f} MHz")
    upper.legend(loc="lower right")
    upper.margins(x=0.15)

    lower.barh(range(len(lines)), [g.total_cycles for g in lines], color="#55a868")
    lower.set_yticks(list(range(len(lines))), [_short(g.label) for g in lines], fontsize=8)
    lower.invert_yaxis()
    for row, g in enumerate(lines):
        lower.text(g.total_cycles, row, f"  {100 * g.total_cycles / total:.1f}%", va="center", fontsize=8)
    lower.set_xlabel("estimated cycles, all executions in total")
    lower.set_title("Costliest source lines")
    lower.grid(axis="x", alpha=0.3)
    lower.margins(x=0.15)
    fig.savefig(path, dpi=110)
