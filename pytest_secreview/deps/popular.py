"""Package names shipped with the review (no network).

:data:`POPULAR`: the names attackers imitate, hand-curated from the most downloaded packages
of each registry; a new requirement one or two edits away from one of these is a typosquatting
signal, unless it is itself well known.

:func:`well_known`: each registry's 15,000 most downloaded packages when the list was taken
(``known-pypi.txt``, ``known-npm.txt``). A name among them is a package people mean, never a
typosquat: ``markdown2`` is one edit from ``markdown``, ``cattrs`` from ``attrs``, ``preact``
from ``react``, and each is a real, widely used project (120 of PyPI's 15,000 and 46 of npm's
are that close to a curated name). A typosquat lives for days before the registry removes it
and never gets near those download counts, so the list costs no detection; an unknown name
one edit from a popular one (``markdown3``) is still reported.
"""

from __future__ import annotations

from functools import cache
from importlib import resources

from .model import NPM, PYPI, normalise

_PYPI = """
aiobotocore aiofiles aiohttp aiosignal alembic amqp aniso8601 annotated-types anyio apache-airflow
appdirs argcomplete argon2-cffi arrow asgiref asn1crypto astroid async-timeout asyncpg attrs
authlib autopep8 awscli azure-core azure-identity azure-storage-blob babel backoff bcrypt
beautifulsoup4 billiard black bleach blinker boto boto3 botocore build cachecontrol cachetools
celery certifi cffi chardet charset-normalizer click cloudpickle colorama coloredlogs
configparser contourpy coverage cryptography cycler cython dask databricks-sdk dataclasses-json
datasets decorator defusedxml deprecated dill distlib distro django django-cors-headers
django-environ django-extensions django-filter django-storages djangorestframework dnspython
docker docutils dotenv ecdsa elasticsearch email-validator et-xmlfile exceptiongroup faker
fastapi filelock flake8 flask flask-cors flask-login flask-sqlalchemy flask-wtf fonttools
frozenlist fsspec future gast gevent gitdb gitpython google-api-core google-api-python-client
google-auth google-auth-oauthlib google-cloud-bigquery google-cloud-core google-cloud-storage
googleapis-common-protos graphql-core greenlet grpcio grpcio-status grpcio-tools gunicorn h11
h2 httpcore httplib2 httptools httpx huggingface-hub hypothesis idna imageio importlib-metadata
importlib-resources iniconfig ipykernel ipython isodate isort itsdangerous jaraco-classes jedi
jeepney jinja2 jmespath joblib jsonpatch jsonpointer jsonschema jupyter jupyter-client
jupyter-core jupyterlab keras keyring kiwisolver kombu kubernetes langchain lazy-object-proxy
lightgbm llvmlite lxml mako markdown markdown-it-py markupsafe marshmallow matplotlib
matplotlib-inline mccabe mdurl mock more-itertools msal msgpack multidict mypy mypy-extensions
mysqlclient nest-asyncio networkx nltk nodeenv numba numpy oauthlib openai openpyxl
opencv-python opentelemetry-api opentelemetry-sdk orjson packaging pandas paramiko parso
pathspec pendulum pexpect pillow pip pipenv pkginfo platformdirs plotly pluggy poetry
poetry-core prometheus-client prompt-toolkit protobuf psutil psycopg psycopg2 psycopg2-binary
ptyprocess py pyarrow pyasn1 pyasn1-modules pycodestyle pycparser pycryptodome pycryptodomex
pydantic pydantic-core pydantic-settings pyflakes pygments pyjwt pylint pymongo pymysql
pynacl pyopenssl pyparsing pyproject-hooks pyrsistent pyserial pysocks pytest pytest-asyncio
pytest-cov pytest-mock pytest-xdist python-dateutil python-dotenv python-jose
python-multipart pytz pywin32 pyyaml pyzmq redis referencing regex requests requests-oauthlib
requests-toolbelt rich rpds-py rsa ruamel-yaml ruff s3fs s3transfer scikit-learn scipy
scrapy seaborn selenium sentry-sdk setuptools shapely simplejson six smmap sniffio
snowflake-connector-python sortedcontainers soupsieve sqlalchemy sqlparse starlette
statsmodels streamlit sympy tabulate tenacity tensorboard tensorflow termcolor threadpoolctl
tiktoken tokenizers toml tomli tomlkit toolz torch torchvision tornado tox tqdm traitlets
transformers typer types-requests typing-extensions typing-inspect tzdata tzlocal ujson
urllib3 uvicorn uvloop virtualenv watchdog wcwidth websocket-client websockets werkzeug wheel
wrapt wtforms xgboost xlrd xmltodict yarl zipp
"""

_NPM = """
@babel/core @babel/preset-env @types/node @types/react acorn ajv ansi-regex ansi-styles
anymatch argparse async axios babel-loader bluebird body-parser brace-expansion braces
buffer camelcase chalk cheerio chokidar classnames cli-cursor color color-convert
color-name colors commander concat-map cookie cookie-parser core-js cors cross-env
cross-spawn css-loader date-fns debug dayjs deepmerge dotenv ejs electron escape-string-regexp
eslint eslint-plugin-import eslint-plugin-react esprima event-stream eventemitter3 express
express-session fast-glob fs-extra glob globby graceful-fs handlebars has-flag helmet
http-proxy immer inherits jest jquery js-tokens js-yaml jsdom json5 jsonwebtoken koa lodash
lodash-es loose-envify lru-cache make-dir micromatch mime mime-types minimatch minimist mkdirp
moment mongodb mongoose morgan ms mysql mysql2 nan nanoid next node-fetch nodemon npm
object-assign once ora passport path-to-regexp pg picomatch postcss prettier prop-types
punycode qs react react-dom react-is react-router react-router-dom redux request rimraf
rxjs safe-buffer sass semver serve-static sharp socket.io source-map string-width
strip-ansi style-loader supports-color tailwindcss through2 tslib typescript ua-parser-js
uglify-js underscore uuid validator vue webpack webpack-cli whatwg-url ws yallist yargs
zod
"""

POPULAR: dict[str, frozenset[str]] = {
    PYPI: frozenset(normalise(PYPI, n) for n in _PYPI.split()),
    NPM: frozenset(normalise(NPM, n) for n in _NPM.split()),
}


_KNOWN_FILES = {PYPI: "known-pypi.txt", NPM: "known-npm.txt"}


@cache
def _known(ecosystem: str) -> frozenset[str]:
    name = _KNOWN_FILES.get(ecosystem)
    if name is None:
        return frozenset()
    text = resources.files(__package__).joinpath(name).read_text(encoding="utf-8")
    return frozenset(normalise(ecosystem, line.strip()) for line in text.splitlines()
                     if line.strip() and not line.startswith("#"))


def well_known(ecosystem: str, key: str) -> bool:
    """True when ``key`` (a normalised name) is one of the registry's most downloaded
    packages (the curated :data:`POPULAR` names included)."""
    return key in POPULAR.get(ecosystem, frozenset()) or key in _known(ecosystem)
