"""The CFE-Bench query: the question, its variables, and the instruction to end with one
`name = value` line per variable. Text rows are a plain string; multimodal rows carry their
figures as OpenAI-compatible image parts (base64 `data:` URLs), which the API runner and
vLLM's chat send as they are and the transformers backend refuses (text only).
"""

from __future__ import annotations

import base64
import mimetypes
import os
from typing import Any

from ...errors import DataError
from .data import CFEProblem

# Bumped whenever build_messages changes what a model is shown.
PROMPT_VERSION = "cfe-query-v1"
PLACEHOLDER = "<image>"
MAX_IMAGE_BYTES = 20 * 2**20     # OpenAI's limit per image

INSTRUCTION = """Answer the question above. Your answer consists of the following variable(s):
{variables}

End your response with one line per variable, in this order and exactly in this form:
{template}
Use the variable names exactly as written. Give each number with its unit where it has one; give each formula in LaTeX, in the symbols of the question."""

_MAGIC = ((b"\xff\xd8\xff", "image/jpeg"), (b"\x89PNG\r\n\x1a\n", "image/png"),
          (b"GIF87a", "image/gif"), (b"GIF89a", "image/gif"))


def instruction(problem: CFEProblem) -> str:
    variables = "\n".join(f"- {v.name}: {v.description}" if v.description else f"- {v.name}"
                          for v in problem.variables)
    template = "\n".join(f"{v.name} = <value>" for v in problem.variables)
    return INSTRUCTION.format(variables=variables, template=template)


def image_type(data: bytes, path: str) -> str:
    """The MIME type from the file's first bytes (a `.jpg` that is a PNG is sent as PNG);
    the name's suffix only when the bytes say nothing."""
    for magic, mime in _MAGIC:
        if data.startswith(magic):
            return mime
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    guess = mimetypes.guess_type(path)[0]
    if guess and guess.startswith("image/"):
        return guess
    raise DataError("not an image this prompt can send", path=path, field="question.images",
                    expected="a JPEG, PNG, GIF or WebP file")


def image_part(path: str, *, row_id: str | None = None) -> dict[str, Any]:
    """One image as an OpenAI-compatible content part with a base64 `data:` URL."""
    try:
        size = os.path.getsize(path)
        if size > MAX_IMAGE_BYTES:
            raise DataError("image too large", path=path, row_id=row_id, field="question.images",
                            value=size, expected=f"at most {MAX_IMAGE_BYTES} bytes")
        with open(path, "rb") as f:
            data = f.read()
    except OSError as exc:
        raise DataError(f"cannot read the image ({exc.strerror or exc})", path=path,
                        row_id=row_id, field="question.images",
                        expected="a readable image file") from None
    mime = image_type(data, path)
    url = f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"
    return {"type": "image_url", "image_url": {"url": url}}


def question_parts(problem: CFEProblem) -> list[dict[str, Any]]:
    """The question of a multimodal row as content parts: text and figures, each figure in
    its `<image>` placeholder's place when there is one per figure, else after the text."""
    images = [image_part(p, row_id=problem.id) for p in problem.images]
    pieces = problem.question.split(PLACEHOLDER)
    parts: list[dict[str, Any]] = []
    if len(pieces) == len(images) + 1:
        for text, image in zip(pieces, images + [None]):
            if text.strip():
                parts.append({"type": "text", "text": text.strip()})
            if image is not None:
                parts.append(image)
    else:
        parts.append({"type": "text", "text": problem.question})
        parts.extend(images)
    return parts


def with_question(problem: CFEProblem, tail: str) -> str | list[dict[str, Any]]:
    """The user content: the question (with its figures), then `tail`."""
    if not problem.images:
        return problem.question + "\n\n" + tail
    return question_parts(problem) + [{"type": "text", "text": tail}]


def build_messages(problem: CFEProblem, system_prompt: str | None = None
                   ) -> tuple[dict[str, Any], ...]:
    messages: list[dict[str, Any]] = []
    if system_prompt is not None:
        if not isinstance(system_prompt, str) or not system_prompt.strip():
            raise DataError("empty system prompt", row_id=problem.id, field="system_prompt",
                            value=system_prompt, expected="a non-empty string or none at all")
        messages.append({"role": "system", "content": system_prompt})
    messages.append({"role": "user", "content": with_question(problem, instruction(problem))})
    return tuple(messages)
