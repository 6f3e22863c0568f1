"""The signals of the intent audit: what kinds of change a pull request makes, recognised
from the diff alone.

Each :class:`Signal` is a fixed RE2 pattern (linear time on hostile lines) matched on added or
removed lines of some files; :func:`file_category` recognises changes whose *path* is the
signal (a CI workflow, an install hook, a lock file). The table is data: adding a signal is a
line here and a case in ``tests/test_audit_evidence.py``.

The signals are deliberately broad. They are evidence for a judge (the ``intent`` rule's
model, or a person reading ``risk_evidence``), not findings: a network call in a pull request
titled "add HTTP client" is expected, in one titled "fix typo" it is the point.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Literal

from ..safe_regex import compile_re2


class Category(StrEnum):
    """What a piece of evidence says the change does (stable names: they are in reports)."""

    NETWORK = "network"
    SUBPROCESS = "subprocess"
    FILESYSTEM = "filesystem"  # outside the project: home, /etc, credentials directories
    ENVIRONMENT = "environment"  # environment variables and credential names
    CRYPTO = "crypto"
    AUTH_REMOVED = "auth_removed"
    CI_WORKFLOW = "ci_workflow"
    INSTALL_HOOK = "install_hook"
    DEPENDENCY = "dependency"
    OBFUSCATION = "obfuscation"  # encoded blobs, eval/exec of built strings, minified code


Side = Literal["added", "removed"]

#: Files whose lines are prose: a URL or the word "password" there is not code.
_PROSE = (".md", ".rst", ".txt", ".adoc", ".html", ".htm", ".svg")
_LOCKFILES = (
    "package-lock.json", "yarn.lock", "pnpm-lock.yaml", "poetry.lock", "Pipfile.lock",
    "Cargo.lock", "go.sum", "composer.lock", "Gemfile.lock", "uv.lock",
)
_MANIFESTS = (
    "requirements", "pyproject.toml", "setup.cfg", "Pipfile", "package.json", "go.mod",
    "Cargo.toml", "Gemfile", "composer.json", "pom.xml", "build.gradle",
)


def basename(path: str) -> str:
    """The last component of a repository path."""
    return path.rsplit("/", 1)[-1]


def is_prose(path: str) -> bool:
    """Documentation and markup, where code-like words are usually just words."""
    return path.lower().endswith(_PROSE)


def is_lockfile(path: str) -> bool:
    """A generated dependency lock file (scanned as one file-level signal, not per line)."""
    return basename(path) in _LOCKFILES


def is_manifest(path: str) -> bool:
    """A dependency manifest whose added entries are new dependencies."""
    name = basename(path)
    return any(name.startswith(m) for m in _MANIFESTS) and not is_lockfile(path)


@dataclass(frozen=True)
class Signal:
    """One recognisable kind of change."""

    category: Category
    name: str  # what the evidence says, e.g. "HTTP client call"
    pattern: Any  # compiled RE2
    side: Side = "added"
    code_only: bool = True  # not matched in prose files
    manifest_only: bool = False  # matched only in dependency manifests

    def find(self, text: str) -> str | None:
        """The matched text, or None."""
        match = self.pattern.search(text)
        return None if match is None else str(match.group(0))


def _signal(category: Category, name: str, pattern: str, **kw: Any) -> Signal:
    return Signal(category, name, compile_re2(pattern), **kw)


NET, SUB, FS, ENV, CRY, AUTH, DEP, OBF = (
    Category.NETWORK, Category.SUBPROCESS, Category.FILESYSTEM, Category.ENVIRONMENT,
    Category.CRYPTO, Category.AUTH_REMOVED, Category.DEPENDENCY, Category.OBFUSCATION,
)

SIGNALS: tuple[Signal, ...] = (
    # -- network ---------------------------------------------------------------------------
    _signal(NET, "HTTP client call",
            r"\b(requests|httpx|aiohttp|urllib3|session)\.(get|post|put|patch|delete|request|"
            r"head|Session|Client|AsyncClient|ClientSession|PoolManager)\s*\("),
    _signal(NET, "URL opened", r"\b(urlopen|urlretrieve|HTTPS?Connection|build_opener)\s*\("),
    _signal(NET, "socket", r"\bsocket\.(socket|create_connection|getaddrinfo)\s*\(|\bnet\.(Dial|"
            r"Listen)\w*\s*\(|\bnew\s+(WebSocket|Socket)\s*\("),
    _signal(NET, "HTTP request (JavaScript/Go/Java)",
            r"\bfetch\s*\(|\baxios(\.\w+)?\s*\(|\bXMLHttpRequest\b|\bhttps?\.(get|request)\s*\(|"
            r"\bhttp\.(Get|Post|NewRequest)\s*\(|\bHttpClient\b|\bOkHttpClient\b"),
    _signal(NET, "download tool", r"\b(curl|wget|Invoke-WebRequest|iwr)\s+[-\w'\"$]"),
    _signal(NET, "hard-coded URL or address",
            r"\b(https?|wss?|ftp)://[A-Za-z0-9.-]+|\b\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}:\d{2,5}\b"),
    _signal(NET, "DNS lookup", r"\b(gethostbyname|resolver\.resolve|dns\.lookup|nslookup|dig)\b"),
    # -- subprocess ------------------------------------------------------------------------
    _signal(SUB, "process execution",
            r"\bsubprocess\.\w+\s*\(|\bos\.(system|popen|exec\w*|spawn\w*)\s*\(|\bPopen\s*\(|"
            r"\bchild_process\b|\b(execSync|spawnSync|execFile)\s*\(|\bexec\.Command\s*\(|"
            r"\bRuntime\.getRuntime\(\)\.exec|\bProcessBuilder\s*\(|\bpty\.spawn\s*\("),
    _signal(SUB, "shell pipe", r"\|\s*(ba|z|da)?sh\b|\bsh\s+-c\b|\bbash\s+-c\b"),
    # -- file system outside the project ---------------------------------------------------
    _signal(FS, "home directory", r"\bexpanduser\s*\(|\bPath\.home\s*\(|\bos\.homedir\s*\(|"
            r"\bUserHomeDir\s*\(|[\"'`]~/|\$HOME\b|%USERPROFILE%|%APPDATA%"),
    _signal(FS, "credential or system path",
            r"\.ssh/|\.aws/|\.kube/|\.docker/config|\.npmrc|\.pypirc|\.netrc|\.gnupg|"
            r"\.git-credentials|/etc/(passwd|shadow|hosts|sudoers)|/proc/self|/var/run/docker"),
    _signal(FS, "file deletion or permission change",
            r"\bshutil\.rmtree\s*\(|\brm\s+-rf?\s+[/~$]|\bos\.(chmod|chown)\s*\(|\bchmod\s+"
            r"[0-7]*7[0-7]*\s"),
    # -- environment and credentials -------------------------------------------------------
    _signal(ENV, "environment variable read",
            r"\bos\.environ\b|\bos\.getenv\s*\(|\bgetenv\s*\(|\bprocess\.env\b|"
            r"\bSystem\.getenv\s*\(|\bos\.Getenv\s*\(|\bENV\s*\[|\benv::var\s*\("),
    _signal(ENV, "credential name",
            r"(?i)\b\w*(secret|passw(or)?d|passwd|api_?key|private_?key|credentials?|"
            r"access_?key(_?id)?|auth_?token|access_?token|_token)\b"),
    _signal(ENV, "secrets in CI", r"\$\{\{\s*secrets\.|\bGITHUB_TOKEN\b|\bACTIONS_\w*TOKEN\b",
            code_only=False),
    # -- crypto ----------------------------------------------------------------------------
    _signal(CRY, "cryptography", r"\b(hashlib|hmac|Crypto\.\w+|cryptography\.\w+|createCipher\w*|"
            r"createHash|createHmac|crypto/\w+|javax\.crypto|MessageDigest|bcrypt|scrypt|"
            r"Fernet|AES|RSA|ECDSA)\b"),
    _signal(CRY, "TLS verification or weak algorithm",
            r"\bverify\s*=\s*False\b|InsecureSkipVerify|rejectUnauthorized\s*:\s*false|"
            r"\bCERT_NONE\b|\b(md5|sha1|DES|RC4)\b"),
    # -- authorization checks removed ------------------------------------------------------
    _signal(AUTH, "authorization check removed",
            r"@\w*(login_required|permission_required|requires?_\w+|authenticated|"
            r"jwt_required|roles_required|admin_required|Secured|PreAuthorize|RolesAllowed|"
            r"Authorize)\b|\b(is_authenticated|has_perm\w*|check_permission\w*|authorize\w*|"
            r"require_auth\w*|verify_token|is_admin|isAdmin|csrf_protect|@csrf)\b",
            side="removed"),
    # -- new dependencies ------------------------------------------------------------------
    _signal(DEP, "dependency added",
            r"^\s*[\"']?[A-Za-z0-9@][\w@./-]*[\"']?\s*(\[[\w,]+\])?\s*(==|>=|<=|~=|!=|>|<|=|:)"
            r"\s*[\"']?[\^~<>=*v]?\d|^\s*[A-Za-z0-9][\w.-]*\s*$|^\s*(require\s+)?[\w.-]+\.\w+/"
            r"[\w./-]+\s+v\d|^\s*gem\s+[\"']", manifest_only=True, code_only=False),
    _signal(DEP, "dependency from a URL or VCS",
            r"\bgit\+|\bhttps?://\S+\.(whl|tar\.gz|tgz|zip)\b|--(extra-)?index-url\b|"
            r"\bgithub:[\w-]+/", code_only=False),
    # -- obfuscation -----------------------------------------------------------------------
    _signal(OBF, "long encoded blob", r"[A-Za-z0-9+/]{160,}={0,2}|\b[0-9a-fA-F]{160,}\b|"
            r"(\\x[0-9a-fA-F]{2}){16,}", code_only=False),
    _signal(OBF, "decoding at run time",
            r"\b(b64decode|b32decode|a85decode|atob|unhexlify|fromhex|decompress|"
            r"marshal\.loads|pickle\.loads)\s*\(|Buffer\.from\([^)]*['\"](base64|hex)['\"]|"
            r"codecs\.decode\([^)]*rot"),
    _signal(OBF, "eval/exec of a built string",
            r"\b(eval|exec|execfile|compile)\s*\(\s*[^\s\"')]|\bnew\s+Function\s*\(|"
            r"\b__import__\s*\(\s*[^\s\"')]|\bimportlib\.import_module\s*\(\s*[^\s\"')]|"
            r"\bsetTimeout\s*\(\s*[\"'`]|\bgetattr\s*\(\s*\w+\s*,\s*[^\s\"')]"),
    _signal(OBF, "character-code string building",
            r"(\bchr\s*\(\s*\d+\s*\)\s*\+\s*){3,}|String\.fromCharCode\s*\(\s*\d+\s*,\s*\d+"),
)

#: A code line this long with this little white space is minified (or deliberately hidden).
MINIFIED_MIN_CHARS = 500
MINIFIED_MAX_SPACE_RATIO = 0.08


def looks_minified(text: str) -> bool:
    """A long line with almost no white space."""
    if len(text) < MINIFIED_MIN_CHARS:
        return False
    spaces = sum(1 for c in text if c.isspace())
    return spaces / len(text) <= MINIFIED_MAX_SPACE_RATIO


_CI_DIRS = (".github/workflows/", ".github/actions/", ".circleci/", ".buildkite/", ".gitlab/")
_CI_FILES = (".gitlab-ci.yml", "Jenkinsfile", "azure-pipelines.yml", ".travis.yml",
             "bitbucket-pipelines.yml", "cloudbuild.yaml", "cloudbuild.yml", "action.yml",
             "action.yaml")
_HOOK_FILES = ("setup.py", "conftest.py", "sitecustomize.py", "usercustomize.py", "build.rs",
               "Makefile", ".pre-commit-config.yaml", "__main__.py", "postinstall.js",
               "preinstall.js", "install.js", ".npmrc", ".yarnrc", ".yarnrc.yml")

#: Install hook lines inside package.json / pyproject.toml: code run by ``install`` itself.
INSTALL_SCRIPT = _signal(
    Category.INSTALL_HOOK, "install script",
    r"[\"'](pre|post)?install[\"']\s*:|[\"']prepare[\"']\s*:|[\"']prepublish\w*[\"']\s*:|"
    r"\[tool\.setuptools\.cmdclass\]|cmdclass\s*=|\[build-system\]|build-backend",
    code_only=False,
)


def file_category(path: str) -> tuple[Category, str] | None:
    """The category and signal name of a change recognised by its path alone."""
    name = basename(path)
    if path.startswith(_CI_DIRS) or name in _CI_FILES:
        return Category.CI_WORKFLOW, "CI workflow changed"
    if name in _HOOK_FILES or name.endswith(".pth") or path.startswith(".husky/"):
        return Category.INSTALL_HOOK, f"{name} runs at install, import or test time"
    if is_lockfile(path):
        return Category.DEPENDENCY, "dependency lock file changed"
    return None
