"""A line's context (``suppression.context``): the block headers around it, by indentation, in
the languages the review reads. What a baseline entry and SARIF's fingerprint hold on to."""

from __future__ import annotations

import textwrap

from pytest_secreview.suppression.context import scopes

CALL = 'os.system("convert " + request.args["f"])'


def _context(source: str, needle: str, occurrence: int = 1) -> str:
    lines = textwrap.dedent(source).split("\n")
    numbers = [n for n, text in enumerate(lines, 1) if needle in text]
    return scopes(lines).of(numbers[occurrence - 1])


def test_the_same_line_in_two_routes_has_two_contexts_and_a_move_keeps_one() -> None:
    admin = f'''\
        @app.get("/admin/convert")
        @admin_required
        def admin_convert():
            {CALL}
        '''
    public = f'''\
        @app.get("/public/convert")
        def public_convert():
            {CALL}
        '''
    admin, public = textwrap.dedent(admin), textwrap.dedent(public)
    both = admin + "\n\n" + public
    assert _context(both, "os.system", 1) != _context(both, "os.system", 2)
    moved = "import os\n\n\n" + public + "\n\n" + admin
    assert _context(both, "os.system", 1) == _context(moved, "os.system", 2)
    assert _context(both, "os.system", 1) != _context(
        both.replace("@admin_required\n", ""), "os.system", 1)


def test_a_line_at_the_top_level_has_none_and_a_nested_one_names_every_header() -> None:
    source = f'''\
        {CALL}

        class Jobs:
            def run(self):
                {CALL}

        class Other:
            def run(self):
                {CALL}
        '''
    assert _context(source, "os.system", 1) == ""
    assert _context(source, "os.system", 2) != _context(source, "os.system", 3)


def test_comments_blank_lines_and_a_header_spanning_lines() -> None:
    one = f'''\
        def convert(
            name,
        ):
        # a comment at the left edge is no header

            {CALL}
        '''
    other = one.replace("def convert(", "def restore(")
    assert _context(one, "os.system") not in ("", _context(other, "os.system"))
    assert _context(one, "os.system") == _context(
        one.replace("# a comment at the left edge is no header", ""), "os.system")


def test_brace_languages_and_annotations() -> None:
    js = '''\
        app.get('/admin', requireAdmin, (req, res) => {
            exec('convert ' + req.query.f);
        });
        app.get('/public', (req, res) => {
            exec('convert ' + req.query.f);
        });
        '''
    assert _context(js, "exec(", 1) not in ("", _context(js, "exec(", 2))
    java = '''\
        class Api {
            @GetMapping("/admin")
            @Secured("ADMIN")
            public String admin() {
                run(cmd);
            }

            @GetMapping("/admin")
            public String admin() {
                run(cmd);
            }
        }
        '''
    assert _context(java, "run(cmd)", 1) != _context(java, "run(cmd)", 2)


def test_a_hostile_file_is_read_in_bounded_time() -> None:
    # Every line deeper than the last: a header per line, each line's walk bounded.
    lines = [" " * n + "x:" for n in range(3000)]
    found = scopes(lines)
    assert found.of(3000) and found.of(0) == "" and found.of(10**6) == ""
