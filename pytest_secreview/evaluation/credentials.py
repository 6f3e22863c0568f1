"""Is a credential-shaped match a leaked secret? The judgement of a ``detect`` pattern marked
``credential:`` (the bundled ``hardcoded-secrets`` rule), made on the matched value.

Two rules, in this order:

1. **A value that says it is fake is no secret anywhere**: placeholder words (``test``,
   ``fake``, ``dummy``, ``example``, ``sample``, ``placeholder``, ``changeme``, ``your-...``,
   ``foo``/``bar``), template markers (``${VAR}``, ``{{ x }}``, ``<key>``), long runs of one
   character (``xxxx``, ``000000``), a short unit repeated (``abcabcabcabc``), an ascending or
   keyboard sequence (``123456``, ``abcdef``, ``qwerty``), very low entropy, and the documented
   example tokens of a standard (a JSON Web Token whose claims are placeholders, as the one
   jwt.io shows: ``"sub": "1234567890", "name": "John Doe"``).
2. **In test data and documentation, a generic credential shape is an example unless the value
   looks real.** A ``password`` field or a URL's ``user:pass@`` in a test fixture, a test
   vector file or a tutorial is an example of the shape; it is reported only when the value
   has the length and the mix of a generated key (16 characters or more, letters and digits,
   high entropy). A key in a provider's format (``kind == "known"``: cloud keys, GitHub,
   Slack, Stripe tokens, private keys) is reported wherever it is, tests and docs included:
   the format says it was issued by the provider, and a live key in a fixture is a live key.

The path matters only for rule 2, and only because of what the finding is: the path cannot
turn code into something else (a pull request chooses its paths), but a credential written
in test data is an example of a credential, not a credential, unless its value says
otherwise; a real-looking one is still reported there.
"""

from __future__ import annotations

import base64
import binascii
import math
import re
from collections import Counter
from itertools import pairwise
from urllib.parse import unquote

from ..diff.kinds import Kind, classify, default_exclusion

#: A pattern's credential kinds: a provider's key format, or a generic credential shape.
KNOWN = "known"
GENERIC = "generic"

#: Directories whose files are examples by what they are for (besides test code and docs).
_EXAMPLE_DIRS = frozenset({"docs", "doc", "documentation", "examples", "example", "samples",
                           "fixtures", "testdata", "test_data"})

#: Whole words that say a value is a stand-in.
_FAKE_WORDS = frozenset({
    "test", "tests", "testing", "fake", "dummy", "example", "examples", "sample", "samples",
    "placeholder", "changeme", "mock", "mocked", "stub", "fixture", "redacted", "your",
    "xxx", "todo", "fixme", "notreal",
})
#: Words that say it when the value is made of nothing else (``foo``, ``foobar``, ``bar1``).
_FILLER_WORDS = ("foo", "bar", "baz", "qux", "quux", "lorem", "ipsum")
#: Word starts that say it inside a run of letters (``fakehashedsecret``, ``testkey``).
_FAKE_STEMS = ("fake", "dummy", "example", "placeholder", "changeme", "redacted", "test",
               "sample")
#: Markers that say it wherever they are (``wJalr...EXAMPLEKEY``, ``not-a-real-token``).
_FAKE_INFIXES = ("example", "placeholder", "changeme", "dummy", "redacted", "notareal",
                 "notreal")
_TEMPLATE = re.compile(r"\$\{|\{\{|%\([A-Za-z_]|^\$[A-Za-z_]|^<[^<>]+>$|^\{[A-Za-z_][\w.]*\}$")
_WORDS = re.compile(r"[A-Z]+[a-z]*|[a-z]+")
_FILLER = re.compile("(" + "|".join(_FILLER_WORDS) + ")+")
_PERSONA = re.compile(r"(?i)\b(john|jane)[\s_.-]*doe\b")
_SEQUENCES = ("0123456789", "abcdefghijklmnopqrstuvwxyz", "qwertyuiop", "asdfghjkl",
              "zxcvbnm")
_FILL_CHARS = frozenset("xX*#")
_JWT = re.compile(r"^eyJ[A-Za-z0-9_-]+\.eyJ[A-Za-z0-9_-]+\.")

#: A run of one character this long says "filler" (hex has a run of 6 by chance once in
#: ~20,000 keys); of x, X, * or #, a shorter one does.
_LONG_RUN = 6
_FILL_RUN = 4
#: A unit of up to this many characters repeated over at least ``_PERIODIC_SPAN`` characters.
_PERIOD = 6
_PERIODIC_SPAN = 12
_SEQUENCE_RUN = 6
#: Below this many bits per character (over 8+ characters) a value is mostly one or two
#: symbols: ``aabbaabb``, ``11112222``.
_LOW_ENTROPY = 2.0
#: What a generated key looks like: long, letters and digits mixed, high entropy.
_REAL_LENGTH = 16
_REAL_ENTROPY = 3.5
_REAL_ALNUM_SHARE = 0.75


def is_secret(value: str, kind: str, path: str) -> bool:
    """True when ``value``, matched by a pattern of credential ``kind`` (:data:`KNOWN` or
    :data:`GENERIC`) in the file at ``path``, is to be reported as a leaked secret."""
    if says_fake(value):
        return False
    if kind == GENERIC and is_example_path(path):
        return looks_real(value)
    return True


def says_fake(value: str) -> bool:
    """True when ``value`` says it is a stand-in (rule 1 of the module's docstring)."""
    text = value.strip().strip("\"'`")
    if not text or _TEMPLATE.search(text):
        return True
    if any(_fake_text(form) for form in _forms(text)):
        return True
    return _patterned(text)


def _forms(text: str) -> list[str]:
    """``text`` and, for a JSON Web Token, its decoded header and claims: the token's base64
    says nothing, its claims may (``"name": "John Doe"``)."""
    forms = [text]
    if _JWT.match(text):
        for part in text.split(".")[:2]:
            try:
                forms.append(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))
                             .decode("utf-8", "replace"))
            except (binascii.Error, ValueError):
                continue
    return forms


def _fake_text(text: str) -> bool:
    """Placeholder words, an example persona or a sequence in ``text``."""
    low = text.lower()
    if any(infix in low for infix in _FAKE_INFIXES) or _PERSONA.search(text):
        return True
    words = [word.lower() for word in _WORDS.findall(text)]
    if any(w in _FAKE_WORDS or (len(w) > 4 and w.startswith(_FAKE_STEMS)) for w in words):
        return True
    if words and all(_FILLER.fullmatch(w) for w in words):
        return True
    letters = "".join(c for c in low if c.isalnum())
    return any(_has_sequence(letters, seq) for seq in _SEQUENCES)


def _has_sequence(text: str, sequence: str) -> bool:
    """True when ``text`` holds ``_SEQUENCE_RUN`` consecutive characters of ``sequence``,
    forwards or backwards."""
    for start in range(len(sequence) - _SEQUENCE_RUN + 1):
        piece = sequence[start:start + _SEQUENCE_RUN]
        if piece in text or piece[::-1] in text:
            return True
    return False


def _patterned(text: str) -> bool:
    """Filler: a long run of one character, a short unit repeated, or very low entropy."""
    run = 1
    for previous, current in pairwise(text):
        run = run + 1 if current == previous else 1
        if run >= _LONG_RUN or (run >= _FILL_RUN and current in _FILL_CHARS):
            return True
    for period in range(1, _PERIOD + 1):
        same = 0
        for i in range(len(text) - period):
            same = same + 1 if text[i] == text[i + period] else 0
            if same + period >= _PERIODIC_SPAN and same >= 2 * period:
                return True
    return len(text) >= 8 and entropy(text) < _LOW_ENTROPY


def entropy(text: str) -> float:
    """Shannon entropy of ``text`` in bits per character."""
    if not text:
        return 0.0
    counts = Counter(text)
    return -sum(n / len(text) * math.log2(n / len(text)) for n in counts.values())


def looks_real(value: str) -> bool:
    """True when ``value`` (percent-escapes decoded) has the length and mix of a generated
    key: at least 16 characters, mostly letters and digits, both present, high entropy."""
    text = unquote(value.strip().strip("\"'`"))
    if len(text) < _REAL_LENGTH:
        return False
    alnum = [c for c in text if c.isascii() and c.isalnum()]
    if len(alnum) < _REAL_ALNUM_SHARE * len(text):
        return False
    if not (any(c.isalpha() for c in alnum) and any(c.isdigit() for c in alnum)):
        return False
    return entropy(text) >= _REAL_ENTROPY


def is_example_path(path: str) -> bool:
    """True when ``path`` is test code or data, documentation or an examples directory: where
    a generic credential shape is an example of the shape (rule 2)."""
    if default_exclusion(path) == "test code" or classify(path).kind is Kind.DOCS:
        return True
    directory = path.rpartition("/")[0].lower()
    return bool(directory) and not _EXAMPLE_DIRS.isdisjoint(directory.split("/"))
