"""What kind of file a changed path is: a language, a dependency manifest or lock file, a CI
workflow, a container or infrastructure definition, documentation, or something left out of
the general review (generated, vendored, binary).

Decided from the path alone (and a shebang when the caller has the first line): the content of
a pull request is untrusted, so a marker such as "Code generated, DO NOT EDIT" that a pull
request can write into any file never takes a file out of review.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum

from .model import ChangeKind, FileDiff


class Kind(StrEnum):
    """The role of a changed file in a pull request."""

    CODE = "code"
    DEPENDENCIES = "dependencies"  # a manifest that names dependencies
    LOCK = "lock"  # a lock file: resolved versions, reviewed through its manifest
    CI = "ci"
    CONTAINER = "container"
    IAC = "iac"
    CONFIG = "config"
    DOCS = "docs"
    ASSET = "asset"  # images, fonts, media, data: nothing a reviewer reads as code
    GENERATED = "generated"
    VENDORED = "vendored"


#: Kinds the general review covers; the others are listed as not reviewed, with the reason.
REVIEWED_KINDS = frozenset({Kind.CODE, Kind.DEPENDENCIES, Kind.CI, Kind.CONTAINER, Kind.IAC,
                            Kind.CONFIG})

#: Why a file of each left-out kind is not in front of the general review.
LEFT_OUT_REASON = {
    Kind.DOCS: "documentation",
    Kind.ASSET: "asset or data file",
    Kind.LOCK: "lock file (its manifest is reviewed)",
    Kind.GENERATED: "generated file (by its path)",
    Kind.VENDORED: "vendored third-party code",
}

LANGUAGES: dict[str, str] = {
    ".py": "python", ".pyi": "python", ".pyw": "python",
    ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
    ".ts": "typescript", ".tsx": "typescript", ".mts": "typescript", ".cts": "typescript",
    ".vue": "vue", ".svelte": "svelte",
    ".go": "go", ".java": "java", ".kt": "kotlin", ".kts": "kotlin", ".scala": "scala",
    ".groovy": "groovy", ".gradle": "groovy", ".clj": "clojure",
    ".rb": "ruby", ".erb": "ruby", ".rake": "ruby", ".php": "php", ".phtml": "php",
    ".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp",
    ".hh": "cpp", ".hxx": "cpp", ".m": "objective-c", ".mm": "objective-c",
    ".cs": "csharp", ".cshtml": "csharp", ".razor": "csharp", ".fs": "fsharp", ".vb": "vb",
    ".rs": "rust", ".swift": "swift", ".dart": "dart", ".ex": "elixir", ".exs": "elixir",
    ".erl": "erlang", ".hs": "haskell", ".ml": "ocaml", ".lua": "lua", ".pl": "perl",
    ".pm": "perl", ".r": "r", ".jl": "julia", ".zig": "zig", ".nim": "nim", ".sol": "solidity",
    ".sh": "shell", ".bash": "shell", ".zsh": "shell", ".ksh": "shell", ".fish": "shell",
    ".ps1": "powershell", ".psm1": "powershell", ".bat": "batch", ".cmd": "batch",
    ".sql": "sql", ".graphql": "graphql", ".gql": "graphql", ".proto": "protobuf",
    ".html": "html", ".htm": "html", ".j2": "jinja", ".jinja": "jinja", ".jinja2": "jinja",
    ".ejs": "ejs", ".hbs": "handlebars", ".mustache": "mustache", ".twig": "twig",
    ".jsp": "jsp", ".asp": "asp", ".aspx": "asp",
    ".tf": "terraform", ".tfvars": "terraform", ".hcl": "hcl", ".bicep": "bicep",
    ".nix": "nix", ".cue": "cue", ".rego": "rego",
    ".yml": "yaml", ".yaml": "yaml", ".json": "json", ".toml": "toml", ".xml": "xml",
    ".ini": "ini", ".cfg": "ini", ".conf": "conf", ".properties": "properties",
    ".env": "dotenv", ".plist": "xml", ".htaccess": "apache",
}

_SHEBANG = re.compile(r"^#!\s*(?:\S*/env\s+(?:-S\s+)?)?(?:\S*/)?([a-z]+)")
_SHEBANG_LANG = {"python": "python", "node": "javascript", "bash": "shell", "sh": "shell",
                 "zsh": "shell", "dash": "shell", "ksh": "shell", "ruby": "ruby",
                 "perl": "perl", "php": "php", "deno": "typescript", "bun": "javascript",
                 "pwsh": "powershell", "lua": "lua"}

#: File names (lower-cased) that declare dependencies.
MANIFESTS = frozenset({
    "pyproject.toml", "setup.py", "setup.cfg", "pipfile", "environment.yml", "package.json",
    "go.mod", "pom.xml", "build.gradle", "build.gradle.kts", "settings.gradle", "gemfile",
    "cargo.toml", "composer.json", "mix.exs", "pubspec.yaml", "package.swift", "podfile",
    "deno.json", "vcpkg.json", "conanfile.txt", "conanfile.py", "bower.json", "packages.config",
    "directory.packages.props", "project.clj", "deps.edn", "cabal.project", "stack.yaml",
})
LOCKS = frozenset({
    "package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml", "bun.lockb",
    "bun.lock", "poetry.lock", "pipfile.lock", "pdm.lock", "uv.lock", "go.sum", "gemfile.lock",
    "cargo.lock", "composer.lock", "mix.lock", "pubspec.lock", "podfile.lock",
    "packages.lock.json", "gradle.lockfile", "flake.lock", "deno.lock", "conda-lock.yml",
})
_REQUIREMENTS = re.compile(r"^(requirements|constraints)([-_.][\w.-]*)?\.(txt|in)$")
_MANIFEST_SUFFIXES = (".csproj", ".fsproj", ".vbproj", ".gemspec", ".nuspec", ".cabal")

_DOCS_SUFFIXES = frozenset({".md", ".markdown", ".rst", ".adoc", ".asciidoc", ".txt", ".rtf",
                            ".org", ".tex", ".man", ".pod"})
_DOCS_NAMES = frozenset({"license", "licence", "copying", "notice", "authors", "contributors",
                         "changelog", "changes", "history", "codeowners", ".gitignore",
                         ".gitattributes", ".mailmap", ".editorconfig"})
_ASSET_SUFFIXES = frozenset({
    ".png", ".jpg", ".jpeg", ".gif", ".bmp", ".ico", ".svg", ".webp", ".tiff", ".psd",
    ".woff", ".woff2", ".ttf", ".otf", ".eot", ".mp3", ".mp4", ".wav", ".ogg", ".webm",
    ".mov", ".avi", ".pdf", ".csv", ".tsv", ".parquet", ".snap", ".po", ".mo", ".pot",
})
_GENERATED = re.compile(
    r"(\.min\.(js|css)|\.bundle\.js|\.map|_pb2(_grpc)?\.pyi?|\.pb\.go|\.pb\.(cc|h)|"
    r"_generated\.\w+|\.generated\.\w+|\.g\.dart|\.freezed\.dart|\.designer\.cs)$"
)
_VENDORED_DIRS = frozenset({"vendor", "vendored", "third_party", "third-party", "thirdparty",
                            "node_modules", "bower_components", "site-packages", ".yarn"})
_CI_NAMES = frozenset({".gitlab-ci.yml", "jenkinsfile", "azure-pipelines.yml", ".travis.yml",
                       "bitbucket-pipelines.yml", "cloudbuild.yaml", "cloudbuild.yml",
                       "appveyor.yml", ".drone.yml", "buildspec.yml", "action.yml",
                       "action.yaml", ".pre-commit-config.yaml"})
_CONTAINER = re.compile(r"^(dockerfile|containerfile)([.-].*)?$|\.dockerfile$|"
                        r"^(docker-)?compose([.-].*)?\.ya?ml$|^\.dockerignore$")
_K8S = re.compile(r"^\s*(apiVersion|kind):", re.MULTILINE)


@dataclass(frozen=True)
class FileKind:
    """What one changed path is."""

    kind: Kind
    language: str | None  # e.g. "python"; None when not a language we name

    @property
    def reviewed(self) -> bool:
        """True when the general review covers files of this kind."""
        return self.kind in REVIEWED_KINDS


def _is_ci(directory: str, name: str) -> bool:
    if name in _CI_NAMES:
        return True
    return (
        (directory.endswith(".github/workflows") and name.endswith((".yml", ".yaml")))
        or directory.endswith(".circleci") or directory.startswith(".buildkite")
        or ".github/actions" in directory
    )


_IAC_NAMES = frozenset({"chart.yaml", "values.yaml", "kustomization.yaml", "kustomization.yml",
                        "serverless.yml", "template.yaml"})
_IAC_DIRS = frozenset({"k8s", "kubernetes", "helm", "charts", "manifests", "deploy",
                       "deployment", "cloudformation", "terraform", "ansible", "infra",
                       "infrastructure"})
_CONFIG_LANGUAGES = frozenset({"yaml", "json", "toml", "xml", "ini", "conf", "properties",
                               "dotenv", "apache"})
#: Extensions that are code and nothing else: the common case, decided first.
_PLAIN_CODE = frozenset(ext for ext, lang in LANGUAGES.items()
                        if lang not in _CONFIG_LANGUAGES | {"terraform", "hcl", "bicep"})


def _is_iac(dirs: list[str], name: str, suffix: str, text: str) -> bool:
    if suffix in {".tf", ".tfvars", ".hcl", ".bicep"} or name in _IAC_NAMES:
        return True
    if suffix in {".yml", ".yaml", ".json"} and not _IAC_DIRS.isdisjoint(dirs):
        return True
    return suffix in {".yml", ".yaml"} and bool(_K8S.search(text[:2000]))


def classify(path: str, first_text: str = "") -> FileKind:
    """The kind and language of the file at ``path`` (repository-relative, POSIX).

    ``first_text`` is the file's first lines when the caller has them (a hunk that starts at
    line 1): a shebang names the language of an extensionless script, and ``apiVersion:``
    marks a Kubernetes manifest.
    """
    directory, _, base = path.rpartition("/")
    directory = directory.lower()
    name = base.lower()
    dot = name.rfind(".")
    suffix = name[dot:] if dot > 0 else ""
    dirs = directory.split("/") if directory else []
    language = LANGUAGES.get(suffix)
    if language is None and name.startswith("."):  # .env, .env.local, .htaccess
        language = "dotenv" if name.startswith(".env") else LANGUAGES.get(name)
    if not _VENDORED_DIRS.isdisjoint(dirs):
        return FileKind(Kind.VENDORED, language)
    if name in LOCKS or suffix == ".lock":
        return FileKind(Kind.LOCK, language)
    if _GENERATED.search(name):
        return FileKind(Kind.GENERATED, language)
    if name in MANIFESTS or _REQUIREMENTS.match(name) or name.endswith(_MANIFEST_SUFFIXES):
        return FileKind(Kind.DEPENDENCIES, language or ("python" if name.endswith(".txt")
                                                        else None))
    if suffix in _PLAIN_CODE and ".github" not in directory:
        return FileKind(Kind.CODE, language)
    if _is_ci(directory, name):
        return FileKind(Kind.CI, language or "yaml")
    if _CONTAINER.search(name):
        compose = name.endswith((".yml", ".yaml"))
        return FileKind(Kind.CONTAINER, language if compose else "dockerfile")
    if _is_iac(dirs, name, suffix, first_text):
        return FileKind(Kind.IAC, language)
    if suffix in _DOCS_SUFFIXES or name in _DOCS_NAMES or (
            not suffix and base.isupper() and base.isalpha()):
        return FileKind(Kind.DOCS, None)
    if suffix in _ASSET_SUFFIXES:
        return FileKind(Kind.ASSET, None)
    if language is None and first_text.startswith("#!"):
        match = _SHEBANG.match(first_text)
        if match:
            language = _SHEBANG_LANG.get(match.group(1))
    if language in _CONFIG_LANGUAGES:
        return FileKind(Kind.CONFIG, language)
    # Anything else (a Makefile, an extensionless script, a format we do not name) is
    # reviewed: leaving a file out needs a reason, keeping it in does not.
    return FileKind(Kind.CODE, language)


#: Directories of test code, and file names of tests in the common frameworks.
_TEST_DIRS = frozenset({"tests", "test", "__tests__", "spec", "specs", "testing"})
_TEST_NAME = re.compile(r"^(test_.+\.py|.+_test\.(py|go|rb|exs)|.+\.(test|spec)\.[cm]?[jt]sx?|"
                        r".+Tests?\.(java|kt|cs))$")
#: Test-shaped names that run outside tests: pytest loads a conftest.py (in CI, with the
#: job's secrets), so it is code like any other.
_RUNS_IN_CI = frozenset({"conftest.py"})


def default_exclusion(path: str) -> str | None:
    """Why the non-credential rules leave ``path`` out by default (vendored, minified or
    generated, test code), or None. Decided from the path alone, like :func:`classify`;
    whether the exclusion holds for a rule is :func:`~pytest_secreview.core.decide.
    judge_exclusion`'s to say (credential rules read every changed file)."""
    kind = classify(path).kind
    if kind is Kind.VENDORED:
        return "vendored"
    if kind is Kind.GENERATED:
        return "minified or generated"
    directory, _, name = path.rpartition("/")
    if name in _RUNS_IN_CI:
        return None
    if _TEST_NAME.match(name) or not _TEST_DIRS.isdisjoint(directory.lower().split("/")):
        return "test code"
    return None


def default_exclusions(files: Iterable[FileDiff]) -> dict[str, str]:
    """Path -> why, for each changed file (not deleted) the defaults leave out
    (:func:`default_exclusion`)."""
    return {f.path: why for f in files if f.kind is not ChangeKind.DELETED
            and (why := default_exclusion(f.path)) is not None}


_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def classes_chosen_by_pr(files: Iterable[FileDiff], excluded: Mapping[str, str]
                         ) -> dict[str, str]:
    """Path -> how the pull request chose it, for each default exclusion (``excluded``, from
    :func:`default_exclusions`) the pull request made itself: a Python module it adds (or
    moves in from a path the defaults review) at a vendored, generated or test path, whose
    module name an added line of a changed file outside the exclusions names (an import, a
    call, a command that runs it). That module is code the application runs, whatever its
    path says. A file the base already held at its path keeps the class the base gave it.

    Names, not parsing: the added lines of the other changed files are cut into words once,
    and a module's name is looked up among them; a name that happens to match only reviews a
    file more. Other languages keep the path's class (their modules are named by paths and
    bundles as often as by imports)."""
    ordered = [f for f in files if f.kind is not ChangeKind.DELETED]
    made = sorted(f.path for f in ordered if f.path in excluded and f.path.endswith(".py")
                  and (f.kind is ChangeKind.ADDED
                       or (f.kind in (ChangeKind.RENAMED, ChangeKind.COPIED)
                           and f.old_path is not None
                           and default_exclusion(f.old_path) is None)))
    if not made:
        return {}
    named_in: dict[str, str] = {}  # word -> the first file outside the exclusions naming it
    for file in ordered:
        if file.path not in excluded:
            for line in file.added_lines:
                for word in _WORD.findall(line.text):
                    named_in.setdefault(word, file.path)
    chosen = {}
    for path in made:
        referrer = named_in.get(path.rpartition("/")[2].removesuffix(".py"))
        if referrer is not None:
            chosen[path] = (f"this pull request adds it there and {referrer}, outside the "
                            f"{excluded[path]}, names it: it is reviewed as the code it runs")
    return chosen


def exclusion_note(excluded: Mapping[str, str],
                   chosen: Mapping[str, str] | None = None) -> str | None:
    """The summary's line on the default exclusions: how many files, and why; and how many
    of them the pull request placed there itself (``chosen``), reviewed all the same."""
    chosen = chosen or {}
    left_out = {path: why for path, why in excluded.items() if path not in chosen}
    parts = []
    if left_out:
        counts: dict[str, int] = {}
        for why in left_out.values():
            counts[why] = counts.get(why, 0) + 1
        listing = ", ".join(f"{n} {why}" for why, n in sorted(counts.items()))
        parts.append(f"{len(left_out)} changed file(s) out of the non-credential rules by "
                     f"default: {listing}; credential rules still read them")
    if chosen:
        shown = ", ".join(sorted(chosen)[:5]) + (", …" if len(chosen) > 5 else "")
        parts.append(f"{len(chosen)} file(s) at a vendored, generated or test path reviewed "
                     f"all the same: this pull request adds them there and other changed "
                     f"code names them ({shown})")
    return "; ".join(parts) or None
