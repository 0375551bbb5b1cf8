"""An open study link for crowd platforms (Prolific, MTurk, ...): participants become assessors by opening it.

The admin enables it (``judge serve --study``); it has a secret of its own, kept in the store's settings
(``web.study``), so it gives no access to anything but joining: ``/s/SECRET?PROLIFIC_PID=ID`` (the parameter's
name is configurable) makes the participant ``ID`` an assessor named ``participant-ID`` with a token of their own
(kept in the store's settings, so the same participant gets the same assessor and link on every visit and after a
restart: joining is idempotent) and sends them to their page. A participant id is 1 to :data:`MAX_ID` characters,
none of them a space or a control character; it is shown escaped like every text. After ``judgments`` answers
(gold pairs included, skips not counted), or when nothing is left for them, a participant is sent to the
completion URL (where the platform records that they finished). The open link never grants the admin page: the
admin token is another secret, and a participant's token is theirs alone.
"""

from __future__ import annotations

import re
import urllib.parse
from dataclasses import dataclass

from ir_pref_measures.errors import InputError

PARAMETER = "PROLIFIC_PID"  # Prolific's name for the participant id
PREFIX = "participant-"  # a participant's assessor name is the prefix and their id
MAX_ID = 64  # characters of a participant id (Prolific's ids have 24)
SETTING = "web.study"  # the open link's secret in the store's settings


@dataclass(frozen=True)
class Study:
    """The open study link: its secret ``token``, the ``parameter`` naming the participant id in the link, and
    the ``completion_url`` a participant is sent to after ``judgments`` answers (``None``: never)."""

    token: str
    parameter: str = PARAMETER
    completion_url: str | None = None
    judgments: int | None = None

    def __post_init__(self) -> None:
        if not self.parameter or not all(c.isalnum() or c in "_-." for c in self.parameter):
            raise InputError(f"a participant parameter is letters, digits, '_', '-' or '.', not {self.parameter!r}")
        if (self.completion_url is None) != (self.judgments is None):
            raise InputError("a completion URL and the judgments before it go together")
        if self.completion_url is not None:
            completion_url(self.completion_url)
        if self.judgments is not None and self.judgments < 1:
            raise InputError(f"the judgments before the completion URL must be at least 1, not {self.judgments}")

    def complete(self, judged: int, nothing_left: bool) -> bool:
        """Whether a participant who gave ``judged`` answers is sent to the completion URL."""
        return self.completion_url is not None and (nothing_left or judged >= (self.judgments or 0))


def completion_url(url: str) -> str:
    """``url`` when it is an absolute http(s) URL, else an :class:`InputError`."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not re.fullmatch(r"[A-Za-z0-9.\-]+(:[0-9]+)?", parts.netloc):
        raise InputError(f"the completion URL must be an absolute http(s) URL of a host name, not {url!r}")
    if any(c.isspace() or not c.isprintable() for c in url):
        raise InputError("the completion URL holds no space or control character")
    return url


def origin(url: str) -> str:
    """The origin (``scheme://host[:port]``) of an absolute URL."""
    parts = urllib.parse.urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def participant(participant_id: str | None) -> str:
    """The assessor name of a participant id (``participant-ID``); an :class:`InputError` when the id is missing,
    longer than :data:`MAX_ID` characters, or holds a space or a control character."""
    if not participant_id:
        raise InputError("the link has no participant id")
    if len(participant_id) > MAX_ID:
        raise InputError(f"a participant id has at most {MAX_ID} characters")
    if any(not c.isprintable() or c.isspace() for c in participant_id):
        raise InputError("a participant id holds no space or control character")
    return PREFIX + participant_id
