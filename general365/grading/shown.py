"""The final-answer region as a reader sees it: what Markdown, HTML or LaTeX would hide or
strike out (a comment, a code span, `\\phantom`, a white `\\textcolor`...) is removed before
the last box is found (`\\boxed{13}<!-- \\boxed{12} -->` answers 13). Every pattern is
linear or bounded."""

from __future__ import annotations

import re

from ..answers.surface import group_close, group_end

_HTML_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)
_FENCED = re.compile(r"```.*?(?:```|\Z)", re.DOTALL)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
# (tags and bodies are bounded: `[^>]*` from every `<` of a text without `>` is quadratic)
_STRUCK = re.compile(r"~~(?=\S)[^\n~]{0,2000}?(?<=\S)~~|<(s|del|strike)\b[^>]{0,300}>"
                     r".{0,20000}?(?:</\1\s*>|\Z)", re.DOTALL | re.IGNORECASE)
_HIDDEN_HTML = re.compile(
    r"<(\w+)\b[^>]{0,300}?(?:\bhidden\b|display\s*:\s*none|visibility\s*:\s*hidden|"
    r"font-size\s*:\s*0)[^>]{0,300}>.{0,20000}?(?:</\1\s*>|\Z)", re.DOTALL | re.IGNORECASE)
_IFFALSE = re.compile(r"\\iffalse\b.*?(?:\\fi\b|\Z)", re.DOTALL)
_COMMENT_ENV = re.compile(r"\\begin\{comment\}.*?(?:\\end\{comment\}|\Z)", re.DOTALL)
_MD_COMMENT = re.compile(r"(?m)^[ \t]*\[(?://|comment)\]:\s*(?:#|<>).*$")
_VERB = re.compile(r"\\verb\*?([^A-Za-z\s])(?:(?!\1).)*(?:\1|$)", re.MULTILINE)
_COMMENT_LINE = re.compile(r"(?m)^[ \t]*%.*$")
# A `%` not escaped and not right after a digit (`25%`), after a closed box on its line.
_LATEX_COMMENT = re.compile(r"(\\(?:boxed|fbox)\s*\{[^\n%]*\}[^\n%]*?)(?<![\\\d])%[^\n]*")
# Macros whose argument is not shown, or shown struck out.
_HIDING = re.compile(r"\\(?:[hv]?phantom|smash|footnote|marginpar|label|sout|st|xout|"
                     r"[bx]?cancel|cancelto\s*\{[^{}]*\}|hide|textcolor\s*\{\s*white\s*\}|"
                     r"colorbox\s*\{\s*white\s*\}\s*\{[^{}]*\}|textcolor\s*\{\s*#?f{3,6}\s*\})"
                     r"(?![A-Za-z])\s*(?=\{)", re.IGNORECASE)
_WHITE = re.compile(r"\\color\s*\{\s*(?:white|#?f{3,6})\s*\}", re.IGNORECASE)
# What can hide text: a region without one of these cues is shown as it is (plain `in`
# tests and one regex anchored on a backslash: a regex of all the cues cost 10 us).
_HIDING_COMMAND = re.compile(r"\\(?:iffalse|begin\s*\{comment|verb|[hv]?phantom|smash|footnote|"
                             r"marginpar|label|sout|st|xout|[bx]?cancel|hide|textcolor|colorbox|color)"
                             r"(?![A-Za-z])")


def _has_cue(region: str) -> bool:
    return ("<" in region or "`" in region or "~~" in region or "%" in region
            or "]:" in region or ("\\" in region and _HIDING_COMMAND.search(region) is not None))
MAX_HIDING = 64


def visible(region: str) -> str:
    """`region` without what a reader would not see (module docstring)."""
    if not _has_cue(region):
        return region
    for pattern in (_HTML_COMMENT, _STRUCK, _HIDDEN_HTML, _IFFALSE, _COMMENT_ENV,
                    _MD_COMMENT, _VERB):
        region = pattern.sub(" ", region)
    for pattern in (_FENCED, _INLINE_CODE):   # code shows a box as text, not as an answer
        region = pattern.sub(_code_without_boxes, region)
    if "%" in region and "box" in region:
        region = _COMMENT_LINE.sub("", region)
        region = _LATEX_COMMENT.sub(r"\1", region)
    return _without_hidden_arguments(region)


def _code_without_boxes(m: re.Match) -> str:
    code = m.group(0)
    return " " if ("\\boxed" in code or "\\fbox" in code) else code


def _without_hidden_arguments(region: str) -> str:
    """The argument of each hiding macro, and what a white `\\color` colours (to the end
    of its brace group or math span: `{\\color{white} \\boxed{12}}`), replaced by HIDDEN."""
    for m in reversed(list(_HIDING.finditer(region))[-MAX_HIDING:]):
        end = group_end(region, m.end())
        region = region[:m.start()] + HIDDEN + (region[end:] if end > 0 else "")
    for m in reversed(list(_WHITE.finditer(region))[-MAX_HIDING:]):
        end = group_close(region, m.end(), "$")
        region = region[:m.start()] + HIDDEN + (region[end:] if end >= 0 else "")
    return region


# What stands where hidden content was: a box around it is not read (surface.clean
# refuses it), while a box elsewhere is unaffected.
HIDDEN = " \\hidden "

