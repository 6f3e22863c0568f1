"""The security gate: what it denies, what it lets through, and that it fails closed."""

from __future__ import annotations

import logging

import pytest

from pytest_secreview.tools.errors import GateDenied
from pytest_secreview.tools.gate import Gate, deny_reason

DENIED = [
    ("git_config", ".git/config", "git internals"),
    ("git_head", ".git/HEAD", "git internals"),
    ("git_dir_itself", ".git", "git internals"),
    ("git_file_in_submodule", "vendor/lib/.git", "git internals"),
    ("git_nested", "vendor/lib/.git/config", "git internals"),
    ("git_upper", ".GIT/config", "git internals"),
    ("git_trailing_dot", ".git./config", "git internals"),
    ("git_trailing_space", ".git /config", "git internals"),
    ("git_ntfs_short", "GIT~1/config", "git internals"),
    ("git_zero_width", ".g\u200cit/config", "git internals"),
    ("git_fullwidth", "\uff0egit/config", "git internals"),
    ("env", ".env", "environment"),
    ("env_upper", ".ENV", "environment"),
    ("env_production", ".env.production", "environment"),
    ("env_example", ".env.example", "environment"),
    ("env_nested", "services/api/.env.local", "environment"),
    ("env_suffix", "config/prod.env", "environment"),
    ("envrc", ".envrc", "environment"),
    ("id_rsa", "id_rsa", "private key"),
    ("id_ed25519_nested", "deploy/keys/id_ed25519", "private key"),
    ("pem", "certs/server.pem", "private key"),
    ("key", "config/master.key", "private key"),
    ("p12", "signing/cert.p12", "private key"),
    ("pfx", "cert.PFX", "private key"),
    ("jks", "android/release.jks", "private key"),
    ("keystore", "android/debug.keystore", "private key"),
    ("ssh_dir", "home/.ssh/config", "SSH"),
    ("npmrc", ".npmrc", "credential"),
    ("npmrc_nested", "frontend/.npmrc", "credential"),
    ("pypirc", ".pypirc", "credential"),
    ("netrc", ".netrc", "credential"),
    ("git_credentials", ".git-credentials", "credential"),
    ("aws_credentials", ".aws/credentials", "AWS"),
    ("docker_config", "ci/.docker/config.json", "credential"),
    ("gcloud_adc", "application_default_credentials.json", "credential"),
    ("gcloud_dir", "home/.config/gcloud/credentials.db", "gcloud"),
    ("service_account", "service-account-prod.json", "credential"),
    ("service_account_underscore", "keys/service_account.json", "credential"),
    ("kubeconfig", "kubeconfig", "credential"),
    ("kube_config", ".kube/config", "credential"),
    ("tfstate", "infra/terraform.tfstate", "Terraform"),
    ("tfstate_backup", "infra/terraform.tfstate.backup", "Terraform"),
    ("pgpass", ".pgpass", "credential"),
    ("htpasswd", "web/.htpasswd", "credential"),
]


@pytest.mark.parametrize(("path", "fragment"), [d[1:] for d in DENIED], ids=[d[0] for d in DENIED])
def test_denied(path: str, fragment: str) -> None:
    reason = Gate().reason(path)
    assert reason is not None and fragment in reason


ALLOWED = [
    ("source", "src/app.py"),
    ("public_key", "keys/id_rsa.pub"),
    ("gitignore", ".gitignore"),
    ("gitattributes", ".gitattributes"),
    ("github_dir", ".github/workflows/ci.yml"),
    ("gitmodules", ".gitmodules"),
    ("environment_module", "src/environment.py"),
    ("envoy_config", "deploy/envoy.yaml"),
    ("keyboard", "src/keyboard.ts"),
    ("key_in_dir_name", "src/keys/rotation.py"),
    ("docs_about_env", "docs/env-vars.md"),
    ("tfvars", "infra/prod.tfvars"),
    ("root", ""),
]


@pytest.mark.parametrize("path", [a[1] for a in ALLOWED], ids=[a[0] for a in ALLOWED])
def test_allowed(path: str) -> None:
    assert Gate().reason(path) is None
    assert deny_reason(path) is None


def test_require_records_logs_and_raises(caplog: pytest.LogCaptureFixture) -> None:
    gate = Gate()
    with caplog.at_level(logging.INFO, logger="pytest_secreview.tools"), pytest.raises(
        GateDenied
    ) as info:
        gate.require(".git/config", tool="read_file")
    assert "git internals" in info.value.reason
    (denial,) = gate.denials
    assert (denial.tool, denial.path, denial.stage) == ("read_file", ".git/config", "call")
    assert any(
        record.name == "pytest_secreview.tools" and "git internals" in record.getMessage()
        for record in caplog.records
    )


def test_filter_withholds_and_counts() -> None:
    gate = Gate()
    allowed, withheld = gate.filter(["src/a.py", ".env", "id_rsa", "README.md"], tool="list_files")
    assert allowed == ["src/a.py", "README.md"]
    assert [path for path, _reason in withheld] == [".env", "id_rsa"]
    assert [d.stage for d in gate.denials] == ["result", "result"]


def test_log_lines_cannot_be_forged(caplog: pytest.LogCaptureFixture) -> None:
    gate = Gate()
    with caplog.at_level(logging.INFO, logger="pytest_secreview.tools"), pytest.raises(
        GateDenied
    ):
        gate.require("evil\nINFO everything is fine\x1b[2K/.env", tool="read_file")
    (denial,) = gate.denials
    assert "\n" not in denial.path and "\x1b" not in denial.path


def test_fails_closed_when_a_rule_breaks(caplog: pytest.LogCaptureFixture) -> None:
    def broken(_path: str) -> str | None:
        raise RuntimeError("boom")

    gate = Gate(extra_rules=[broken])
    reason = gate.reason("src/app.py")
    assert reason is not None and "denied to be safe" in reason
    with pytest.raises(GateDenied):
        gate.require("src/app.py", tool="read_file")


def test_extra_rules_extend_the_gate() -> None:
    gate = Gate(extra_rules=[lambda path: "vault" if path.startswith("vault/") else None])
    assert gate.reason("vault/x.txt") == "vault"
    assert gate.reason("VAULT/x.txt") == "vault"  # rules see the normalised, lower-case path
    assert gate.reason("src/x.txt") is None
