# Authoring spec of the breadth corpus: `pair` is provided by build.py when it loads this module.
# The category argument is the class (a key of build.CLASSES); the safe twin differs by the
# one edit that a reviewer must tell apart (the safe loader, the CSPRNG, the flag, the filter).

PAIRS = [
pair("yaml-full-loader-upload", "unsafe-yaml",
     "An uploaded pipeline definition is loaded with yaml.FullLoader",
     "The upload is loaded with yaml.SafeLoader",
     ["flask", "request.files", "pyyaml"], ["safe-loader"],
     {"pipelines.py": r'''
        import yaml
        from flask import Flask, request

        app = Flask(__name__)


        @app.post("/pipelines")
        def create_pipeline():
            text = request.files["definition"].read().decode()
            spec = yaml.load(text, Loader=yaml.FullLoader)  #@sink
            return {"steps": len(spec.get("steps", []))}
     '''},
     [("Loader=yaml.FullLoader", "Loader=yaml.SafeLoader")]),

pair("yaml-unsafe-load-cli", "unsafe-yaml",
     "A command-line tool reads its inventory file with yaml.unsafe_load",
     "The inventory is read with yaml.safe_load",
     ["cli", "sys.argv", "pyyaml"], ["safe-loader"],
     {"inventory.py": r'''
        import sys

        import yaml


        def main(path):
            with open(path, encoding="utf-8") as handle:
                hosts = yaml.unsafe_load(handle)  #@sink
            for name in sorted(hosts):
                print(name)


        if __name__ == "__main__":
            main(sys.argv[1])
     '''},
     [("yaml.unsafe_load(handle)", "yaml.safe_load(handle)")]),

pair("yaml-positional-loader", "unsafe-yaml",
     "Fixtures are loaded with the object-constructing yaml.Loader passed positionally",
     "The same call passes yaml.SafeLoader",
     ["pyyaml", "positional-argument"], ["safe-loader"],
     {"fixtures.py": r'''
        from pathlib import Path

        import yaml

        FIXTURES = Path("fixtures")


        def load_fixture(name):
            raw = (FIXTURES / name).read_text()
            return yaml.load(raw, yaml.Loader)  #@sink
     '''},
     [("yaml.load(raw, yaml.Loader)", "yaml.load(raw, yaml.SafeLoader)")]),

pair("weak-hash-md5-password", "weak-hash",
     "Sign-up stores the password as an unsalted MD5 digest",
     "The password is hashed with PBKDF2-HMAC-SHA256",
     ["django", "password"], ["password-hash"],
     {"accounts.py": r'''
        import hashlib
        import os


        def create_account(store, email, password):
            salt = os.urandom(16)
            record = {
                "email": email,
                "salt": salt.hex(),
                "password_hash": hashlib.md5(password.encode()).hexdigest(),  #@sink
            }
            store.insert(record)
            return record
     '''},
     [("hashlib.md5(password.encode()).hexdigest()",
       "hashlib.pbkdf2_hmac(\"sha256\", password.encode(), salt, 600_000).hex()")]),

pair("weak-hash-sha1-webhook-signature", "weak-hash",
     "A webhook signature is computed as SHA-1 over the shared secret and the body",
     "The signature is an HMAC-SHA256 of the body",
     ["flask", "signature"], ["hmac"],
     {"webhooks.py": r'''
        import hashlib
        import hmac
        import os

        from flask import Flask, abort, request

        app = Flask(__name__)
        WEBHOOK_SECRET = os.environ["WEBHOOK_SECRET"].encode()


        @app.post("/hooks/billing")
        def billing_hook():
            body = request.get_data()
            signature = hashlib.sha1(WEBHOOK_SECRET + body).hexdigest()  #@sink
            if not hmac.compare_digest(signature, request.headers.get("X-Signature", "")):
                abort(401)
            return {"ok": True}
     '''},
     [("hashlib.sha1(WEBHOOK_SECRET + body).hexdigest()",
       "hmac.new(WEBHOOK_SECRET, body, hashlib.sha256).hexdigest()")]),

pair("weak-hash-signed-url", "weak-hash",
     "Download links are signed with MD5 over a signing key and the path",
     "The download link carries an MD5 ETag of the file, marked usedforsecurity=False",
     ["signature"], ["non-security-use"],
     {"links.py": r'''
        import hashlib


        def download_link(signing_key: bytes, path: str, content: bytes) -> str:
            sig = hashlib.md5(signing_key + path.encode()).hexdigest()  #@sink
            return f"/download/{path}?sig={sig}&size={len(content)}"
     '''},
     [("hashlib.md5(signing_key + path.encode()).hexdigest()",
       "hashlib.md5(content, usedforsecurity=False).hexdigest()")]),

pair("random-reset-token", "insecure-random",
     "Password-reset tokens are drawn with random.choice",
     "The token characters are drawn with secrets.choice",
     ["password-reset", "token"], ["csprng"],
     {"reset.py": r'''
        import random
        import secrets
        import string

        ALPHABET = string.ascii_letters + string.digits


        def issue_reset(user, mailer):
            reset_token = "".join(random.choice(ALPHABET) for _ in range(40))  #@sink
            user.reset_token = reset_token
            mailer.send(user.email, f"https://shop.example.com/reset/{reset_token}")
            return secrets.compare_digest(reset_token, user.reset_token)
     '''},
     [("random.choice(ALPHABET)", "secrets.choice(ALPHABET)")]),

pair("random-session-id", "insecure-random",
     "Session identifiers come from the module-level Mersenne Twister",
     "Session identifiers come from random.SystemRandom",
     ["session"], ["csprng"],
     {"sessions.py": r'''
        import random
        import time


        class SessionStore:
            def __init__(self):
                self.sessions = {}

            def create(self, user_id):
                session_id = "%032x" % random.getrandbits(128)  #@sink
                self.sessions[session_id] = {"user": user_id, "at": time.time()}
                return session_id
     '''},
     [("random.getrandbits(128)", "random.SystemRandom().getrandbits(128)")]),

pair("cookie-flask-no-flags", "insecure-cookie",
     "Login sets the session cookie without Secure and HttpOnly",
     "The cookie is set with secure=True, httponly=True and samesite",
     ["flask", "set_cookie"], ["cookie-flags"],
     {"login.py": r'''
        import secrets

        from flask import Flask, jsonify, request

        app = Flask(__name__)
        SESSIONS = {}


        @app.post("/login")
        def login():
            sid = secrets.token_urlsafe(32)
            SESSIONS[sid] = request.form["user"]
            resp = jsonify(ok=True)
            resp.set_cookie("sid", sid, max_age=3600)  #@sink
            return resp
     '''},
     [('resp.set_cookie("sid", sid, max_age=3600)',
       'resp.set_cookie("sid", sid, max_age=3600, secure=True, httponly=True, samesite="Lax")')]),

pair("cookie-django-settings", "insecure-cookie",
     "Production settings turn the Secure flag of the session cookie off",
     "Production settings keep SESSION_COOKIE_SECURE on",
     ["django", "settings"], ["cookie-flags"],
     {"shop/settings/production.py": r'''
        from .base import *  # noqa: F403

        DEBUG = False
        ALLOWED_HOSTS = ["shop.example.com"]
        SESSION_COOKIE_SECURE = False  #@sink
        CSRF_COOKIE_SECURE = True
        SESSION_COOKIE_HTTPONLY = True
     '''},
     [("SESSION_COOKIE_SECURE = False", "SESSION_COOKIE_SECURE = True")]),

pair("cookie-flask-config-httponly", "insecure-cookie",
     "A Flask app factory switches HttpOnly off for the session cookie",
     "The factory keeps HttpOnly on",
     ["flask", "config"], ["cookie-flags"],
     {"factory.py": r'''
        from flask import Flask


        def create_app():
            app = Flask(__name__)
            app.config["SESSION_COOKIE_SECURE"] = True
            app.config["SESSION_COOKIE_HTTPONLY"] = False  #@sink
            return app
     '''},
     [('app.config["SESSION_COOKIE_HTTPONLY"] = False', 'app.config["SESSION_COOKIE_HTTPONLY"] = True')]),

pair("xml-sax-external-ges", "xml-entities",
     "A SAX parser for uploaded product feeds turns external general entities on",
     "The feature is set to False",
     ["sax", "feature_external_ges"], ["parser-hardened"],
     {"feeds.py": r'''
        import xml.sax
        from xml.sax.handler import feature_external_ges


        class Titles(xml.sax.ContentHandler):
            def __init__(self):
                super().__init__()
                self.titles = []

            def characters(self, content):
                self.titles.append(content)


        def read_feed(stream):
            handler = Titles()
            parser = xml.sax.make_parser()
            parser.setFeature(feature_external_ges, True)  #@sink
            parser.setContentHandler(handler)
            parser.parse(stream)
            return handler.titles
     '''},
     [("parser.setFeature(feature_external_ges, True)",
       "parser.setFeature(feature_external_ges, False)")]),

pair("xml-lxml-resolve-entities", "xml-entities",
     "Invoice files named on the command line are parsed by an lxml parser that resolves entities",
     "The parser is built with resolve_entities=False",
     ["lxml", "cli"], ["parser-hardened"],
     {"invoices.py": r'''
        import sys

        from lxml import etree


        def totals(path):
            parser = etree.XMLParser(resolve_entities=True)
            tree = etree.parse(path, parser)  #@sink
            return [float(t.text) for t in tree.iter("total")]


        if __name__ == "__main__":
            print(sum(totals(sys.argv[1])))
     '''},
     [("resolve_entities=True", "resolve_entities=False")]),

pair("jinja-autoescape-false", "jinja-autoescape",
     "The mail renderer's Jinja environment turns autoescaping off",
     "The environment uses select_autoescape()",
     ["jinja2", "autoescape"], ["autoescape"],
     {"mail.py": r'''
        from jinja2 import Environment, FileSystemLoader, select_autoescape

        ENV = Environment(loader=FileSystemLoader("templates"), autoescape=False)  #@sink


        def render_receipt(order):
            return ENV.get_template("receipt.html").render(order=order)
     '''},
     [("autoescape=False", "autoescape=select_autoescape()")]),

pair("jinja-environment-default", "jinja-autoescape",
     "A Jinja environment is created without autoescape (off by default)",
     "The environment passes autoescape=True",
     ["jinja2", "default-off"], ["autoescape"],
     {"pages.py": r'''
        import jinja2


        def page_renderer():
            env = jinja2.Environment(loader=jinja2.PackageLoader("shop"))  #@sink
            return env.get_template("page.html")
     '''},
     [('jinja2.PackageLoader("shop"))', 'jinja2.PackageLoader("shop"), autoescape=True)')]),

pair("tar-extractall-no-filter", "tar-extract",
     "Uploaded theme archives are extracted with extractall and no filter",
     "extractall is called with filter='data'",
     ["tarfile", "upload"], ["extraction-filter"],
     {"themes.py": r'''
        import tarfile
        from pathlib import Path

        THEMES = Path("/srv/themes")


        def install_theme(upload, name):
            target = THEMES / name
            with tarfile.open(fileobj=upload, mode="r:gz") as tar:
                tar.extractall(target)  #@sink
            return target
     '''},
     [("tar.extractall(target)", 'tar.extractall(target, filter="data")')]),

pair("tar-open-extractall-chain", "tar-extract",
     "A release tarball is opened and extracted in one chained call without a filter",
     "The chained call passes filter='tar'",
     ["tarfile", "cli"], ["extraction-filter"],
     {"release.py": r'''
        import sys
        import tarfile


        def unpack(bundle, dest):
            tarfile.open(bundle).extractall(dest)  #@sink
            return dest


        if __name__ == "__main__":
            unpack(sys.argv[1], sys.argv[2])
     '''},
     [("tarfile.open(bundle).extractall(dest)", 'tarfile.open(bundle).extractall(dest, filter="tar")')]),

pair("ssh-auto-add-policy", "ssh-host-key",
     "A deploy script accepts any SSH host key with AutoAddPolicy",
     "The deploy script keeps RejectPolicy with the system known hosts",
     ["paramiko"], ["host-key-verified"],
     {"deploy.py": r'''
        import paramiko


        def restart(host, user):
            client = paramiko.SSHClient()
            client.load_system_host_keys()
            client.set_missing_host_key_policy(paramiko.AutoAddPolicy())  #@sink
            client.connect(host, username=user)
            client.exec_command("sudo systemctl restart shop")
            client.close()
     '''},
     [("paramiko.AutoAddPolicy()", "paramiko.RejectPolicy()")]),

pair("ssh-warning-policy", "ssh-host-key",
     "A backup job only warns about unknown SSH host keys",
     "The backup job loads the known hosts file and keeps the default policy",
     ["paramiko"], ["host-key-verified"],
     {"backup.py": r'''
        import paramiko


        def fetch_dump(host, known_hosts):
            client = paramiko.SSHClient()
            client.set_missing_host_key_policy(paramiko.WarningPolicy())  #@sink
            client.connect(host, username="backup")
            sftp = client.open_sftp()
            sftp.get("/var/backups/db.dump", "db.dump")
            return known_hosts
     '''},
     [("client.set_missing_host_key_policy(paramiko.WarningPolicy())",
       "client.load_host_keys(known_hosts)")]),

pair("mktemp-report", "temp-file",
     "A PDF report is written to a name from tempfile.mktemp",
     "The report file is created with tempfile.mkstemp",
     ["tempfile"], ["atomic-create"],
     {"reports.py": r'''
        import os
        import tempfile


        def render_pdf(data: bytes) -> str:
            path = tempfile.mktemp(suffix=".pdf")  #@sink
            with open(path, "wb") as out:
                out.write(data)
            os.chmod(path, 0o600)
            return path
     '''},
     [('path = tempfile.mktemp(suffix=".pdf")', 'fd, path = tempfile.mkstemp(suffix=".pdf")'),
      ('with open(path, "wb") as out:', 'with os.fdopen(fd, "wb") as out:')]),

pair("mktemp-imported-name", "temp-file",
     "A socket path is chosen with mktemp imported by name",
     "The socket lives in a directory from TemporaryDirectory",
     ["tempfile", "socket"], ["atomic-create"],
     {"agent.py": r'''
        import socket
        from tempfile import TemporaryDirectory, mktemp


        def listen():
            holder = TemporaryDirectory()
            path = mktemp(prefix="agent-")  #@sink
            server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            server.bind(path)
            return server, holder
     '''},
     [('path = mktemp(prefix="agent-")', 'path = holder.name + "/agent.sock"')]),

pair("chmod-777-upload-dir", "world-writable",
     "Uploaded files are made world-writable with chmod 0o777",
     "Uploaded files get 0o644",
     ["os.chmod"], ["least-privilege"],
     {"storage.py": r'''
        import os
        import shutil


        def store(src, dest):
            shutil.copyfile(src, dest)
            os.chmod(dest, 0o777)  #@sink
            return dest
     '''},
     [("os.chmod(dest, 0o777)", "os.chmod(dest, 0o644)")]),

pair("makedirs-world-writable", "world-writable",
     "A cache directory is created with mode 0o777",
     "The cache directory is created with mode 0o700",
     ["os.makedirs"], ["least-privilege"],
     {"cache.py": r'''
        import os

        CACHE = os.path.expanduser("~/.cache/shop")


        def ensure_cache():
            os.makedirs(CACHE, mode=0o777, exist_ok=True)  #@sink
            return CACHE
     '''},
     [("mode=0o777", "mode=0o700")]),

pair("chmod-stat-iwoth", "world-writable",
     "A shared log file gets the others-write bit through stat.S_IWOTH",
     "The log file gets the others-read bit only",
     ["os.chmod", "stat"], ["least-privilege"],
     {"logs.py": r'''
        import os
        import stat


        def open_shared_log(path):
            handle = open(path, "a")
            os.chmod(path, stat.S_IRUSR | stat.S_IWUSR | stat.S_IWOTH)  #@sink
            return handle
     '''},
     [("stat.S_IWOTH", "stat.S_IROTH")]),

pair("ecb-cryptography-modes", "ecb-mode",
     "Card numbers are encrypted with AES in ECB mode (cryptography)",
     "The same data is encrypted with AES-GCM",
     ["cryptography"], ["authenticated-mode"],
     {"vault.py": r'''
        import os

        from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes


        def seal(key: bytes, card: bytes) -> bytes:
            nonce = os.urandom(12)
            encryptor = Cipher(algorithms.AES(key), modes.ECB()).encryptor()  #@sink
            return nonce + encryptor.update(card) + encryptor.finalize()
     '''},
     [("modes.ECB()", "modes.GCM(nonce)")]),

pair("ecb-pycryptodome", "ecb-mode",
     "Session blobs are encrypted with PyCryptodome's AES.MODE_ECB",
     "The blobs are encrypted with AES.MODE_GCM",
     ["pycryptodome"], ["authenticated-mode"],
     {"blobs.py": r'''
        from Crypto.Cipher import AES
        from Crypto.Util.Padding import pad


        def encrypt_blob(key: bytes, blob: bytes) -> bytes:
            cipher = AES.new(key, AES.MODE_ECB)  #@sink
            return cipher.encrypt(pad(blob, 16))
     '''},
     [("AES.MODE_ECB", "AES.MODE_GCM")]),

pair("assert-admin-flask", "assert-authz",
     "An admin endpoint checks the role with assert",
     "The endpoint aborts with 403 when the user is not an admin",
     ["flask", "assert"], ["explicit-check"],
     {"admin.py": r'''
        from flask import Flask, abort, g

        app = Flask(__name__)


        @app.post("/admin/users/<int:user_id>/delete")
        def delete_user(user_id):
            assert g.user.is_admin  #@sink
            app.config["USERS"].pop(user_id, None)
            return {"deleted": user_id}
     '''},
     [("assert g.user.is_admin", "if not g.user.is_admin: abort(403)")]),

pair("assert-owner-django", "assert-authz",
     "A Django view checks object ownership with assert",
     "The view raises PermissionDenied when the user does not own the invoice",
     ["django", "assert"], ["explicit-check"],
     {"invoices.py": r'''
        from django.core.exceptions import PermissionDenied
        from django.http import JsonResponse

        from .models import Invoice


        def void_invoice(request, invoice_id):
            invoice = Invoice.objects.get(pk=invoice_id)
            assert invoice.owner_id == request.user.id, PermissionDenied  #@sink
            invoice.void()
            return JsonResponse({"voided": invoice_id})
     '''},
     [("assert invoice.owner_id == request.user.id, PermissionDenied",
       "if invoice.owner_id != request.user.id: raise PermissionDenied")]),
]
