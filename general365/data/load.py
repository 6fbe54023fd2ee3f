"""`general365.load_dataset` and `general365.load_problems`: source None is the official
release on the Hub (failing fast offline, with what to do), "sample" the bundled sample,
a path a folder or file, "ORG/NAME" another Hub dataset.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import UserError
from ..schema import Problem
from .hub import CONFIGS, built_configs, to_dataset
from .official import OFFICIAL_HUB_ID, import_source
from .readers import check_split, looks_like_hub_id, require_hub


def _check(config: str, split: str) -> None:
    if config not in CONFIGS:
        raise UserError(f"unknown config {config!r}; expected one of {', '.join(CONFIGS)}")
    check_split(split)


def _official(split: str) -> None:
    if split != "public":
        raise UserError(f"the official release ({OFFICIAL_HUB_ID}) is the public half of "
                        f"General365 only; for split {split!r} pass source= a folder or file "
                        f"that holds the full benchmark")
    require_hub(OFFICIAL_HUB_ID)


def load_problems(source: str | None = None, split: str = "public",
                  config: str = "all", linkage: str | None = None) -> list[Problem]:
    """The problems of one config and split, validated (golds parsed once, by the importer)."""
    _check(config, split)
    if source is None:
        _official(split)
        source = OFFICIAL_HUB_ID
    result = import_source(str(source), split=split, linkage_file=linkage)
    return [p for p in result.problems
            if config == "all" or (p.variant == 0) == (config == "seed")]


def load_dataset(config: str = "all", split: str = "public", source: str | None = None,
                 **kwargs):
    """The dataset as a `datasets.Dataset` with the Hub folder's features: read by
    `datasets.load_dataset` itself for a built folder (or a Hub repo pushed from one), else
    through the importer."""
    _check(config, split)
    if source is None:
        _official(split)
        return to_dataset(load_problems(OFFICIAL_HUB_ID, split, config))
    source = str(source)
    path = Path(source).expanduser()
    built = built_configs(path) if path.is_dir() else None
    if built is not None or (looks_like_hub_id(source) and _hub_has_configs(source)):
        import datasets

        if built is not None and config not in {c.name for c in built}:
            # the builder leaves out a config that has no rows
            raise UserError(f"{source} has no {config!r} rows (its configs: "
                            f"{', '.join(sorted(c.name for c in built))})")
        try:
            return datasets.load_dataset(str(path) if built is not None else source, config,
                                         split=split, **kwargs)
        except ValueError as exc:  # e.g. an unknown split: say which ones exist
            raise UserError(f"{source}: {exc}") from None
    return to_dataset(load_problems(source, split, config))


def _hub_has_configs(hub_id: str) -> bool:
    require_hub(hub_id)
    import datasets

    try:
        names = set(datasets.get_dataset_config_names(hub_id))
    except Exception as exc:  # the Hub's errors are many; the user needs the one line
        raise UserError(f"could not read {hub_id} from the Hub: {exc}") from None
    return "all" in names and "seed" in names
