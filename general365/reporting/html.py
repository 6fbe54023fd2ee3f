"""The leaderboard page: one self-contained `index.html` (inline CSS, JS and SVG figures, no
network): the sortable ranked table, the figures, the tables and each run's provenance.
Every piece of text is escaped: model names are user input.
"""

from __future__ import annotations

import base64
import datetime as _dt
import json
from html import escape
from typing import Any, Iterable, Sequence

from .. import __version__
from .plots import Figure
from .summary import ModelSummary
from .tables import INT, NUM, PCT, Table, fmt, leaderboard_table

# The page may load nothing from anywhere: only inline styles, inline script, data: images.
CSP = ("default-src 'none'; img-src data:; style-src 'unsafe-inline'; "
       "script-src 'unsafe-inline'")

# Nothing widens the page: wide tables scroll in their own box (.wrap, bounded in height so
# that the sticky header works), long unbroken text (a model given as a path) wraps.
STYLE = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:24px auto;
max-width:1400px;padding:0 16px;color:#1d1d1f;background:#fff}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #ddd}
.note{color:#555;font-size:12.5px;max-width:1000px}
h1,h2,h3,p,dt,dd,figcaption,summary{overflow-wrap:anywhere}
.wrap{overflow:auto;max-width:100%;max-height:80vh;border:1px solid #e4e4e8}
.wrap table{margin:0}
table{border-collapse:collapse;font-size:12.5px;margin:6px 0}
th,td{padding:3px 7px;border-bottom:1px solid #eee;white-space:nowrap}
th{white-space:normal;vertical-align:bottom;max-width:120px}
th{background:#f4f4f6;position:sticky;top:0;text-align:left}
th.sortable{cursor:pointer;user-select:none}
th.sortable:hover{background:#e6e8f0}
th[aria-sort=ascending]::after{content:" \\25B2"}th[aria-sort=descending]::after{content:" \\25BC"}
td.num{text-align:right;font-variant-numeric:tabular-nums}
td.name{white-space:normal;overflow-wrap:anywhere;min-width:26ch;max-width:44ch}
tr.run td{background:#fff4e8;font-weight:600}
tr.group td{background:#fafafa;font-weight:700}
figure{margin:12px 0}figure img{max-width:100%;height:auto;border:1px solid #eee}
figcaption{font-size:12.5px;color:#444}
dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;font-size:12.5px}
dt{color:#555}dd{margin:0;word-break:break-word}
pre{background:#f7f7f7;padding:8px;font-size:11.5px;overflow-x:auto;max-height:360px}
"""

# Sorting: numbers by their data-v value (blank cells always last), text by locale order.
SCRIPT = """
(function(){
  function val(td){var v=td.getAttribute('data-v');return v===null?td.textContent.trim():v;}
  function sortBy(table, col, th){
    var numeric=th.getAttribute('data-kind')!=='text';
    var asc=th.getAttribute('aria-sort')!=='ascending';
    if(th.getAttribute('aria-sort')===null){asc=!numeric;}
    table.querySelectorAll('th').forEach(function(h){h.removeAttribute('aria-sort');});
    th.setAttribute('aria-sort',asc?'ascending':'descending');
    var body=table.tBodies[0];
    var rows=Array.prototype.slice.call(body.rows).filter(function(r){return !r.classList.contains('group');});
    body.querySelectorAll('tr.group').forEach(function(r){r.remove();});
    rows.sort(function(a,b){
      var x=val(a.cells[col]),y=val(b.cells[col]);
      if(x===''&&y==='')return 0;if(x==='')return 1;if(y==='')return -1;
      var c=numeric?(parseFloat(x)-parseFloat(y)):x.localeCompare(y);
      return asc?c:-c;
    });
    rows.forEach(function(r){body.appendChild(r);});
  }
  document.querySelectorAll('table.sortable').forEach(function(table){
    table.querySelectorAll('th').forEach(function(th,i){
      th.classList.add('sortable');th.setAttribute('title','click to sort');
      th.addEventListener('click',function(){sortBy(table,i,th);});
    });
  });
  document.documentElement.setAttribute('data-ready','1');
})();
"""


def _e(value: Any) -> str:
    return escape(str(value), quote=True)


def table_html(t: Table, *, table_id: str, run_names: set[str] | None = None) -> str:
    head = "".join(f'<th data-kind="{_e(c.kind)}" scope="col">{_e(c.name)}</th>'
                   for c in t.columns)
    names = [c.name for c in t.columns]
    body = []
    last_group = None
    for i, row in enumerate(t.rows):
        group = t.groups[i] if i < len(t.groups) else None
        # group title rows (Table 1); the sort script drops them once rows are re-ordered
        if group and group != last_group:
            body.append(f'<tr class="group"><td colspan="{len(t.columns)}">{_e(group)}</td></tr>')
        last_group = group
        cells = []
        for v, c in zip(row, t.columns):
            if c.kind in (PCT, NUM, INT):
                raw = "" if v is None else repr(float(v))
                cells.append(f'<td class="num" data-v="{_e(raw)}">'
                             f'{_e(fmt(v, c.kind, digits=1))}</td>')
            else:   # a model given as a long path wraps (see STYLE)
                cls = ' class="name"' if c.name == "Model" else ""
                cells.append(f"<td{cls}>{_e('' if v is None else v)}</td>")
        # the user's rows stand out; a Source column tells a run from a published namesake
        if "Source" in names:
            is_run = row[names.index("Source")] == "your run"
        else:
            is_run = "Model" in names and row[names.index("Model")] in (run_names or set())
        cls = ' class="run"' if is_run else ""
        body.append(f"<tr{cls}>" + "".join(cells) + "</tr>")
    note = f'<p class="note">{_e(t.note.replace("`", ""))}</p>' if t.note else ""
    return (f'<h2 id="{_e(table_id)}-title">{_e(t.title)}</h2>{note}<div class="wrap">'
            f'<table id="{_e(table_id)}" class="sortable"><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(body)}</tbody></table></div>')


def figure_html(f: Figure) -> str:
    with open(f.svg, "rb") as fh:
        data = base64.b64encode(fh.read()).decode("ascii")
    note = f" {_e(f.note)}" if f.note else ""
    return (f'<figure id="fig-{_e(f.key)}"><img alt="{_e(f.title)}" '
            f'src="data:image/svg+xml;base64,{data}"><figcaption>{_e(f.title)}.{note}'
            f"</figcaption></figure>")


def dl_html(items: Iterable[tuple[str, Any]]) -> str:
    """(name, value) pairs as a definition list; a value that is not text as JSON."""
    return "<dl>" + "".join(
        f"<dt>{_e(k)}</dt><dd>"
        f"{_e(v if isinstance(v, str) else json.dumps(v, ensure_ascii=False, default=str))}</dd>"
        for k, v in items) + "</dl>"


def provenance_html(models: Sequence[ModelSummary]) -> str:
    parts = ['<h2 id="provenance">Provenance of each run</h2>']
    runs = [m for m in models if m.kind == "run"]
    if not runs:
        parts.append('<p class="note">No runs of your own in this report.</p>')
    for m in runs:
        items = [(k, v) for k, v in m.provenance.items() if k != "run_json"]
        parts.append(f"<h3>{_e(m.name)}</h3>{dl_html(items + [('preset group', m.group)])}")
        if m.provenance.get("run_json"):
            text = json.dumps(m.provenance["run_json"], indent=2, ensure_ascii=False, default=str)
            parts.append(f"<details><summary>run.json</summary><pre>{_e(text)}</pre></details>")
    return "".join(parts)


def render_page(models: Sequence[ModelSummary], tables: Sequence[Table],
                figures: Sequence[Figure], *, settings: dict[str, Any],
                title: str = "General365") -> str:
    run_names = {m.name for m in models if m.kind == "run"}
    board = leaderboard_table(models)
    published = settings.get("published", "none")
    stamp = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    intro = (f"{len(run_names)} run model(s)"
             + (f" beside {sum(m.kind == 'published' for m in models)} published model(s) "
                f"(the paper's figures, {published} benchmark{' subset' if published == 'public' else ''})"
                if published != "none" else "")
             + f". Generated {stamp} by general365 {__version__}.")
    body = [f"<h1>{_e(title)} leaderboard</h1><p class=\"note\">{_e(intro)} Click a column "
            "header to sort. Accuracy counts only <code>correct</code> rows as right; "
            "ungraded rows are left out (see Coverage). Intervals: 95% percentile bootstrap "
            f"over seed families, {int(settings.get('bootstrap_resamples', 0))} resamples, "
            f"seed {int(settings.get('bootstrap_seed', 0))}.</p>",
            *[f'<p class="note"><strong>Note:</strong> {_e(n)}.</p>'
              for n in settings.get("notes", [])],
            table_html(board, table_id="leaderboard", run_names=run_names),
            *[figure_html(f) for f in figures],
            *[table_html(t, table_id=t.key, run_names=run_names) for t in tables],
            provenance_html(models)]
    return page(f"{title} leaderboard", "".join(body))


def page(title: str, body: str, *, style: str = STYLE, script: str = SCRIPT) -> str:
    """A self-contained page under the CSP: the report's, the analysis's and the audit's."""
    return ("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f'<meta http-equiv="Content-Security-Policy" content="{_e(CSP)}">'
            '<meta name="viewport" content="width=device-width,initial-scale=1">'
            f"<title>{_e(title)}</title>"
            f"<style>{style}</style></head><body>{body}"
            f"<script>{script}</script></body></html>\n")
