"""The dataset card: `dataset_card/README.md` with its data-dependent front matter keys
(license, size_categories, configs, dataset_info) set, and its `<!-- general365:... -->`
marker lines replaced by the source note, the statistics and one sample problem per
category.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from ..errors import UserError
from ..schema import Category, Problem

# The checkout's dataset_card/ (the source of truth); an installed wheel carries a copy as
# general365/_shipped/dataset_card (setup.py's build step).
_SHIPPED_TEMPLATE = Path(__file__).resolve().parents[1] / "_shipped" / "dataset_card" / "README.md"
_CHECKOUT_TEMPLATE = Path(__file__).resolve().parents[2] / "dataset_card" / "README.md"
TEMPLATE = _SHIPPED_TEMPLATE if _SHIPPED_TEMPLATE.is_file() else _CHECKOUT_TEMPLATE

# One line per category, after the paper's section 2.1.
DEFINITIONS = {
    "Complex Constraints": "many interlocking conditions that must all hold at once.",
    "Branching & Enumeration": "systematic case analysis that must miss no case.",
    "Spatial & Temporal": "positions, moves, clocks and calendars evolving step by step.",
    "Recursive & Backtracking": "hypothesise, check, and back out of dead ends.",
    "Semantic Interference": "rules that defy common sense, or misleading details.",
    "Implicit Information": "premises not stated, found from clues and patterns.",
    "Optimal Strategy": "not just a solution, the best one under constraints.",
    "Probability & Uncertainty": "likelihoods and possibilities under incomplete information.",
}


def _size_category(n: int) -> str:
    for limit, name in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K")):
        if n < limit:
            return name
    return "100K<n<1M"


def _configs(info) -> list[dict[str, Any]]:
    """seed, variant, all, each with only the splits where it has rows (`datasets` cannot
    load an empty split)."""
    out = [{"config_name": c, "data_files": [{"split": s, "path": f"data/{c}/{s}-*.parquet"}
                                             for s in info[c]]}
           for c in ("seed", "variant") if info[c]]
    both = [{"split": s, "path": [f"data/{c}/{s}-*.parquet" for c in ("seed", "variant")
                                  if s in info[c]]} for s in info["all"]]
    out.append({"config_name": "all", "data_files": both, "default": True})
    return out


def _dataset_info(info, features) -> list[dict[str, Any]]:
    from datasets.info import DatasetInfo, DatasetInfosDict
    from datasets.splits import SplitDict, SplitInfo
    from huggingface_hub import DatasetCardData

    infos = DatasetInfosDict()
    for config, per_split in info.items():
        if not per_split:
            continue
        sd = SplitDict()
        for split, (rows, nbytes, _) in per_split.items():
            sd.add(SplitInfo(name=split, num_bytes=nbytes, num_examples=rows))
        infos[config] = DatasetInfo(
            features=features, splits=sd, config_name=config,
            download_size=sum(v[2] for v in per_split.values()),
            dataset_size=sum(v[1] for v in per_split.values()))
    card_data = DatasetCardData()
    infos.to_dataset_card_data(card_data)
    return card_data.to_dict()["dataset_info"]


def _statistics(info, problems: list[Problem]) -> str:
    lines = ["| split | seed | variant | all |", "|---|---|---|---|"]
    for split in info["all"]:
        lines.append(f"| `{split}` | " + " | ".join(str(info[c].get(split, (0,))[0])
                                                    for c in ("seed", "variant", "all")) + " |")
    types = Counter(p.answer_type.value for p in problems)
    lines += ["", "Answer types (all rows): " + ", ".join(
        f"`{t}` {n}" for t, n in sorted(types.items())) + "."]
    cats = Counter(c.value for p in problems if p.variant == 0 for c in p.categories)
    if cats:
        lines += ["", "Categories (seed problems; a problem may have several): " + ", ".join(
            f"{c} {cats.get(c, 0)}" for c in Category.values()) + "."]
    else:
        lines += ["", "This source carries no categories."]
    return "\n".join(lines)


def _pick_examples(sample: list[Problem]) -> dict[str, Problem]:
    """One seed per category (its first category first, then the shortest question), none
    used twice while another will do."""
    used: set[str] = set()
    out: dict[str, Problem] = {}
    seeds = [p for p in sample if p.variant == 0]
    for cat in Category:
        ranked = sorted((p for p in seeds if cat in p.categories),
                        key=lambda p: (p.id in used, p.categories[0] != cat,
                                       len(p.question), p.id))
        if ranked:
            out[cat.value] = ranked[0]
            used.add(ranked[0].id)
    return out


def _quote(text: str) -> str:
    return "\n".join("> " + line if line.strip() else ">" for line in text.strip().splitlines())


def _examples() -> str:
    try:
        from .sample import load_sample

        picked = _pick_examples(load_sample())
    except UserError as exc:  # a broken sample must not stop a build of the official data
        picked, note = {}, f"(the bundled sample could not be read: {str(exc).splitlines()[0]})"
    else:
        note = "(no sample problem in this category yet)"
    parts = []
    for cat in Category.values():
        d = DEFINITIONS[cat]
        parts.append(f"### {cat}\n\n{d[0].upper()}{d[1:]}\n")
        p = picked.get(cat)
        if p is None:
            parts.append(note + "\n")
            continue
        parts.append(f"Example `{p.id}` ({p.answer_type.value}; categories: "
                     f"{', '.join(c.value for c in p.categories)}):\n\n{_quote(p.question)}\n\n"
                     f"Gold answer: `{p.answer}`\n")
    return "\n".join(parts).rstrip()


def _source_note(source: str, notes: list[str]) -> str:
    shown = Path(source).name if Path(source).exists() else source  # no local paths
    lines = [f"Built from: `{shown}`." if source != "sample" else
             "Built from the toolkit's bundled sample (problems written for the toolkit in "
             "the style of General365; not the official problems)."]
    lines += [f"- {n}" for n in notes]
    return "\n".join(lines)


def render_card(*, info, features, problems: list[Problem], source: str,
                license: str | None, notes: list[str]) -> str:
    import yaml

    from .readers import read_front_matter

    if not TEMPLATE.is_file():
        raise UserError(f"the dataset card template is missing: {TEMPLATE}")
    meta = read_front_matter(TEMPLATE)
    body = TEMPLATE.read_text(encoding="utf-8").split("\n---", 1)[1].split("\n", 1)[1]
    meta["license"] = license or ("cc-by-4.0" if source == "sample" else "other")
    if meta["license"] != "other":
        # The Hub reads license_name/license_link only for `other`; beside a named licence
        # (the sample's CC BY 4.0) they would contradict it.
        meta.pop("license_name", None)
        meta.pop("license_link", None)
    meta["size_categories"] = [_size_category(len(problems))]
    meta["configs"] = _configs(info)
    meta["dataset_info"] = _dataset_info(info, features)
    front = yaml.safe_dump(meta, sort_keys=False, allow_unicode=True, width=100)
    body = (body.replace("<!-- general365:source -->", _source_note(source, notes))
                .replace("<!-- general365:statistics -->", _statistics(info, problems))
                .replace("<!-- general365:examples -->", _examples()))
    return f"---\n{front}---\n{body}"
