"""The review page: one self-contained `review.html` on which a person marks each sampled
verdict right or wrong and exports the marks as a labels file. The rows travel as JSON and
are shown with `textContent` only; marks are kept in localStorage under the sample's id."""

from __future__ import annotations

import json
from html import escape
from typing import Any, Sequence

from ..reporting.html import page
from .rows import ReviewRow

# Fields left out of an exported label: the text a reviewer reads, not what is scored.
BULKY = ("final", "response_tail", "question", "judge_raw")

STYLE = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0 auto;
max-width:1100px;padding:0 16px 80px;color:#1d1d1f;background:#fff}
h1{font-size:22px;margin:20px 0 4px}.note{color:#555;font-size:12.5px}
#bar{position:sticky;top:0;background:#fff;border-bottom:1px solid #ddd;padding:8px 0;
display:flex;gap:12px;align-items:center;flex-wrap:wrap;z-index:2}
#progress{font-weight:600}button{font:inherit;padding:3px 10px;cursor:pointer}
section.item{border:1px solid #ddd;border-radius:6px;margin:14px 0;padding:8px 14px}
section.item[data-label=right]{border-left:6px solid #2e7d32}
section.item[data-label=wrong]{border-left:6px solid #c62828}
section.item h2{font-size:15px;margin:4px 0 8px}
.tag{display:inline-block;font-size:11.5px;padding:0 6px;border-radius:9px;background:#eef;
margin-left:4px;font-weight:500}.tag.dis{background:#fde2c8}.tag.correct{background:#d8f0d8}
.tag.incorrect,.tag.no_answer,.tag.timeout,.tag.judge_failed{background:#f6d6d6}
dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;font-size:13px;margin:4px 0}
dt{color:#555}dd{margin:0;word-break:break-word;white-space:pre-wrap}
pre{background:#f7f7f7;padding:8px;font-size:12px;overflow:auto;max-height:320px;
white-space:pre-wrap;word-break:break-word}
fieldset.mark{border:1px solid #ccd;border-radius:6px;margin:8px 0 4px}
fieldset.mark label{margin-right:14px;cursor:pointer}
textarea.note{display:block;width:100%;box-sizing:border-box;margin-top:6px;min-height:2.6em}
#exported{width:100%;box-sizing:border-box;min-height:6em;font:12px monospace}
"""

# The helpers both review pages' scripts start with (expand's review page too), once
# `storeKey` is set: the marks kept in localStorage, and elements filled by textContent only.
HELPERS = r"""
  var marks={};
  try{marks=JSON.parse(localStorage.getItem(storeKey)||'{}')||{};}catch(e){marks={};}
  function save(){try{localStorage.setItem(storeKey,JSON.stringify(marks));}catch(e){}}
  function el(tag,cls,text){var e=document.createElement(tag);if(cls)e.className=cls;
    if(text!==undefined&&text!==null)e.textContent=String(text);return e;}
  function field(dl,name,value){if(value===null||value===undefined||value==='')return;
    dl.appendChild(el('dt',null,name));dl.appendChild(el('dd',null,
      typeof value==='string'?value:JSON.stringify(value)));}
  function fold(parent,title,text,open){if(text===null||text===undefined)return;
    var d=el('details');if(open)d.open=true;d.appendChild(el('summary',null,title));
    d.appendChild(el('pre',null,typeof text==='string'?text:JSON.stringify(text)));
    parent.appendChild(d);}
"""

SCRIPT = r"""
(function(){
  var data=JSON.parse(document.getElementById('audit-data').textContent);
  var rows=data.rows, manifest=data.manifest;
  var storeKey='general365-audit:'+manifest.sample_id;
""" + HELPERS + r"""  var main=document.getElementById('items');
  rows.forEach(function(r){
    var s=el('section','item');s.id='item-'+r.item;s.setAttribute('data-item',r.item);
    s.setAttribute('data-disagreement',r.disagreement?'1':'0');
    var h=el('h2',null,'#'+r.item+' \u00b7 '+r.model+' \u00b7 '+r.id+' \u00b7 run '+r.run);
    h.appendChild(el('span','tag',r.answer_type||'unknown type'));
    h.appendChild(el('span','tag '+r.status,r.status));
    h.appendChild(el('span','tag','by '+(r.method||'nobody')));
    if(r.disagreement)h.appendChild(el('span','tag dis','rule and judge disagree'));
    s.appendChild(h);
    var dl=el('dl');
    field(dl,'Gold answer',r.answer+(r.float_round?'  (float_round '+r.float_round+')':''));
    field(dl,'Extracted answer',r.extracted);
    field(dl,'Detail',r.detail);
    if(r.rule_status)field(dl,'First grader',r.rule_method+' said '+r.rule_status+', the judge said '+r.status);
    field(dl,'Judge',r.judge_model);
    field(dl,'Stratum',r.stratum+' (this row stands for '+(+r.weight).toFixed(2)+' rows)');
    field(dl,'Source',r.source);
    s.appendChild(dl);
    if(r.cut_off){s.appendChild(el('p','note','The reasoning block was never closed (cut off): the response has no final answer.'));}
    else{s.appendChild(el('div','note','Final answer region (after the reasoning):'));
      s.appendChild(el('pre','final',r.final===''?'(empty)':r.final));}
    fold(s,'Question',r.question,false);
    fold(s,'End of the response ('+r.response_chars+' characters in all)',r.response_tail,false);
    fold(s,'Judge reply',r.judge_raw,false);
    var fs=el('fieldset','mark');
    fs.appendChild(el('legend',null,'Is the verdict \u201c'+r.status+'\u201d right?'));
    ['right','wrong'].forEach(function(v){
      var lab=el('label');var inp=document.createElement('input');inp.type='radio';
      inp.name='mark-'+r.item;inp.value=v;inp.className='mark-'+v;
      inp.addEventListener('change',function(){set(r,v);});
      lab.appendChild(inp);lab.appendChild(document.createTextNode(v==='right'?' Right':' Wrong'));
      fs.appendChild(lab);});
    var clear=el('button','clear','Clear');clear.type='button';
    clear.addEventListener('click',function(){set(r,null);});fs.appendChild(clear);
    var note=el('textarea','note');note.placeholder='Note (optional): why';
    note.addEventListener('input',function(){var m=marks[r.item]||{label:null};m.note=note.value;
      marks[r.item]=m;save();});
    fs.appendChild(note);s.appendChild(fs);main.appendChild(s);
  });
  function show(r){var s=document.getElementById('item-'+r.item);var m=marks[r.item]||{};
    s.setAttribute('data-label',m.label||'');
    s.querySelectorAll('input[type=radio]').forEach(function(i){i.checked=(i.value===m.label);});
    s.querySelector('textarea.note').value=m.note||'';}
  function set(r,label){var m=marks[r.item]||{note:''};m.label=label;marks[r.item]=m;save();
    show(r);progress();filter();}
  function progress(){var n=rows.filter(function(r){return marks[r.item]&&marks[r.item].label;}).length;
    var wrong=rows.filter(function(r){return marks[r.item]&&marks[r.item].label==='wrong';}).length;
    document.getElementById('progress').textContent=n+' of '+rows.length+' marked ('+wrong+' wrong)';}
  function filter(){var f=document.getElementById('filter').value;
    rows.forEach(function(r){var m=(marks[r.item]||{}).label;var keep=f==='all'||
      (f==='unmarked'&&!m)||(f==='wrong'&&m==='wrong')||(f==='disagreements'&&r.disagreement);
      document.getElementById('item-'+r.item).hidden=!keep;});}
  function labels(){var out=[];rows.forEach(function(r){var m=marks[r.item];
      if(!m||!m.label)return;var o={};Object.keys(r).forEach(function(k){
        if(BULKY.indexOf(k)<0)o[k]=r[k];});
      o.label=m.label;o.note=m.note||'';
      out.push(JSON.stringify(o));});
    return out.length?out.join('\n')+'\n':'';}
  var BULKY=data.bulky;
  document.getElementById('export').addEventListener('click',function(){
    var text=labels();var box=document.getElementById('exported');box.hidden=false;box.value=text;
    var n=text?text.trim().split('\n').length:0;
    document.getElementById('status').textContent=n?('exported '+n+' label(s)'):'nothing marked yet';
    if(!n)return;
    var a=document.getElementById('download');
    a.href=URL.createObjectURL(new Blob([text],{type:'application/x-ndjson'}));
    a.download='labels-'+manifest.sample_id+'.jsonl';a.click();});
  document.getElementById('import').addEventListener('change',function(ev){
    var file=ev.target.files[0];if(!file)return;var reader=new FileReader();
    reader.onload=function(){var byKey={};rows.forEach(function(r){
        byKey[JSON.stringify([r.model,r.id,r.run])]=r;});
      var n=0;String(reader.result).split('\n').forEach(function(line){
        if(!line.trim())return;var o;try{o=JSON.parse(line);}catch(e){return;}
        var r=byKey[JSON.stringify([o.model||'',String(o.id),o.run||0])];
        if(!r||(o.label!=='right'&&o.label!=='wrong'))return;
        marks[r.item]={label:o.label,note:o.note||''};n++;});
      save();rows.forEach(show);progress();filter();
      document.getElementById('status').textContent='imported '+n+' label(s)';};
    reader.readAsText(file);});
  document.getElementById('filter').addEventListener('change',filter);
  rows.forEach(show);progress();filter();
  document.documentElement.setAttribute('data-ready','1');
})();
"""


def _json_for_script(value: Any) -> str:
    """JSON that cannot close its <script> element: `<`, `>` and `&` as \\u escapes (valid
    JSON, read back unchanged by JSON.parse)."""
    text = json.dumps(value, ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def render_page(rows: Sequence[ReviewRow], manifest: dict) -> str:
    data = {"manifest": manifest, "rows": [r.to_dict() for r in rows], "bulky": list(BULKY)}
    strata = "; ".join(f"{s['stratum']}: {s['drawn']} of {s['population']}"
                       for s in manifest.get("strata", []))
    intro = (f"{len(rows)} graded rows to review ({manifest.get('disagreements', 0)} where the "
             f"rule and the judge disagree, all of them; the rest a stratified sample of "
             f"{manifest.get('n')} with seed {manifest.get('seed')}, from "
             f"{manifest.get('population')} graded rows). Sample {manifest.get('sample_id')}.")
    how = ("For each row, decide whether the grader's verdict is right: \u201ccorrect\u201d is "
           "right when the answer really is correct; every other status (incorrect, "
           "no_answer, timeout, judge_failed) is right when the answer really is not correct. "
           "Marks are kept in this browser as you go. Export writes the marked rows as a "
           "labels file for: general365 audit score LABELS.jsonl --out DIR")
    return page("General365 grading audit",
                "<h1>General365 grading audit</h1>"
                f'<p class="note">{escape(intro)}</p><p class="note">{escape(how)}</p>'
                f'<details class="note"><summary>Strata</summary>{escape(strata)}</details>'
                '<div id="bar"><span id="progress"></span>'
                '<label>Show <select id="filter"><option value="all">all</option>'
                '<option value="unmarked">unmarked</option><option value="wrong">marked wrong'
                '</option><option value="disagreements">disagreements</option></select></label>'
                '<button type="button" id="export">Export labels (JSONL)</button>'
                '<label>Import labels <input type="file" id="import" accept=".jsonl,.json,.txt">'
                '</label><span id="status" class="note"></span><a id="download" hidden></a>'
                '</div><textarea id="exported" readonly hidden aria-label="exported labels">'
                '</textarea><main id="items"></main><script type="application/json" '
                f'id="audit-data">{_json_for_script(data)}</script>',
                style=STYLE, script=SCRIPT)
