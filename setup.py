"""The package list, found rather than written by hand (everything else is in pyproject.toml).

Every folder of ``pytest_secreview/`` with an ``__init__.py`` is a package of the wheel, so a
new subpackage cannot be left out of what users install. Two data folders of the tree are
mapped into the package by ``[tool.setuptools.package-dir]``: the bundled rule pack
(``rules/``) and the published JSON Schemas (``schemas/``).
"""

from setuptools import find_packages, setup

setup(packages=[
    *find_packages(include=["pytest_secreview", "pytest_secreview.*"]),
    "pytest_secreview.bundled_rules",
    "pytest_secreview.json_schemas",
])
