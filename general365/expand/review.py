"""The review page (`review.html`, docs/expand.md, section 4): one self-contained page, each
seed beside its candidates; a reviewer's decisions are exported as JSON Lines for
`general365 expand select`. The rows travel as JSON inside the page and reach the screen
through `textContent` only, so nothing a model wrote becomes markup.
"""

from __future__ import annotations

import datetime as _dt
import os
from html import escape
from typing import Any, Sequence

from ..audit.page import HELPERS, _json_for_script
from ..errors import UserError
from ..fsutil import check_target, write_text
from ..reporting.html import page
from ..schema import AnswerType, Category, Problem
from .candidates import ExpansionCandidate, read_candidates, read_seeds
from .checks import BLOCKING, FLAGS

REVIEW = "review.html"
EDITABLE = ("question", "reasoning", "answer", "answer_type", "float_round", "categories")


def page_data(folder: str, seeds: Sequence[Problem], cands: Sequence[ExpansionCandidate]
              ) -> dict[str, Any]:
    by_seed: dict[str, list[dict[str, Any]]] = {}
    for c in cands:
        by_seed.setdefault(c.seed_id, []).append(c.to_dict())
    rows = [{"seed": s.to_dict(), "candidates": by_seed[s.id]} for s in seeds
            if s.id in by_seed]
    stray = sorted(set(by_seed) - {s.id for s in seeds})
    if stray:
        raise UserError(f"{os.path.join(folder, 'candidates.jsonl')}: candidates of seed "
                        f"{stray[0]!r}, which is not in {os.path.join(folder, 'seeds.jsonl')}")
    return {"manifest": {"folder": os.path.abspath(folder),
                         "created": _dt.datetime.now(_dt.timezone.utc)
                         .isoformat(timespec="seconds"),
                         "candidates": len(cands), "seeds": len(rows), "flags": FLAGS,
                         "blocking": list(BLOCKING), "answer_types": AnswerType.values(),
                         "categories": Category.values(), "editable": list(EDITABLE)},
            "families": rows}


def render_review(data: dict[str, Any]) -> str:
    m = data["manifest"]
    flagged = sum(1 for f in data["families"] for c in f["candidates"] if c["flags"])
    intro = (f"{m['candidates']} candidate(s) of {m['seeds']} seed(s); {flagged} flagged by "
             f"the automatic checks. Folder: {m['folder']}.")
    how = ("Accept or reject each candidate; Edit changes its fields (an edit accepts it "
           "unless you reject it). Decisions are kept in this browser as you go. Export writes "
           "them as a decisions file for: general365 expand select DIR --decisions FILE "
           "--per-seed 3 --out variants.jsonl")
    legend = "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}"
                     f"{' (blocking: edit it before accepting)' if k in BLOCKING else ''}</dd>"
                     for k, v in FLAGS.items())
    body = ("<h1>General365 variant review</h1>"
            f'<p class="note">{escape(intro)}</p><p class="note">{escape(how)}</p>'
            f'<details class="note"><summary>Flags</summary><dl>{legend}</dl></details>'
            '<div id="bar"><span id="progress"></span>'
            '<label>Show <select id="filter"><option value="all">all</option>'
            '<option value="undecided">undecided</option><option value="flagged">flagged'
            '</option><option value="clean">no flags</option><option value="accept">accepted'
            '</option><option value="reject">rejected</option></select></label>'
            '<button type="button" id="export">Export decisions (JSONL)</button>'
            '<label>Import decisions <input type="file" id="import" accept=".jsonl,.json,.txt">'
            '</label><span id="status" class="note"></span><a id="download" hidden></a></div>'
            '<textarea id="exported" readonly hidden aria-label="exported decisions"></textarea>'
            '<main id="families"></main>'
            f'<script type="application/json" id="review-data">{_json_for_script(data)}</script>')
    return page("General365 variant review", body, style=STYLE, script=SCRIPT)


def write_review(folder: str, *, out: str | None = None) -> tuple[str, int]:
    """Write the review page of an expansion folder (default `folder/review.html`); the
    page's path and the number of candidates on it."""
    cands = read_candidates(folder)
    seeds = read_seeds(folder, required=True)
    path = out or os.path.join(folder, REVIEW)
    if os.path.isdir(path):
        raise UserError(f"--out {path}: is a folder; expected the page's file name")
    check_target(path)
    write_text(path, render_review(page_data(folder, seeds, cands)))
    return path, len(cands)


STYLE = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0 auto;
max-width:1200px;padding:0 16px 80px;color:#1d1d1f;background:#fff}
h1{font-size:22px;margin:20px 0 4px}.note{color:#555;font-size:12.5px}
#bar{position:sticky;top:0;background:#fff;border-bottom:1px solid #ddd;padding:8px 0;
display:flex;gap:12px;align-items:center;flex-wrap:wrap;z-index:2}
#progress{font-weight:600}button{font:inherit;padding:3px 10px;cursor:pointer}
section.family{border:1px solid #ccd;border-radius:8px;margin:18px 0;padding:8px 14px;
background:#fafaff}section.family h2{font-size:16px;margin:4px 0 8px}
div.seed{border-left:4px solid #889;padding:2px 10px;margin-bottom:10px}
article.cand{border:1px solid #ddd;border-radius:6px;margin:10px 0;padding:6px 12px;
background:#fff}article.cand h3{font-size:14.5px;margin:4px 0 6px}
article.cand[data-decision=accept]{border-left:6px solid #2e7d32}
article.cand[data-decision=reject]{border-left:6px solid #c62828;opacity:.8}
.tag{display:inline-block;font-size:11.5px;padding:0 6px;border-radius:9px;background:#eef;
margin-left:4px;font-weight:500}.tag.flag{background:#fde2c8}.tag.block{background:#f6d6d6}
.tag.clean{background:#d8f0d8}.tag.edited{background:#e3d7f5}
ul.flags{margin:2px 0 6px;padding-left:18px;font-size:13px}
dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;font-size:13px;margin:4px 0}
dt{color:#555}dd{margin:0;word-break:break-word;white-space:pre-wrap}
pre{background:#f7f7f7;padding:8px;font-size:12.5px;overflow:auto;max-height:360px;
white-space:pre-wrap;word-break:break-word;margin:4px 0}
fieldset.decide{border:1px solid #ccd;border-radius:6px;margin:8px 0 4px}
fieldset.decide label{margin-right:14px;cursor:pointer}
div.edit label{display:block;margin:6px 0 2px;color:#555;font-size:12.5px}
div.edit textarea,textarea.note{display:block;width:100%;box-sizing:border-box;min-height:2.6em}
div.edit textarea.edit-question,div.edit textarea.edit-reasoning{min-height:8em}
#exported{width:100%;box-sizing:border-box;min-height:6em;font:12px monospace}
"""

SCRIPT = r"""
(function(){
  var data=JSON.parse(document.getElementById('review-data').textContent);
  var m=data.manifest, storeKey='general365-expand:'+m.folder;
""" + HELPERS + r"""  function foldNonEmpty(parent,title,text,open){if(text!=='')fold(parent,title,text,open);}
  function keyOf(c){return c.seed_id+'\u0000'+c.candidate;}
  function shown(v){return v===null||v===undefined?'':(Array.isArray(v)?v.join(', '):String(v));}
  var cands=[], main=document.getElementById('families');
  data.families.forEach(function(f,fi){
    var s=f.seed, sec=el('section','family');sec.id='family-'+fi;sec.setAttribute('data-seed',s.id);
    var h=el('h2',null,'Seed '+s.id);h.appendChild(el('span','tag',s.answer_type));
    (s.categories||[]).forEach(function(c){h.appendChild(el('span','tag',c));});
    sec.appendChild(h);
    var sd=el('div','seed'), dl=el('dl');
    field(dl,'Answer',s.answer+(s.float_round?'  (float_round '+s.float_round+')':''));
    sd.appendChild(dl);sd.appendChild(el('pre','question',s.question));
    foldNonEmpty(sd,'Seed reasoning',s.reasoning,false);sec.appendChild(sd);
    f.candidates.forEach(function(c){
      var i=cands.length;cands.push(c);
      var a=el('article','cand');a.id='cand-'+i;a.setAttribute('data-item',i);
      a.setAttribute('data-seed',c.seed_id);a.setAttribute('data-candidate',c.candidate);
      a.setAttribute('data-flagged',c.flags.length?'1':'0');
      var h3=el('h3',null,'Candidate '+c.candidate+' \u00b7 '+c.id);
      if(!c.flags.length)h3.appendChild(el('span','tag clean','no flags'));
      c.flags.forEach(function(fl){var t=el('span','tag '+(m.blocking.indexOf(fl.flag)>=0?'block':'flag'),fl.flag);
        t.title=fl.reason;h3.appendChild(t);});
      if(c.solver){var sv=c.solver;h3.appendChild(el('span','tag','solver '+sv.correct+'/'+sv.graded+
        (sv.graded<sv.k?' (of '+sv.k+')':'')));}
      h3.appendChild(el('span','tag edited hidden-edited',''));
      a.appendChild(h3);
      if(c.flags.length){var ul=el('ul','flags');c.flags.forEach(function(fl){
        var li=el('li');li.appendChild(el('b',null,fl.flag));li.appendChild(document.createTextNode(': '+fl.reason));
        ul.appendChild(li);});a.appendChild(ul);}
      var d=el('dl');
      field(d,'Answer',c.answer);field(d,'Answer type',c.answer_type);
      field(d,'float_round',c.float_round);field(d,'Change',c.change);
      if(c.solver)field(d,'Solver',c.solver.model+': '+c.solver.correct+' of '+c.solver.graded+
        ' graded answers match the gold'+(c.solver.ungraded_reason?' ('+c.solver.ungraded_reason+')':''));
      a.appendChild(d);
      if(c.question!==null&&c.question!==undefined)a.appendChild(el('pre','question',shown(c.question)));
      foldNonEmpty(a,'Reasoning',c.reasoning,false);
      foldNonEmpty(a,'The model\'s reply (it did not parse)',c.reply,true);
      var fs=el('fieldset','decide');fs.appendChild(el('legend',null,'Decision'));
      ['accept','reject'].forEach(function(v){var lab=el('label'),inp=document.createElement('input');
        inp.type='radio';inp.name='decide-'+i;inp.value=v;inp.className='decide-'+v;
        inp.addEventListener('change',function(){decide(i,v);});lab.appendChild(inp);
        lab.appendChild(document.createTextNode(v==='accept'?' Accept':' Reject'));fs.appendChild(lab);});
      var clear=el('button','clear','Clear');clear.type='button';
      clear.addEventListener('click',function(){var k=keyOf(c);delete marks[k];save();show(i);progress();filter();});
      var edit=el('button','edit','Edit');edit.type='button';fs.appendChild(clear);fs.appendChild(edit);
      var box=el('div','edit');box.hidden=true;
      edit.addEventListener('click',function(){box.hidden=!box.hidden;});
      m.editable.forEach(function(name){var lab=el('label',null,name+(name==='categories'?' (comma-separated)':''));
        var inp;
        if(name==='answer_type'){inp=document.createElement('select');
          m.answer_types.forEach(function(t){var o=el('option',null,t);o.value=t;inp.appendChild(o);});}
        else if(name==='question'||name==='reasoning'){inp=document.createElement('textarea');}
        else{inp=document.createElement('input');inp.type='text';}
        inp.className='edit-'+name;inp.setAttribute('data-field',name);
        inp.addEventListener('input',function(){edited(i,name,inp.value);});
        inp.addEventListener('change',function(){edited(i,name,inp.value);});
        lab.appendChild(inp);box.appendChild(lab);});
      fs.appendChild(box);
      var note=el('textarea','note');note.placeholder='Note (optional): why';
      note.addEventListener('input',function(){var k=keyOf(c),mk=marks[k]||{decision:null,edits:{}};
        mk.note=note.value;marks[k]=mk;save();});
      fs.appendChild(note);a.appendChild(fs);sec.appendChild(a);});
    main.appendChild(sec);});
  function value(name,text){if(name==='float_round'){var t=text.trim();
      return /^\d+$/.test(t)?parseInt(t,10):t;}
    if(name==='categories')return text.split(',').map(function(x){return x.trim();}).filter(Boolean);
    return text;}
  function edited(i,name,text){var c=cands[i],k=keyOf(c),mk=marks[k]||{decision:null,edits:{},note:''};
    mk.edits=mk.edits||{};
    if(text===shown(c[name]))delete mk.edits[name];else mk.edits[name]=value(name,text);
    if(!mk.decision&&Object.keys(mk.edits).length)mk.decision='accept';
    marks[k]=mk;save();show(i,true);progress();filter();}
  function decide(i,v){var k=keyOf(cands[i]),mk=marks[k]||{edits:{},note:''};mk.decision=v;
    marks[k]=mk;save();show(i);progress();filter();}
  function show(i,typing){var c=cands[i],a=document.getElementById('cand-'+i),mk=marks[keyOf(c)]||{};
    a.setAttribute('data-decision',mk.decision||'');
    a.querySelectorAll('input[type=radio]').forEach(function(r){r.checked=(r.value===mk.decision);});
    var ed=mk.edits||{},n=Object.keys(ed).length;
    var tag=a.querySelector('.hidden-edited');tag.textContent=n?('edited: '+Object.keys(ed).join(', ')):'';
    tag.hidden=!n;
    if(!typing){m.editable.forEach(function(name){var inp=a.querySelector('.edit-'+name);
        inp.value=name in ed?shown(ed[name]):shown(c[name]);});
      a.querySelector('textarea.note').value=mk.note||'';}}
  function progress(){var acc=0,rej=0;cands.forEach(function(c){var d=(marks[keyOf(c)]||{}).decision;
      if(d==='accept')acc++;if(d==='reject')rej++;});
    document.getElementById('progress').textContent=(acc+rej)+' of '+cands.length+
      ' decided ('+acc+' accepted, '+rej+' rejected)';}
  function filter(){var f=document.getElementById('filter').value;
    cands.forEach(function(c,i){var d=(marks[keyOf(c)]||{}).decision||'';
      var keep=f==='all'||(f==='undecided'&&!d)||(f==='flagged'&&c.flags.length)||
        (f==='clean'&&!c.flags.length)||(f===d);
      document.getElementById('cand-'+i).hidden=!keep;});
    document.querySelectorAll('section.family').forEach(function(s){
      s.hidden=!s.querySelector('article.cand:not([hidden])');});}
  function decisions(){var out=[];cands.forEach(function(c){var mk=marks[keyOf(c)];
      if(!mk||!mk.decision)return;var o={seed_id:c.seed_id,candidate:c.candidate,decision:mk.decision};
      if(mk.decision==='accept')Object.keys(mk.edits||{}).forEach(function(k){o[k]=mk.edits[k];});
      o.note=mk.note||'';out.push(JSON.stringify(o));});
    return out.length?out.join('\n')+'\n':'';}
  document.getElementById('export').addEventListener('click',function(){
    var text=decisions(),box=document.getElementById('exported');box.hidden=false;box.value=text;
    var n=text?text.trim().split('\n').length:0;
    document.getElementById('status').textContent=n?('exported '+n+' decision(s)'):'nothing decided yet';
    if(!n)return;var a=document.getElementById('download');
    a.href=URL.createObjectURL(new Blob([text],{type:'application/x-ndjson'}));
    a.download='decisions.jsonl';a.click();});
  document.getElementById('import').addEventListener('change',function(ev){
    var file=ev.target.files[0];if(!file)return;var reader=new FileReader();
    reader.onload=function(){var byKey={};cands.forEach(function(c){byKey[keyOf(c)]=c;});
      var n=0;String(reader.result).split('\n').forEach(function(line){
        if(!line.trim())return;var o;try{o=JSON.parse(line);}catch(e){return;}
        var c=byKey[String(o.seed_id)+'\u0000'+o.candidate];
        if(!c||(o.decision!=='accept'&&o.decision!=='reject'))return;
        var ed={};m.editable.forEach(function(k){if(k in o)ed[k]=o[k];});
        marks[keyOf(c)]={decision:o.decision,edits:ed,note:o.note||''};n++;});
      save();cands.forEach(function(c,i){show(i);});progress();filter();
      document.getElementById('status').textContent='imported '+n+' decision(s)';};
    reader.readAsText(file);});
  document.getElementById('filter').addEventListener('change',filter);
  cands.forEach(function(c,i){show(i);});progress();filter();
  document.documentElement.setAttribute('data-ready','1');
})();
"""
