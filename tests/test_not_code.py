"""Binary media is not code: an image, a font, a compiled translation catalogue, audio or video
that git shows no text of is scanned by the credential rules like any binary file, then listed
as "not code" (a list of its own that fails nothing) instead of "not reviewed". What it is is
decided by its content, not by its name: an executable, an archive, bytecode or a script named
like an image stays a real gap, and ``--secreview-unreviewed=fail`` fails it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests import binaries
from tests.conftest import ReviewRepo, aws_key_id
from tests.test_unreviewed_files import SECRET_RULE, run
from tests.test_unreviewed_files import report as summary

Build = Callable[..., ReviewRepo]

#: Real media, each binary to git (a NUL byte in its first 8,000 bytes).
MEDIA: dict[str, tuple[bytes, str]] = {
    "static/img/logo.png": (binaries.png(), "PNG image"),
    "static/img/photo.jpeg": (binaries.jpeg(), "JPEG image"),
    "static/img/spinner.gif": (binaries.gif(), "GIF image"),
    "static/img/hero.webp": (binaries.webp(), "WebP image"),
    "static/favicon.ico": (binaries.ico(), "ICO image"),
    "static/fonts/inter.woff2": (binaries.woff2(), "WOFF2 font"),
    "static/fonts/mono.ttf": (binaries.ttf(), "TrueType font"),
    "locale/fr/LC_MESSAGES/django.mo": (binaries.mo(), "GNU gettext catalogue (.mo)"),
    "locale/de/LC_MESSAGES/django.mo": (binaries.mo(little_endian=False),
                                        "GNU gettext catalogue (.mo)"),
}

#: Named like media, but code, an archive or an executable: real gaps.
DISGUISED: dict[str, tuple[bytes, str]] = {
    "static/img/image.png": (binaries.elf(), "ELF executable"),
    "static/img/payload.png": (binaries.zip_archive(), "ZIP archive"),
    "static/img/cache.gif": (binaries.pyc(), "Python bytecode"),
    "static/img/banner.jpg": (binaries.shell_script(), "script"),
    "static/img/polyglot.png": (binaries.png() + binaries.zip_archive(), "ZIP archive appended"),
    "locale/xx/LC_MESSAGES/django.mo": (binaries.elf(), "ELF executable"),
}




def markdown(pytester: pytest.Pytester) -> str:
    return (pytester.path / "secreview-artifacts" / "report" / "summary.md").read_text()


@pytest.mark.parametrize("workers", [(), ("-n", "2")], ids=["serial", "xdist"])
def test_images_fonts_and_catalogues_are_not_code_and_fail_nothing(
    pytester: pytest.Pytester, review_repo: Build, workers: tuple[str, ...]
) -> None:
    review_repo(rules={"aws": SECRET_RULE},
                pr={**{p: data for p, (data, _) in MEDIA.items()}, "app.py": "y = 2\n"})
    result = run(pytester, "--secreview-unreviewed=fail", *workers)
    out = result.stdout.str()
    assert result.ret == pytest.ExitCode.OK, out
    # Each is still an item, and its credential scan ran: a pass, not a skip.
    result.assert_outcomes(passed=len(MEDIA))
    data = summary(pytester)
    assert data["not_reviewed"] == []
    assert data["not_code"] == [{"path": p, "content": MEDIA[p][1]} for p in sorted(MEDIA)]
    assert f"not code: {len(MEDIA)} " in out
    assert "not reviewed:" not in out.split("= secreview =")[1]
    text = markdown(pytester)
    assert f"### Not code ({len(MEDIA)})" in text
    assert "Not reviewed" not in text and "not reviewed" not in text.split("\n")[0]
    assert text.startswith("## 🟢")
    assert "`static/img/logo.png`" in text


def test_content_decides_not_the_name_a_disguised_binary_stays_a_real_gap(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    repo = review_repo(rules={"aws": SECRET_RULE},
                       pr={**{p: data for p, (data, _) in DISGUISED.items()},
                           "static/img/ok.png": binaries.png(), "bin/tool": binaries.elf(),
                           "dist/mod.pyc": binaries.pyc(), "dist/lib.jar": binaries.zip_archive()})
    # A real image with the executable bit set is not inert either.
    repo.git("update-index", "--chmod=+x", "static/img/ok.png")
    repo.git("commit", "-q", "-m", "make it executable")
    result = run(pytester, "--secreview-unreviewed=fail")
    out = result.stdout.str()
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    gaps = [*DISGUISED, "static/img/ok.png", "bin/tool", "dist/mod.pyc", "dist/lib.jar"]
    result.assert_outcomes(failed=len(gaps))
    data = summary(pytester)
    reasons = {n["path"]: n["reason"] for n in data["not_reviewed"]}  # type: ignore[attr-defined]
    assert sorted(reasons) == sorted(gaps)
    assert data["not_code"] == []
    for path, (_, said) in DISGUISED.items():
        assert reasons[path].startswith("binary file"), path
        assert said in reasons[path], (path, reasons[path])
    assert "executable" in reasons["static/img/ok.png"]
    # What has no media name is said as before.
    assert reasons["bin/tool"] == "binary file (git shows no text diff)"
    assert "not code:" not in out


def test_a_secret_in_an_image_still_fails_the_run(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    review_repo(rules={"aws": SECRET_RULE},
                pr={"static/logo.png": binaries.png(text=f"key={aws_key_id()}")})
    result = run(pytester, "--secreview-unreviewed=fail")
    out = result.stdout.str()
    result.assert_outcomes(failed=1)
    assert "CRITICAL  AWS access key id in source" in out
    assert aws_key_id() not in out
    data = summary(pytester)
    assert [f["path"] for f in data["findings"]] == ["static/logo.png"]  # type: ignore[attr-defined]
    assert data["not_reviewed"] == []
    assert data["not_code"] == [{"path": "static/logo.png", "content": "PNG image"}]


def test_the_offline_review_lists_media_as_not_code(review_repo: Build) -> None:
    from pytest_secreview.evaluation.offline import review_range

    repo = review_repo(rules={"aws": SECRET_RULE},
                       pr={"a.png": binaries.png(), "b.mo": binaries.mo(),
                           "c.png": binaries.elf()})
    result = review_range(repo.path, "main", rules=["secreview/rules"])
    assert [p for p, _ in result.not_reviewed] == ["c.png"]
    assert "ELF executable" in result.not_reviewed[0][1]
    assert result.not_code == (("a.png", "PNG image"), ("b.mo", "GNU gettext catalogue (.mo)"))


# -- the classification itself ------------------------------------------------------------

CASES: list[tuple[str, bytes, str | None]] = [
    *((p, d, said) for p, (d, said) in MEDIA.items()),
    ("x.JPG", binaries.jpeg(), "JPEG image"),
    ("x.jpg", binaries.png(), "PNG image"),  # a mislabelled image is still an image
    ("x.bmp", b"BM" + (70).to_bytes(4, "little") + bytes(4) + (54).to_bytes(4, "little")
     + (40).to_bytes(4, "little") + bytes(52), "BMP image"),
    ("x.tiff", b"II*\x00\x08\x00\x00\x00" + bytes(16), "TIFF image"),
    ("x.avif", b"\x00\x00\x00\x1cftypavif" + bytes(16), "AVIF/HEIF image"),
    ("x.otf", b"OTTO\x00\x0a" + bytes(10), "OpenType font"),
    ("x.woff", b"wOFF\x00\x01\x00\x00" + bytes(8), "WOFF font"),
    ("x.eot", bytes(8) + (0x00020001).to_bytes(4, "little") + bytes(22) + b"LP" + bytes(8),
     "Embedded OpenType font"),
    ("x.mp3", b"ID3\x04\x00\x00" + bytes(8), "MP3 audio"),
    ("x.ogg", b"OggS\x00\x02" + bytes(8), "Ogg media"),
    ("x.wav", b"RIFF\x24\x00\x00\x00WAVEfmt " + bytes(8), "WAV audio"),
    ("x.mp4", b"\x00\x00\x00\x18ftypmp42" + bytes(16), "MP4 media"),
    ("x.webm", b"\x1a\x45\xdf\xa3" + bytes(12), "WebM/Matroska media"),
    ("x.png", binaries.elf(), None),
    ("x.png", binaries.zip_archive(), None),
    ("x.png", binaries.pyc(), None),
    ("x.png", binaries.shell_script(), None),
    ("x.png", b"\x00\x01\x02 not an image", None),
    ("x.ttf", binaries.png(), None),  # an image named like a font: the name and content differ
    ("x.mo", binaries.png(), None),
    ("x.svg", b"<svg/>\x00", None),  # SVG is code-bearing text, never media
    ("x.pdf", b"%PDF-1.7\x00", None),
    ("logo", binaries.png(), None),  # no media name: the content alone does not decide
    ("x.png.exe", binaries.png(), None),
]


@pytest.mark.parametrize(("path", "data", "expected"), CASES,
                         ids=[f"{i}-{p.rsplit('/', 1)[-1]}-{e or 'not media'}"
                              for i, (p, _, e) in enumerate(CASES)])
def test_media_type_needs_name_and_content_to_agree(path: str, data: bytes,
                                                    expected: str | None) -> None:
    from pytest_secreview.tools.filetypes import media_type

    assert media_type(path, data, data[-70_000:]) == expected


def test_an_appended_archive_makes_an_image_a_gap() -> None:
    from pytest_secreview.tools.filetypes import media_type

    image = binaries.png()
    assert media_type("x.png", image, image) == "PNG image"
    polyglot = image + binaries.zip_archive()
    assert media_type("x.png", polyglot, polyglot) is None


def test_claimed_media_and_content_type_describe_a_disguise() -> None:
    from pytest_secreview.tools.filetypes import claimed_media, content_type

    assert claimed_media("static/IMG.PNG") == "image"
    assert claimed_media("f.woff2") == "font"
    assert claimed_media("django.mo") == "compiled translations"
    assert claimed_media("clip.webm") == "audio or video"
    assert claimed_media("icon.svg") is None and claimed_media("tool") is None
    assert content_type(binaries.elf()) == "ELF executable or library"
    assert content_type(binaries.pyc()) == "Python bytecode"
    assert content_type(binaries.shell_script()) == "script (#! line)"
    assert content_type(b"\x00\x01") is None


def test_an_ignored_binary_is_not_counted_as_not_reviewed(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    # The same settled-gap rule as media: the item scanned it and recorded no gap, so the
    # report does not count it (docs/outputs.md: ignored files are in the notes only).
    review_repo(rules={"aws": SECRET_RULE}, base={".secreviewignore": "vendor/\n"},
                pr={"vendor/blob.bin": binaries.elf(), "vendor/logo.png": binaries.png()})
    result = run(pytester, "--secreview-unreviewed=fail")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    data = summary(pytester)
    assert data["not_reviewed"] == []
    assert data["not_code"] == [{"path": "vendor/logo.png", "content": "PNG image"}]


def test_blob_ends_streams_large_blobs_and_sees_an_appended_archive(tmp_path: Path) -> None:
    from pytest_secreview.diff.blobs import blob_ends
    from pytest_secreview.diff.filetypes import TAIL_BYTES
    from pytest_secreview.triage.gaps import judge_binary
    from tests.gitutil import GitRepo

    repo = GitRepo(tmp_path / "r")
    repo.write("README.md", "x\n")
    repo.commit("base")
    padding = bytes(range(256)) * 4096  # 1 MiB inside the image, before the archive
    big = binaries.png() + padding
    repo.write("big.png", big)
    repo.write("big-polyglot.png", big + binaries.zip_archive())
    repo.write("small.png", binaries.png())
    head = repo.commit("pr")
    ends = blob_ends(repo.path, head, ["big.png", "big-polyglot.png", "small.png", "nope.png"])
    assert sorted(ends) == ["big-polyglot.png", "big.png", "small.png"]
    assert ends["big.png"].size == len(big) and ends["big.png"].mode == "100644"
    assert ends["big.png"].head == big[:64] and ends["big.png"].tail == big[-TAIL_BYTES:]
    assert ends["small.png"].tail == binaries.png()  # a small blob's tail is all of it
    from pytest_secreview.diff.git import load_diff

    diff = load_diff(repo.path, "HEAD~1")
    judged = judge_binary(diff.files, lambda paths: blob_ends(repo.path, head, paths))
    assert {p: j.not_code for p, j in judged.items()} == {
        "big.png": "PNG image", "big-polyglot.png": None, "small.png": "PNG image"}
    assert judged["big-polyglot.png"].why_not == (
        "a PNG image with a ZIP archive appended (a zip reader runs it)")


def test_a_content_git_cannot_give_is_not_media() -> None:
    from pytest_secreview.diff.model import ChangeKind, FileDiff
    from pytest_secreview.errors import GitError
    from pytest_secreview.triage.gaps import judge_binary

    def broken(_paths: object) -> dict[str, object]:
        raise GitError("git cat-file failed: boom")

    file = FileDiff(path="a.png", old_path=None, kind=ChangeKind.ADDED, binary=True)
    judged = judge_binary([file], broken)  # type: ignore[arg-type]
    assert judged["a.png"].not_code is None
    assert "could not be read from git" in (judged["a.png"].why_not or "")


def test_the_not_code_section_is_listed_and_is_the_first_to_go() -> None:
    from pytest_secreview.reporting.markdown import to_markdown
    from pytest_secreview.reporting.model import NotCode, NotReviewed
    from tests.fake_github import make_finding, make_report

    media = [NotCode(path=f"static/img{i:02d}.png", content="PNG image") for i in range(12)]
    media.append(NotCode(path="locale/fr/django.mo", content="GNU gettext catalogue (.mo)"))
    report = make_report([], not_code=media)
    text = to_markdown(report)
    assert text.startswith("## 🟢")  # not code is not "something not checked"
    assert "### Not code (13)" in text
    assert "- **PNG image** (12): `static/img00.png`" in text and ", … and 2 more" in text
    assert "- **GNU gettext catalogue (.mo)** (1): `locale/fr/django.mo`" in text
    # Shortened: the not-code list goes before the not-reviewed one.
    gap = [NotReviewed(path="bin/tool", reason="binary file (git shows no text diff)")]
    findings = [make_finding(severity="CRITICAL", path=f"m{i}.py", explanation="x" * 400)
                for i in range(6)]
    full = to_markdown(make_report(findings, not_code=media, not_reviewed=gap))
    block = full[full.index("### Not code"):].split("\n\n### ")[0]
    short = to_markdown(make_report(findings, not_code=media, not_reviewed=gap),
                        max_chars=len(full) - len(block) // 2)
    assert "### Not code" not in short and "### ⚠️ Not reviewed (1)" in short
    assert "the not code section was left out" in short
