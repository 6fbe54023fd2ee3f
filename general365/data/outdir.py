"""Where `dataset build` may write: the checks on --out before anything is written, and the
temporary folder beside it. `--overwrite` replaces only a folder the build itself wrote.
"""

from __future__ import annotations

import os
from contextlib import suppress
from pathlib import Path

from ..errors import UserError
from ..fsutil import recover_dir, sweep, temp_name, temp_pattern
from .readers import CardConfig, card_configs, read_front_matter

CONFIGS = ("seed", "variant", "all")


def check_out_folder(out: Path, *, overwrite: bool) -> Path:
    """The absolute path to write `out` at, after refusing what must not be replaced."""
    target = out_target(out)
    cwd = Path.cwd().resolve()
    if target.resolve() == cwd or target.resolve() in cwd.parents:
        raise UserError(f"{out}: that is the current folder (or holds it); the build replaces "
                        f"its folder as a whole, so name a new one, e.g. {out / 'hub'}")
    if target.exists() and not target.is_dir():
        raise UserError(f"{out}: exists and is not a folder")
    if target.is_dir() and any(target.iterdir()):
        if not overwrite:
            raise UserError(f"{out}: folder is not empty; choose another --out or pass "
                            "--overwrite")
        why = not_built_reason(target)
        if why:
            raise UserError(f"{out}: not a folder written by `dataset build` ({why}); "
                            "--overwrite replaces only such a folder: choose another --out, "
                            "or move this one away yourself")
    return target


def not_built_reason(folder: Path) -> str | None:
    """Why `folder` is not one `dataset build` wrote (only README.md, our card, and
    data/<config>/*.parquet), or None."""
    for p in sorted(folder.iterdir()):
        if p.name not in ("README.md", "data"):
            return f"it holds {p.name}"
    data = folder / "data"
    if data.exists():
        if not data.is_dir() or data.is_symlink():
            return "data is not a folder"
        for p in sorted(data.rglob("*")):
            rel = p.relative_to(folder)
            ok = (p.is_dir() and len(rel.parts) == 2 and rel.parts[1] in CONFIGS) or (
                p.is_file() and len(rel.parts) == 3 and rel.parts[1] in CONFIGS
                and p.suffix == ".parquet")
            if not ok or p.is_symlink():
                return f"it holds {rel}"
    try:
        if built_configs(folder) is None:
            return "its README.md is not the card `dataset build` writes"
    except UserError as exc:
        return f"its README.md does not read as our card: {exc}"
    return None


def make_parents(shown: Path, parent: Path) -> list[Path]:
    """Make the missing parents of the output folder (returned, outermost first)."""
    missing = []
    p = parent
    while not p.exists():
        if p.is_symlink():  # a dangling link
            raise UserError(f"{shown}: cannot create it: {p} is a broken link")
        missing.append(p)
        p = p.parent
    if not p.is_dir():
        raise UserError(f"{shown}: cannot create it: {p} is a file, not a folder")
    if not os.access(p, os.W_OK | os.X_OK):
        raise UserError(f"{shown}: cannot create it: no permission to write in {p}")
    missing.reverse()
    for d in missing:
        try:
            d.mkdir()
        except OSError as exc:
            raise UserError(f"{shown}: cannot create {d} ({os_reason(exc)})") from None
    return missing


def os_reason(exc: OSError) -> str:
    text = exc.strerror or exc.__class__.__name__
    return f"{text}: {exc.filename}" if exc.filename else text


def make_tmp(parent: Path, name: str) -> Path:
    """A new folder beside the output, named after this process (fsutil.temp_name: a later
    build can tell a killed one's leftovers); os.mkdir, as mkdtemp's 0700 would stay."""
    while True:
        tmp = parent / temp_name(name)
        with suppress(FileExistsError):
            tmp.mkdir()
            return tmp


def out_target(out: Path) -> Path:
    target = Path(os.path.abspath(out))
    return target.resolve() if target.is_symlink() else target


def recover_out(out: Path) -> str | None:
    """Clear what a killed build left beside `out` (the old folder put back, dead builds'
    temporaries removed); the name of a restored folder, or None."""
    target = out_target(out)
    if not target.parent.is_dir():
        return None
    restored = recover_dir(str(target))
    sweep(str(target.parent), temp_pattern(target.name))
    return os.path.basename(restored) if restored else None


def built_configs(folder: Path) -> list[CardConfig] | None:
    """The configs of a folder written by `dataset build` (ours, naming `all`), or None."""
    readme = folder / "README.md"
    if not readme.is_file():
        return None
    configs = card_configs(read_front_matter(readme), readme)
    names = {c.name for c in configs}
    return configs if "all" in names and names <= set(CONFIGS) else None
