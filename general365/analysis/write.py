"""Write an analysis under DIR: analysis.json, tsne.csv, tables/*.csv, figures/*.png|svg and
index.html (one self-contained page in the report's style, every text escaped), built beside
DIR and swapped in whole (folders.write_folder): the old analysis or the new one, never a
mix; other files in DIR are kept. The tables are typed values (tests check values, not
strings); report.tables writes their CSV form: shares as percentages with two decimals
(columns marked `(%)`), similarities with three decimals."""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any, Sequence

from .. import __version__
from ..errors import UserError
from ..folders import write_folder
from ..fsutil import write_text
from ..reporting.html import _e, dl_html, figure_html, page
from ..reporting.plots import Figure
from ..reporting.tables import INT, NUM, PCT, SIM, Column, Table, to_csv
from ..reporting.tables import fmt as _fmt
from . import figures as figs
from .similarity_prompt import BASIS_TEXT, SCORES

if TYPE_CHECKING:
    from .core import Analysis
    from .similarity import Similarity


def fmt(value: Any, kind: str) -> str:
    """A cell as the page shows it: as the report's, but means keep one decimal."""
    if kind == NUM and value is not None:
        return f"{value:.1f}"
    return _fmt(value, kind, digits=1)


def overview_table(a: "Analysis") -> Table:
    return Table("datasets", "Datasets: size and diversity", [
        Column("Dataset"), Column("Kind"), Column("Items", INT), Column("Seeds", INT),
        Column("Variants", INT), Column("Mean words", NUM),
        Column("NN similarity mean", SIM), Column("NN similarity median", SIM),
        Column("Near-duplicate share", PCT), Column("Mean pairwise similarity", SIM),
        Column("Local collapse", SIM), Column("Variant-seed similarity mean", SIM),
        Column("Near-copy variants", PCT)],
        [[d.name, d.set.kind, d.stats.n, d.stats.seeds, d.stats.variants,
          float(sum(d.stats.lengths.words) / d.stats.n),
          dv["nn_similarity_mean"], dv["nn_similarity_median"], dv["near_duplicate_share"],
          dv["mean_pairwise_similarity"], dv["local_collapse"],
          dv["variant_seed_similarity_mean"], dv["near_copy_share"]]
         for d in a.datasets for dv in [d.diversity.to_dict()]],
        note="NN: nearest neighbour (cosine). Near-duplicate: the nearest neighbour at or "
             "above the threshold. Local collapse: (D - B) / (1 - B), D the mean k-NN "
             "similarity of the densest 10% of items, B the mean pairwise similarity.")


def _seed_shares(t: Table, sets: list, keys: Sequence, counts) -> Table:
    """A row per key: each set's seed problems with it (`counts(d)` maps key -> count) and
    their share of the set's seed problems."""
    t.columns += ([Column(f"{d.name} seeds", INT) for d in sets]
                  + [Column(f"{d.name} share", PCT) for d in sets])
    totals = [sum(d.stats.labels_per_problem.values()) or 1 for d in sets]
    t.rows = [[k] + n + [x / total for x, total in zip(n, totals)]
              for k in keys for n in [[counts(d).get(k, 0) for d in sets]]]
    return t


def categories_table(a: "Analysis") -> Table:
    from ..schema import Category

    sets = [d for d in a.datasets if d.stats.has_categories]
    cats = list(dict.fromkeys([c.value for c in Category]
                              + [c for d in sets for c in d.stats.categories]))
    return _seed_shares(Table("categories", "Challenge categories (seed problems)",
                              [Column("Category")],
                              note="A seed with several categories counts in each (the "
                                   "shares add up to more than 100%)."),
                        sets, cats, lambda d: d.stats.categories)


def labels_table(a: "Analysis") -> Table:
    sets = [d for d in a.datasets if d.stats.has_categories]
    ks = sorted({k for d in sets for k in d.stats.labels_per_problem})
    return _seed_shares(Table("labels_per_problem", "Number of categories per seed problem",
                              [Column("Categories", INT)]),
                        sets, ks, lambda d: d.stats.labels_per_problem)


def answer_types_table(a: "Analysis") -> Table:
    return Table("answer_types", "Answer types (all items)",
                 [Column("Dataset"), Column("Answer type"), Column("Items", INT),
                  Column("Share", PCT)],
                 [[d.name, k, v, v / d.stats.n]
                  for d in a.datasets for k, v in d.stats.answer_types.items()])


def lengths_table(a: "Analysis") -> Table:
    cols = [Column("Dataset"), Column("Unit")] + [Column(k, NUM) for k in
                                                   ("mean", "min", "p10", "p25", "p50",
                                                    "p75", "p90", "max")]
    return Table("question_length", "Question length", cols,
                 [[d.name, unit] + [s[c.name] for c in cols[2:]]
                  for d in a.datasets for unit, s in d.stats.lengths.summary().items()])


def near_duplicates_table(a: "Analysis") -> Table:
    return Table("near_duplicates", "Items whose nearest neighbour is a near-duplicate",
                 [Column("Dataset"), Column("Id"), Column("Nearest id"),
                  Column("Similarity", SIM)],
                 [[d.name, d.set.items[i].id, div.nn_ids[i], float(div.nn_similarity[i])]
                  for d in a.datasets for div in [d.diversity]
                  for i in sorted(range(div.n), key=lambda j: -div.nn_similarity[j])
                  if div.nn_similarity[i] >= div.threshold])


def families_table(a: "Analysis") -> Table:
    return Table("variant_seed_similarity", "Each variant's similarity to its seed", [
        Column("Dataset"), Column("Variant id"), Column("Seed id"), Column("Similarity", SIM),
        Column("Structure", SIM), Column("Judge", INT), Column("Near-copy")],
        [[d.name, link.variant_id, link.seed_id, link.similarity, link.structure,
          link.judge_score, "yes" if link.near_copy else "no"]
         for d in a.datasets for link in d.diversity.links],
        note="Similarity: the embedder's cosine. Structure: the near-copy measure "
             "(the ask, the constraints and the reasoning compared with names, "
             "numbers and content words masked); a near-copy is at or above its "
             "threshold (the diversity audit of the paper's variant selection). Judge: "
             "with an LLM judge, its 0-5 reasoning similarity of variant and seed; a "
             "near-copy then needs 5, or 4 with a structure score of 0.60 or more.")


def difficulty_table(a: "Analysis") -> Table:
    return Table("difficulty", "Accuracy and output length per benchmark per model "
                 "(Figures 8 and 9)",
                 [Column("Benchmark"), Column("Model"), Column("Accuracy", PCT),
                  Column("Graded", INT), Column("Rows", INT), Column("Avg output tokens", NUM)],
                 [[c.benchmark, c.model, c.accuracy, c.graded, c.rows, c.avg_output_tokens]
                  for c in a.difficulty.cells])


def solve_rates_table(a: "Analysis") -> Table:
    sr = a.difficulty.solve_rates
    return Table("solve_rates", "Each problem's solve rate across models and runs (difficulty "
                 "filtering)",
                 [Column("Benchmark"), Column("Id"), Column("Seed id"), Column("Models", INT),
                  Column("Graded answers", INT), Column("Correct", INT),
                  Column("Solve rate", PCT), Column("Flag")],
                 [[p.benchmark, p.id, p.seed_id, len(p.per_model), p.answers, p.correct,
                   p.rate, p.flag or ""] for p in sr.problems],
                 note=f"too_easy: every model solves it in at least {100 * sr.too_easy:g}% "
                      "of its graded runs (the paper filters these out); check_gold: no model "
                      "solves it (a wrong gold, or a very hard problem). Flagged rows first.")


def family_spread_table(a: "Analysis") -> Table:
    sr = a.difficulty.solve_rates
    return Table("family_spread", "Seed families: how far their members' solve rates differ",
                 [Column("Benchmark"), Column("Seed id"), Column("Members", INT),
                  Column("Lowest rate", PCT), Column("Highest rate", PCT),
                  Column("Spread", PCT), Column("Hardest"), Column("Easiest"),
                  Column("Flagged")],
                 [[f.benchmark, f.seed_id, f.members, f.lowest, f.highest, f.spread,
                   f.hardest, f.easiest, "yes" if f.flagged else "no"] for f in sr.families],
                 note=f"Flagged: a spread of {100 * sr.family_spread:g} points or more "
                      "(variants not of their seed's difficulty). Families of two or more "
                      "graded members.")


PAPER = "paper (section 3.3)"


def similarity_table(sim: "Similarity") -> Table:
    t = Table("reasoning_similarity", "Reasoning similarity (Figure 7): each item against its "
              "nearest neighbour, scored 0-5 by the judge",
              [Column("Dataset"), Column("Source"), Column("Judge"), Column("Items", INT),
               Column("Scored", INT), Column("Failed", INT), Column("Mean score", SIM),
               Column("Share 1-2", PCT), Column("Share 5", PCT)]
              + [Column(f"Score {s}", INT) for s in SCORES] + [Column("Compared on")],
              note="0: logically independent; 5: essentially the same reasoning skeleton. "
                   "Shares are of the scored items. The paper's rows are its published "
                   "figures (an empty cell: not printed in the paper).")
    t.rows = [[s.name, "this analysis", sim.judge.get("model") or "", s.items, len(s.scores),
               s.failed, s.mean, s.share_1_2, s.share_5] + s.counts
              + ["; ".join(f"{n} {BASIS_TEXT[b]}" for b, n in s.basis.items() if n)]
              for s in sim.sets]
    t.rows += [[p.benchmark, PAPER, p.judge, None, None, None, p.mean, p.share_1_2, p.share_5]
               + [None] * len(SCORES) + [BASIS_TEXT["reasoning"]] for p in sim.published]
    return t


def similarity_pairs_table(sim: "Similarity") -> Table:
    return Table("reasoning_similarity_pairs", "Reasoning similarity of each item and its "
                 "nearest neighbour",
                 [Column("Dataset"), Column("Id"), Column("Neighbour id"), Column("Cosine", SIM),
                  Column("Compared on"), Column("Score", INT), Column("Votes"), Column("Note")],
                 [[s.name, p.item_id, p.neighbour_id, p.cosine, BASIS_TEXT[p.basis], p.score,
                   " ".join(str(v) for v in p.votes), p.detail or ""]
                  for s in sim.sets for p in s.pairs],
                 note="An empty score: the judge gave no usable answer (the note says why); "
                      "rerun to ask again.")


def all_tables(a: "Analysis") -> list[Table]:
    tables = []
    if a.datasets:
        tables.append(overview_table(a))
        if any(d.stats.has_categories for d in a.datasets):
            tables += [categories_table(a), labels_table(a)]
        if any(d.stats.answer_types for d in a.datasets):
            tables.append(answer_types_table(a))
        tables += [lengths_table(a), near_duplicates_table(a)]
        if any(d.diversity.links for d in a.datasets):
            tables.append(families_table(a))
    if a.similarity is not None:
        tables += [similarity_table(a.similarity), similarity_pairs_table(a.similarity)]
    if a.difficulty:
        tables.append(difficulty_table(a))
        if a.difficulty.solve_rates is not None:
            tables += [solve_rates_table(a), family_spread_table(a)]
    return tables


TMP_BASE = "general365-analysis"
PAGE_ROWS = 300   # longer tables are cut on the page (the CSV has every row)

MEASURES = (
    ("NN similarity", "each item's cosine similarity to its nearest other item in the set; "
                      "a diverse set has low values"),
    ("Near-duplicate share", "the share of items whose nearest neighbour is at or above the "
                             "near-duplicate threshold"),
    ("Local collapse", "(D - B) / (1 - B): D is the mean similarity of the densest 10% of "
                       "items to their k nearest neighbours, B the mean similarity of all "
                       "pairs. 0: no neighbourhood is tighter than random pairs; 1: the "
                       "densest neighbourhoods are copies"),
    ("Variant-seed similarity", "each variant's cosine similarity to its own seed, and its "
                                "structure score: the ask, the constraints and the "
                                "reasoning compared with names, numbers and content words "
                                "masked; at or above the structure threshold it is flagged "
                                "as a near-copy"),
)
SIMILARITY_MEASURE = (
    "Reasoning similarity", "each item and its nearest neighbour (problem, reasoning, final "
                            "answer) scored 0-5 by an LLM judge: 0 logically independent, 5 "
                            "essentially the same reasoning skeleton; the mean, the share "
                            "scored 1-2 and the share scored 5 per set, beside the paper's "
                            "published figures (Figure 7)")


def table_html(t: Table, *, limit: int = PAGE_ROWS) -> str:
    head = "".join(f'<th data-kind="{_e(c.kind)}" scope="col">{_e(c.name)}'
                   f'{" (%)" if c.kind == PCT else ""}</th>' for c in t.columns)
    body = []
    for row in t.rows[:limit]:
        cells = []
        for v, c in zip(row, t.columns):
            if c.kind in (PCT, NUM, INT, SIM):
                raw = "" if v is None else repr(float(v))
                cells.append(f'<td class="num" data-v="{_e(raw)}">{_e(fmt(v, c.kind))}</td>')
            else:
                cells.append(f"<td>{_e('' if v is None else v)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    notes = [t.note] if t.note else []
    if len(t.rows) > limit:
        notes.append(f"First {limit} of {len(t.rows)} rows; tables/{t.key}.csv has them all.")
    if not t.rows:
        notes.append("No rows.")
    note = "".join(f'<p class="note">{_e(n)}</p>' for n in notes)
    return (f'<h2 id="{_e(t.key)}-title">{_e(t.title)}</h2>{note}<div class="wrap">'
            f'<table id="{_e(t.key)}" class="sortable"><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(body)}</tbody></table></div>')


def render_page(a: "Analysis", tables: Sequence[Table], figures: Sequence[Figure]) -> str:
    names = ", ".join(d.name for d in a.datasets) or "no question sets"
    emb = a.settings.get("embedder") or {}
    intro = (f"{len(a.datasets)} set(s): {names}. Embedder: {emb.get('identity', '-')}"
             f"{' (names and numbers masked)' if a.settings.get('mask') else ''}; "
             f"near-duplicate threshold {a.settings.get('near_duplicate_threshold')}. "
             f"Generated {a.created} by general365 {__version__}. Click a column header "
             "to sort.")
    shown = MEASURES + ((SIMILARITY_MEASURE,) if a.similarity is not None else ())
    measures = "".join(f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>" for k, v in shown)
    body = [f'<h1>General365 benchmark analysis</h1><p class="note">{_e(intro)}</p>']
    body += [table_html(t) for t in tables[:1]]
    body.append(f'<h2 id="measures">Measures</h2><dl>{measures}</dl>')
    body += [figure_html(f) for f in figures]
    body += [table_html(t) for t in tables[1:]]
    notes = [f"<li><strong>{_e(d.name)}</strong>: {_e(n)}</li>"
             for d in a.datasets for n in d.notes]
    notes += [f"<li>{_e(n)}</li>" for n in (a.similarity.notes if a.similarity else [])]
    if notes:
        body.append(f'<h2 id="notes">Notes</h2><ul class="note">{"".join(notes)}</ul>')
    body.append(f'<h2 id="settings">Settings</h2>{dl_html(a.settings.items())}')
    return page("General365 benchmark analysis", "".join(body))


def tsne_csv(a: "Analysis") -> str:
    return to_csv(Table("tsne", "", [Column(c) for c in ("dataset", "id", "x", "y")],
                        [[d.name, item.id, f"{x:.6f}", f"{y:.6f}"] for d in a.datasets
                         if d.tsne.coords is not None
                         for item, (x, y) in zip(d.set.items, d.tsne.coords)]))


def build_figures(a: "Analysis", out_dir: str) -> list:
    os.makedirs(out_dir, exist_ok=True)
    out = []
    if a.datasets:
        out += [figs.statistics_figure(a.datasets, out_dir),
                figs.tsne_figure(a.datasets, out_dir,
                                 a.settings.get("embedder", {}).get("identity", "")),
                figs.diversity_figure(a.datasets, out_dir)]
    if a.similarity is not None:
        out.append(figs.similarity_figure(a.similarity, out_dir))
    if a.difficulty:
        out += figs.difficulty_figures(a.difficulty, out_dir)
    return out


def check_out(out: str) -> str:
    """`out` as an absolute path, refused at once when it cannot be the output folder (so
    that a long analysis is not run for nothing)."""
    out = os.path.abspath(out)
    if os.path.exists(out) and not os.path.isdir(out):
        raise UserError(f"--out {out}: exists and is not a folder; expected a folder")
    return out


def write_analysis(a: "Analysis", out: str) -> list[str]:
    """Write under `out` (created if needed); returns the files written."""
    out = check_out(out)

    def build(tmp: str) -> None:
        tables = all_tables(a)
        os.makedirs(os.path.join(tmp, "tables"))
        for t in tables:
            write_text(os.path.join(tmp, "tables", t.key + ".csv"), to_csv(t))
        if a.datasets:
            write_text(os.path.join(tmp, "tsne.csv"), tsne_csv(a))
        write_text(os.path.join(tmp, "analysis.json"),
                   json.dumps(a.to_dict(), indent=2, ensure_ascii=False, allow_nan=False) + "\n")
        figures = build_figures(a, os.path.join(tmp, "figures"))
        write_text(os.path.join(tmp, "index.html"), render_page(a, tables, figures))

    return write_folder(out, build, base=TMP_BASE, what="the analysis",
                        own=("tables", "figures"))[1]
